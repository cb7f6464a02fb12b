import * as fs from 'node:fs'
import { SqlClient } from '@effect/sql'
import { Effect, Exit, Layer, ManagedRuntime } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as AppendWriter from '../../store/appendWriter'
import * as Conversations from '../../store/conversations'
import * as Database from '../../store/database'
import * as Fences from '../../store/fence'
import { migrate } from '../../store/migrate'
import * as Workspaces from '../../store/workspaces'
import { freshDatabase, tempDir } from '../support/server'

/**
 * The node's group commit of appends (store/appendWriter), on a fresh PostgreSQL database when
 * DATABASE_URL is set, else on the embedded one (in memory): parts submitted at once share a
 * write; a part that cannot be written (a client id already stored) fails alone and the others of
 * its write still commit; a part whose conversation moved on is refused as stale and writes
 * nothing; a part fenced by a shard epoch no longer stored (cluster mode) writes nothing either.
 */
const adminUrl = process.env.DATABASE_URL

describe('the append writer', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>> | undefined
  const dir = tempDir()
  let rt: ManagedRuntime.ManagedRuntime<SqlClient.SqlClient | AppendWriter.AppendWriter, unknown>
  let workspaceId = 0
  beforeAll(async () => {
    db = adminUrl ? await freshDatabase(adminUrl) : undefined
    const database = Database.layer(
      db ? { url: db.url, dataDir: 'memory' } : { url: undefined, dataDir: 'memory', socketDir: dir },
    )
    rt = ManagedRuntime.make(Layer.provideMerge(AppendWriter.layer, database))
    await rt.runPromise(migrate)
    workspaceId = await rt.runPromise(
      Effect.map(
        Workspaces.create({
          name: 'Append',
          plan: 'pro',
          proUntil: null,
          timezone: 'UTC',
          owner: { email: 'append@example.com', name: 'Owner' },
        }),
        (w) => w.workspace.id,
      ),
    )
  })
  afterAll(async () => {
    await rt?.dispose()
    await db?.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  const conversation = () => rt.runPromise(Conversations.create(workspaceId, null))
  const part = (row: Conversations.ConversationRow, clientId: string): Conversations.AppendWrite => {
    const at = new Date()
    const m: Conversations.NewMessage = {
      direction: 'in',
      type: 'text',
      body: clientId,
      sender: {},
      clientId,
    }
    const next = Conversations.applyMessage(row, m, at)
    return {
      conversationId: row.id,
      prevSeq: row.last_seq,
      row: next,
      messages: [{ seq: next.last_seq, at, m, fact: null }],
    }
  }
  const submit = (w: Conversations.AppendWrite) =>
    rt.runPromise(Effect.exit(Effect.flatMap(AppendWriter.AppendWriter, (writer) => writer.submit(w))))
  const stored = (id: number) =>
    rt.runPromise(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ seq: number; client_id: string }>`
          SELECT seq, client_id FROM messages WHERE conversation_id = ${id} ORDER BY seq`,
      ),
    )

  it('fails only the part that cannot be written; the rest of its write commits', async () => {
    const [a, b, d] = [await conversation(), await conversation(), await conversation()]
    // `b` already holds client id "x" (written alone first); its second "x" must fail.
    expect(Exit.isSuccess(await submit(part(b, 'x')))).toBe(true)
    const bNow = (await rt.runPromise(Conversations.byId(b.id)))!
    const exits = await Promise.all([
      submit(part(a, 'a1')),
      submit(part(bNow, 'x')),
      submit(part(d, 'd1')),
      submit(part(d, 'd-stale')),
    ])
    expect(Exit.isSuccess(exits[0]!)).toBe(true)
    expect(Exit.isFailure(exits[1]!)).toBe(true)
    // The two parts for `d` were computed from the same row: one is written, the other is stale
    // (whichever came second) and writes nothing.
    const dExits = [exits[2]!, exits[3]!]
    expect(dExits.filter(Exit.isSuccess)).toHaveLength(1)
    expect(dExits.find(Exit.isFailure)!.toString()).toContain('AppendStale')
    const dWinner = Exit.isSuccess(exits[2]!) ? 'd1' : 'd-stale'
    expect(await stored(a.id)).toEqual([{ seq: 1, client_id: 'a1' }])
    expect(await stored(b.id)).toEqual([{ seq: 1, client_id: 'x' }])
    expect(await stored(d.id)).toEqual([{ seq: 1, client_id: dWinner }])
    const after = await rt.runPromise(Conversations.byId(d.id))
    expect(after).toMatchObject({ last_seq: 1, unread_count: 1, preview: dWinner })
  })

  it('writes a fenced part only while its shard is stored at its epoch, in the batch and the careful way', async () => {
    const sql = (q: string) => rt.runPromise(Effect.flatMap(SqlClient.SqlClient, (c) => c.unsafe(q)))
    // Two shards as engine/cluster/epochs.ts takes them: `g:1` still ours at epoch 3, `g:2` taken
    // by another node since (our epoch 4, stored 5).
    await sql(`INSERT INTO shard_epochs (shard, epoch, owner) VALUES ('g:1', 3, 'us'), ('g:2', 5, 'them')`)
    const [a, b, c] = [await conversation(), await conversation(), await conversation()]
    const fenced = (w: Conversations.AppendWrite, shard: string, epoch: number) => ({
      ...w,
      fence: { shard, epoch },
    })
    const exits = await Promise.all([
      submit(fenced(part(a, 'kept'), 'g:1', 3)),
      submit(fenced(part(b, 'lost'), 'g:2', 4)),
      // No fence (a single node): written as before.
      submit(part(c, 'plain')),
    ])
    expect(Exit.isSuccess(exits[0]!)).toBe(true)
    expect(exits[1]!.toString()).toContain('ShardLost')
    expect(Exit.isSuccess(exits[2]!)).toBe(true)
    expect(await stored(a.id)).toEqual([{ seq: 1, client_id: 'kept' }])
    expect(await stored(b.id)).toEqual([])
    expect(await stored(c.id)).toEqual([{ seq: 1, client_id: 'plain' }])
    expect(await rt.runPromise(Conversations.byId(b.id))).toMatchObject({ last_seq: 0 })

    // The careful way (under the row lock) checks the same fence.
    const m: Conversations.NewMessage = {
      direction: 'in',
      type: 'text',
      body: 'c',
      sender: {},
      clientId: 'careful',
    }
    const refused = await rt.runPromise(
      Effect.exit(Conversations.append(b.id, m, { shard: 'g:2', epoch: 4 })),
    )
    expect(refused.toString()).toContain('ShardLost')
    expect(await stored(b.id)).toEqual([])
    const written = await rt.runPromise(Conversations.append(b.id, m, { shard: 'g:2', epoch: 5 }))
    expect(written).toMatchObject({ created: true, message: { seq: 1, client_id: 'careful' } })
  })

  it('makes a change other than an append (a status, an assignment) only under a fence still stored', async () => {
    const sql = (q: string) => rt.runPromise(Effect.flatMap(SqlClient.SqlClient, (c) => c.unsafe(q)))
    await sql(`INSERT INTO shard_epochs (shard, epoch, owner) VALUES ('h:1', 7, 'them')`)
    const c = await conversation()
    const solve = Conversations.setStatus(c.id, 'solved', new Date())
    const stale = await rt.runPromise(Effect.exit(Fences.within({ shard: 'h:1', epoch: 6 }, solve)))
    expect(stale.toString()).toContain('ShardLost')
    expect(await rt.runPromise(Conversations.byId(c.id))).toMatchObject({ status: 'open' })
    await rt.runPromise(Fences.within({ shard: 'h:1', epoch: 7 }, solve))
    expect(await rt.runPromise(Conversations.byId(c.id))).toMatchObject({ status: 'solved' })
  })
})
