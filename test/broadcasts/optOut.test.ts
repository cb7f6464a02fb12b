import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { advance, bulkContacts, ENV, recipients, sql, waitFor, warmedUp } from '../broadcasts/support'
import { api, type Who } from '../contacts/support'
import { linkedNumber } from '../msgapp/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * The audience is fixed when a broadcast is scheduled, but a contact who opts out before their turn
 * (by the opt-out endpoint, or by a merge with an opted-out contact) is not messaged: skipped,
 * reason `opted_out`, as if they had opted out before.
 */
let s: TestServer
let w: F.Seeded
let session: F.Session
let owner: Who
beforeAll(async () => {
  s = await startTestServer({ ...ENV, REDIS_URL: '' })
  w = await F.workspace(s, { plan: 'pro' })
  session = await F.signIn(s, w.ownerEmail)
  owner = session.headers()
}, 60_000)
afterAll(() => s?.stop())

describe('opt-out during a running broadcast', () => {
  it('does not send to a contact who opted out before its turn', async () => {
    const o = api(s, owner)
    const { ch, sock } = await linkedNumber(s, session, '6281277700001')
    await warmedUp(s, ch.id)
    const label = (await o.post('/v1/labels', { name: 'Promo review' })).data.id
    const ids = await bulkContacts(s, w.workspaceId, 3, '7', label)
    // A fourth contact, opted out, not in the audience: merged into the third one below.
    const [optedSource] = await sql<{ id: number }>(
      s,
      (db) => db`INSERT INTO contacts (workspace_id, name, email, broadcast_opt_out)
        VALUES (${w.workspaceId}, 'Sumber', 'sumber@example.com', true) RETURNING id`,
    )
    const b = await o.post('/v1/broadcasts', {
      name: 'Opt-out review',
      channel_id: ch.id,
      audience: { label_ids: [label] },
      messages: [{ text: 'Halo {{first_name}}', footer: 'Balas STOP' }],
      settings: { pace_per_minute: 1, random_delay_seconds: 0, quiet_hours: null, skip_recent_hours: 0 },
    })
    expect(b.status, JSON.stringify(b.error)).toBe(201)
    const before = sock.sent.length
    const started = await o.post(`/v1/broadcasts/${b.data.id}/schedule`, { risk_ack: true })
    expect(started.status, JSON.stringify(started.error)).toBe(200)
    await waitFor('the first send', async () => sock.sent.length - before >= 1)

    // Contact 2 opts out (the endpoint made for it); contact 3 absorbs an opted-out contact.
    const opt = await o.post(`/v1/contacts/${ids[1]}/broadcast-opt-out`, { opt_out: true })
    expect(opt.status, JSON.stringify(opt.error)).toBe(200)
    expect(opt.data.broadcast_opt_out).toBe(true)
    const merged = await o.post(`/v1/contacts/${ids[2]}/merge`, { source_id: optedSource!.id })
    expect(merged.status, JSON.stringify(merged.error)).toBe(200)
    expect(merged.data.broadcast_opt_out).toBe(true)

    // Let the clock run through the next two gaps.
    for (let i = 0; i < 12; i++) {
      await advance(s, 30_000)
      await new Promise((r) => setTimeout(r, 300))
      const d = (await o.get(`/v1/broadcasts/${b.data.id}`)).data
      if (d.status === 'completed') break
    }
    const d = (await o.get(`/v1/broadcasts/${b.data.id}`)).data
    expect(d.status).toBe('completed')
    expect(d.counts).toMatchObject({ sent: 1, skipped: 2 })
    expect(d.skip_reasons.opted_out).toBe(2)
    const rows = await recipients(s, b.data.id)
    expect(rows.filter((r) => r.state === 'skipped').map((r) => r.reason)).toEqual(['opted_out', 'opted_out'])
    const phones = sock.sent.slice(before).map((x) => `+${x.jid.split('@')[0]}`)
    expect(phones).toHaveLength(1)
    const opted = await sql<{ phone: string }>(
      s,
      (db) => db`SELECT phone FROM contacts WHERE id IN (${ids[1]!}, ${ids[2]!}) ORDER BY id`,
    )
    for (const c of opted) expect(phones).not.toContain(c.phone)
  }, 120_000)
})
