import * as fs from 'node:fs'
import { SqlClient } from '@effect/sql'
import { Effect, Exit, Layer, ManagedRuntime } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as AppendWriter from '../../store/appendWriter'
import * as Conversations from '../../store/conversations'
import * as Database from '../../store/database'
import { migrate } from '../../store/migrate'
import * as Workspaces from '../../store/workspaces'
import { freshDatabase, tempDir } from '../support/server'

/**
 * The node's group commit of appends (store/appendWriter), on a fresh PostgreSQL database when
 * DATABASE_URL is set, else on the embedded one (in memory): parts submitted at once share a
 * write; a part that cannot be written (a client id already stored) fails alone and the others of
 * its write still commit; a part whose conversation moved on is refused as stale and writes
 * nothing.
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
})
