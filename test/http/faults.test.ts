import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { allRoutes } from '../../http/app'
import { createLivechat, startVisitor } from '../livechat/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * Bad input is a 4xx, never a 500, beyond administration (test/admin/robustness.test.ts): every
 * inbox, channel and channel-API endpoint is called with ids beyond what the database holds, ids of
 * nothing, wrong types and out-of-range queries, in the path, body and query, and every 4xx
 * carries the error envelope.
 */
let s: TestServer
beforeAll(async () => {
  s = await startTestServer({
    MSGAPP_TRANSPORT: 'test',
    LIVECHAT_MIN_FILL_MS: '0',
    RATE_LIMIT_PER_KEY: '100000000',
    RATE_LIMIT_PER_SESSION: '100000000',
    RATE_LIMIT_PER_CHANNEL_KEY: '100000000',
  })
})
afterAll(() => s?.stop())

const ADMIN =
  /^\/v1\/(me|workspace|workspaces|members|invitations|roles|permissions|teams|audit-logs|api-keys|billing|settings|dashboard|notifications|plan-requests|public|invite|payments)\b/
const BIG = 99_999_999_999
/** Beyond even a PostgreSQL `bigint`. */
const HUGE = '99999999999999999999'
const bodies: ReadonlyArray<unknown> = [
  undefined,
  {},
  {
    id: BIG,
    interaction_id: BIG,
    channel_id: BIG,
    contact_id: BIG,
    team_id: BIG,
    assignee_id: BIG,
    user_id: BIG,
    category_id: BIG,
    parent_id: BIG,
    label_id: BIG,
    template_id: BIG,
    reply_to_id: BIG,
    contact: { id: HUGE },
    message_id: BIG,
    member_ids: [BIG],
    channel_ids: [BIG],
    ids: [BIG],
    status: 'open',
    text: 'x',
    name: 'xx',
    phone: '+6281234567890',
    days: 7,
    conversation_id: 'c',
    message: { id: 'm', text: 'x' },
  },
  {
    id: 'x',
    interaction_id: [],
    channel_id: 'x',
    text: 5,
    name: {},
    status: 9,
    message: 'x',
    hours: { mon: 'x' },
  },
]
const query =
  `?limit=${BIG}&before=${BIG}&after=${BIG}&page=${BIG}&per_page=${BIG}&channel_id=${BIG}&channel_ids=${BIG},x` +
  `&assignee=${BIG}&team=${BIG}&label_id=${BIG}&contact_id=${BIG}&category=${BIG}&interaction_id=${BIG}` +
  '&created_from=2020-13-45&created_to=x&kind=nope&tab=nope&sla=nope&q=%00'

describe('no server faults on bad input', () => {
  it('answers no inbox, channel or channel-API call with a 500', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const made = await s.fetch('/v1/channels/api', F.json({ name: 'Faults' }, owner.headers()))
    expect(made.status).toBe(201)
    const channelKey = ((await made.json()) as { data: { credentials: { key: string } } }).data.credentials
      .key
    // Keys and sessions get a budget large enough for the sweep (the server above); sessions (A
    // routes) still get fewer variations to keep it short. A 429 would hide a fault, so none may occur.
    const apiKey = await F.apiKey(s, w)
    const failures: string[] = []
    const routes = allRoutes().filter(
      (r) => r.path.startsWith('/v1/') && !ADMIN.test(r.path) && ['K', 'A', 'C'].includes(r.access),
    )
    expect(routes.length).toBeGreaterThan(50)
    for (const r of routes) {
      const ids = r.access === 'A' ? [String(BIG), HUGE] : [String(BIG), HUGE, '-1', '0', 'abc', '1.5']
      for (const id of ids) {
        const p = r.path.replace(/\{[a-z_]+\}/g, id)
        for (const b of bodies) {
          for (const q of r.access === 'A' ? [query] : ['', query]) {
            const auth =
              r.access === 'C'
                ? { authorization: `Bearer ${channelKey}` }
                : r.access === 'K'
                  ? { authorization: `Bearer ${apiKey}` }
                  : owner.headers()
            const res = await s.fetch(p + q, {
              method: r.method,
              headers: { ...auth, ...(b !== undefined ? { 'content-type': 'application/json' } : {}) },
              ...(b !== undefined && r.method !== 'GET' ? { body: JSON.stringify(b) } : {}),
            })
            const text = await res.text()
            if (res.status === 429) failures.push(`${r.method} ${p}: rate limited, the sweep is incomplete`)
            if (res.status >= 500)
              failures.push(`${r.method} ${p}${q} ${JSON.stringify(b)} → ${res.status} ${text}`)
            else if (res.status >= 400 && !/^\{"error":\{"code":"[a-z_]+","message":"/.test(text))
              failures.push(
                `${r.method} ${p}${q} → ${res.status} without the error envelope: ${text.slice(0, 200)}`,
              )
          }
        }
      }
    }
    expect(failures).toEqual([])
  }, 300_000)
  it('answers no live chat visitor call with a 500', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const chat = await createLivechat(s, owner, { attachments: 'files' })
    const visitor = await startVisitor(s, chat.livechat.key)
    // The token works, so the sweep reaches the routes' own checks rather than stopping at 401.
    const fine = await s.fetch(`/v1/livechat/${chat.livechat.key}/conversation`, {
      headers: { authorization: `Bearer ${visitor.token}` },
    })
    expect(fine.status).toBe(200)
    const failures: string[] = []
    const routes = allRoutes().filter((r) => r.access === 'V')
    expect(routes.length).toBeGreaterThan(4)
    for (const r of routes) {
      for (const id of [String(BIG), HUGE, 'abc']) {
        const p = r.path.replace('{key}', chat.livechat.key).replace(/\{[a-z_]+\}/g, id)
        for (const b of bodies) {
          const res = await s.fetch(`${p}?after=${HUGE}&limit=${BIG}`, {
            method: r.method,
            headers: {
              authorization: `Bearer ${visitor.token}`,
              ...(b !== undefined ? { 'content-type': 'application/json' } : {}),
            },
            ...(b !== undefined && r.method !== 'GET' ? { body: JSON.stringify(b) } : {}),
          })
          const text = await res.text()
          if (res.status === 429) failures.push(`${r.method} ${p}: rate limited, the sweep is incomplete`)
          if (res.status >= 500)
            failures.push(`${r.method} ${p} ${JSON.stringify(b)} → ${res.status} ${text}`)
          else if (res.status >= 400 && !/^\{"error":\{"code":"[a-z_]+","message":"/.test(text))
            failures.push(
              `${r.method} ${p} → ${res.status} without the error envelope: ${text.slice(0, 200)}`,
            )
        }
      }
    }
    expect(failures).toEqual([])
  }, 120_000)
})
