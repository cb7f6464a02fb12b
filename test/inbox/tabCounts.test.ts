import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as I from './support'

/**
 * The list's `meta.counts` are kept as conversations change (migration 0114) for the filters on
 * grouped columns; the others count by scanning. A filter that takes every conversation
 * (`created_from` long ago) makes the scan answer the same question, so the two must agree for
 * every viewer and filter, before and after the kept deltas are folded.
 */
let s: TestServer
let w: F.Seeded
const heads: Record<string, Record<string, string>> = {}
let chA = 0
let chB = 0
let team = 0
let cat = 0
let agentId = 0

const counts = async (who: string, query: string) => {
  const r = await I.body(await s.fetch(`/v1/interactions?${query}`, { headers: heads[who]! }))
  expect(r.meta, query).toBeDefined()
  return { counts: r.meta.counts as Record<string, number>, total: r.meta.total as number }
}

/** The kept counts and the scanned ones for the same filters agree. */
const agree = async (who: string, query: string) => {
  const kept = await counts(who, query)
  const scanned = await counts(who, `${query}${query ? '&' : ''}created_from=2000-01-01`)
  expect(kept, `${who} ?${query}`).toEqual(scanned)
  return kept
}

const filters = () => [
  '',
  'tab=new',
  'tab=solved',
  `channel_ids=${chA}`,
  `channel_ids=${chB}`,
  'assignee=none',
  'assignee=me',
  `assignee=${agentId}`,
  'team=mine',
  'team=none',
  `team=${team}`,
  `category=${cat}`,
  'category=none',
  'kind=group',
]

beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  w = await F.workspace(s, { plan: 'pro' })
  const owner = await F.signIn(s, w.ownerEmail)
  heads.owner = owner.headers()
  chA = (await I.channel(s, w, 'msgapp')).id
  chB = (await I.channel(s, w, 'livechat')).id
  const agent = await I.agent(s, w, 'Agent')
  agentId = agent.user.id
  heads.agent = agent.session.headers()
  const limited = await I.agent(s, w, 'Agent')
  await I.setMember(s, w, limited.user.id, { channelIds: [chB] })
  heads.limited = limited.session.headers()
  team = await I.team(s, w, [agentId])
  cat = (await I.body(await s.fetch('/v1/conversation-categories', F.json({ name: 'Billing' }, heads.owner))))
    .data.id as number
})
afterAll(() => s?.stop())

describe('tab counts kept as conversations change', () => {
  it('agree with a count of every conversation, for every viewer and filter, through changes and folds', async () => {
    const made: number[] = []
    for (let i = 0; i < 12; i++) {
      made.push(
        (
          await I.conversation(s, w, {
            channelId: i % 3 === 0 ? chB : chA,
            teamId: i % 4 === 0 ? team : null,
            assigneeId: i % 5 === 0 ? agentId : null,
            kind: i % 6 === 5 ? 'group' : 'chat',
          })
        ).id,
      )
    }
    const check = async () => {
      for (const who of ['owner', 'agent', 'limited']) for (const f of filters()) await agree(who, f)
    }
    await check()
    expect((await counts('owner', '')).counts.new).toBe(12)

    // Changes of every grouped column, through the API.
    const patch = (id: number, b: Record<string, unknown>) =>
      s.fetch(`/v1/interactions/${id}`, I.patch(b, heads.owner!))
    expect((await patch(made[1]!, { status: 'solved', category_id: cat })).status).toBe(200)
    expect((await patch(made[2]!, { status: 'closed' })).status).toBe(200)
    expect((await patch(made[3]!, { assignee_id: agentId })).status).toBe(200)
    expect((await patch(made[4]!, { team_id: team, category_id: cat })).status).toBe(200)
    expect((await patch(made[5]!, { assignee_id: null, team_id: null })).status).toBe(200)
    // A reply moves a conversation's reply state; a customer's message again.
    await I.inbound(s, made[7]!, 'hello')
    const reply = await s.fetch(
      `/v1/interactions/${made[7]}/messages`,
      F.json({ text: 'hi', client_id: 'c-tab-1' }, heads.owner!),
    )
    expect(reply.status).toBe(201)
    await check()
    const before = await counts('owner', '')
    expect(before.counts.solved).toBe(1)
    expect(before.counts.closed).toBe(1)
    expect(before.total).toBe(12)

    // A category's deletion clears it from its conversations (the database's own update).
    expect((await s.fetch(`/v1/conversation-categories/${cat}`, I.del(heads.owner!))).status).toBe(200)
    await check()
    expect((await counts('owner', 'category=none')).total).toBe(12)

    // A fold moves the deltas into the counts: the same answers after it.
    await new Promise((r) => setTimeout(r, 1_500))
    await check()
    const [left] = await I.sql<{ n: number }>(
      s,
      (sql) => sql`SELECT count(*)::int AS n FROM conversation_count_deltas`,
    )
    expect(left!.n).toBe(0)
    expect(await counts('owner', '')).toEqual(before)
  })

  it('gives the deltas’ table its pages back after a burst of new conversations', async () => {
    // 1,200 conversations at once (an import, a campaign's answers): their deltas are folded and
    // deleted, and every count read scans that table, dead rows included, until a vacuum.
    await I.sql(
      s,
      (sql) => sql`INSERT INTO conversations (workspace_id, channel_id, kind, created_at, updated_at)
        SELECT ${w.workspaceId}, ${chA}, 'chat', now(), now() FROM generate_series(1, 1200)`,
    )
    const pages = async () =>
      (
        await I.sql<{ n: number }>(
          s,
          (sql) => sql`SELECT pg_relation_size('conversation_count_deltas')::int / 8192 AS n`,
        )
      )[0]!.n
    expect(await pages()).toBeGreaterThan(0)
    let left = await pages()
    for (let i = 0; i < 40 && left > 0; i++) {
      await new Promise((r) => setTimeout(r, 250))
      left = await pages()
    }
    expect(left).toBe(0)
    expect((await counts('owner', '')).total).toBe(1212)
    await agree('owner', '')
  })
})
