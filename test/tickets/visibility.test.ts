import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import { startTestServer, type TestServer } from '../support/server'
import { api, type People, people, raise, type Who } from './support'

/**
 * Spec 2 §1 rule 3 as one matrix: for each kind of viewer (team member, other team, assignee,
 * creator, mentioned, admin, view-all, key) the detail, the list, the discussion, the files and
 * the `ticket:` subscription agree, through every stage of a ticket's life: unassigned (the
 * team), assigned (participants only), a mention, the last assignee removed (the team again).
 * A member who loses sight is unsubscribed from `ticket:{id}` at once.
 */
let s: TestServer
let p: People

beforeAll(async () => {
  s = await startTestServer()
  p = await people(s)
}, 60_000)
afterAll(() => s?.stop())

type Viewer = 'owner' | 'agent' | 'b1' | 'b2' | 'other' | 'admin' | 'viewAll' | 'outsider' | 'readKey'
const viewers: readonly Viewer[] = [
  'owner',
  'agent',
  'b1',
  'b2',
  'other',
  'admin',
  'viewAll',
  'outsider',
  'readKey',
]
const who = (v: Viewer): Who => p[v]

/** What each viewer sees of a ticket, through every read path. */
const sight = async (ticketId: number, fileUrl: string) => {
  const out: Record<string, boolean> = {}
  for (const v of viewers) {
    const detail = (await api(s, who(v)).get(`/v1/tickets/${ticketId}`)).status
    const listed = (await api(s, who(v)).get('/v1/tickets?per_page=100')).data.some(
      (t: any) => t.id === ticketId,
    )
    const messages = (await api(s, who(v)).get(`/v1/tickets/${ticketId}/messages`)).status
    const file = (await s.fetch(fileUrl, { headers: who(v) })).status
    const paths = [detail === 200, listed, messages === 200, file === 200]
    // Every read path agrees (the one rule), and what is not visible is 404, never 403.
    expect(
      new Set(paths).size,
      `${v}: detail ${detail}, listed ${listed}, messages ${messages}, file ${file}`,
    ).toBe(1)
    if (!paths[0]) expect([detail, messages, file]).toEqual([404, 404, 404])
    if (v !== 'readKey') {
      const { c, answer } = await I.socketFor(s, p.sessions[v]!, `ticket:${ticketId}`)
      expect(answer.op, `${v} subscribing`).toBe(paths[0] ? 'subscribed' : 'refused')
      c.close()
    }
    out[v] = paths[0]!
  }
  return out
}

const visibleTo = (m: Record<string, boolean>) =>
  Object.entries(m)
    .filter(([, v]) => v)
    .map(([k]) => k)
    .sort()

describe('who sees a ticket', () => {
  it('follows the team, then the participants, and hands it back to the team', async () => {
    const t = await raise(s, p)
    const res = await s.fetch(`/v1/tickets/${t.id}/messages`, {
      method: 'POST',
      headers: p.agent,
      body: I.form({ body: 'screenshot' }, [
        { field: 'files[]', name: 'a.png', type: 'image/png', bytes: I.bytes(8) },
      ]),
    })
    const url = (await I.body(res)).data.files[0].url as string
    const always = ['admin', 'agent', 'owner', 'readKey', 'viewAll']

    // No assignee: the Back Office team (and participants: the creator).
    expect(visibleTo(await sight(t.id, url))).toEqual([...always, 'b1', 'b2'].sort())

    // Assigned: participants only; the other team member subscribed is unsubscribed at once.
    const b2 = await I.socketFor(s, p.sessions.b2!, `ticket:${t.id}`)
    expect(b2.answer.op).toBe('subscribed')
    expect((await api(s, p.b1).post(`/v1/tickets/${t.id}/assignees`, { user_id: p.b1Id })).status).toBe(200)
    expect(await b2.c.next((f) => f.op === 'unsubscribed')).toMatchObject({
      channel: `ticket:${t.id}`,
      reason: 'access_lost',
    })
    b2.c.close()
    expect(visibleTo(await sight(t.id, url))).toEqual([...always, 'b1'].sort())

    // Mentioned: a participant too.
    await api(s, p.b1).post(`/v1/tickets/${t.id}/messages`, { body: 'FYI', mention_ids: [p.outsiderId] })
    expect(visibleTo(await sight(t.id, url))).toEqual([...always, 'b1', 'outsider'].sort())

    // The last assignee removed: the whole team again.
    expect((await api(s, p.b1).del(`/v1/tickets/${t.id}/participants/${p.b1Id}`)).status).toBe(200)
    expect(visibleTo(await sight(t.id, url))).toEqual([...always, 'b1', 'b2', 'outsider'].sort())

    // A follower removed loses sight and their subscription.
    const out = await I.socketFor(s, p.sessions.outsider!, `ticket:${t.id}`)
    expect(out.answer.op).toBe('subscribed')
    expect((await api(s, p.b1).del(`/v1/tickets/${t.id}/participants/${p.outsiderId}`)).status).toBe(200)
    expect(await out.c.next((f) => f.op === 'unsubscribed')).toMatchObject({ reason: 'access_lost' })
    out.c.close()
    expect((await api(s, p.outsider).get(`/v1/tickets/${t.id}`)).status).toBe(404)
  })

  it("another workspace's key sees none of it (404)", async () => {
    const t = await raise(s, p)
    const F = await import('../support/fixtures')
    const w2 = await F.workspace(s, { plan: 'pro' })
    const k = F.bearer(await F.apiKey(s, w2, 'write'))
    expect((await api(s, k).get(`/v1/tickets/${t.id}`)).status).toBe(404)
    expect((await api(s, k).get(`/v1/tickets/${t.id}/messages`)).status).toBe(404)
    expect((await api(s, k).patch(`/v1/tickets/${t.id}`, { priority: 'low' })).status).toBe(404)
    expect((await api(s, k).get('/v1/tickets')).data).toEqual([])
  })

  it("a contact's tickets and profile list only the visible ones, with their status log", async () => {
    const mine = await raise(s, p)
    const hidden = await api(s, p.owner).post('/v1/tickets', {
      subject: 'Other team',
      team_id: p.otherTeam,
      contact_id: p.contact,
    })
    await api(s, p.b1).patch(`/v1/tickets/${mine.id}`, { status: 'in_progress' })
    const forB2 = await api(s, p.b2).get(`/v1/contacts/${p.contact}/tickets`)
    expect(forB2.status).toBe(200)
    const ids = forB2.data.map((t: any) => t.id)
    expect(ids).toContain(mine.id)
    expect(ids).not.toContain(hidden.data.id)
    const item = forB2.data.find((t: any) => t.id === mine.id)
    expect(item.status_log.map((e: any) => [e.from, e.status])).toEqual([
      [null, 'open'],
      ['open', 'in_progress'],
    ])
    const forOwner = await api(s, p.owner).get(`/v1/contacts/${p.contact}/tickets`)
    expect(forOwner.data.map((t: any) => t.id)).toContain(hidden.data.id)
    const profile = await api(s, p.b2).get(`/v1/contacts/${p.contact}`)
    expect(profile.data.tickets.map((t: any) => t.id)).toEqual(ids)
    expect(profile.data.statistics.tickets).toBe(ids.length)
  })
})
