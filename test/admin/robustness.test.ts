import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { allRoutes } from '../../http/app'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * Bad input is a 4xx, never a 500: every administration endpoint is called with ids beyond what
 * the database can hold, ids of nothing, and wrong types, in the body, path and query.
 */
let s: TestServer
beforeAll(async () => {
  s = await startTestServer()
})
afterAll(() => s?.stop())

const ADMIN =
  /^\/v1\/(me|workspace|workspaces|members|invitations|roles|permissions|teams|audit-logs|api-keys|billing|settings|dashboard|notifications|plan-requests|public|invite|payments)\b/
const BIG = 99_999_999_999
const bodies = [
  undefined,
  {},
  {
    id: BIG,
    to_user_id: BIG,
    role_id: BIG,
    workspace_id: BIG,
    team_ids: [BIG],
    member_ids: [BIG],
    channel_ids: [BIG],
    stay: true,
    stay_role_id: BIG,
    email: 'a@b.example',
    name: 'xx',
    confirm_name: 'x',
    type: 'frontline',
    scope: 'read',
    permissions: [],
  },
  { id: 'x', role_id: [], team_ids: 'x', name: 5, business_hours: { days: 'x' }, months: 'x' },
]
const query = `?replacement_id=${BIG}&user=${BIG}&page=${BIG}&per_page=100&from=2020-13-45&invoice=INV-202611-${BIG}&type=frontline`

describe('robustness', () => {
  it('answers no administration call with a 500', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const failures: string[] = []
    for (const r of allRoutes().filter((x) => ADMIN.test(x.path))) {
      for (const id of [String(BIG), '1', 'abc']) {
        const p = r.path.replace('{number}', `INV-202611-${BIG}`).replace(/\{[a-z_]+\}/g, id)
        for (const b of bodies) {
          for (const q of ['', query]) {
            const res = await s.fetch(p + q, {
              method: r.method,
              headers: owner.headers(b ? { 'content-type': 'application/json' } : {}),
              ...(b && r.method !== 'GET' ? { body: JSON.stringify(b) } : {}),
            })
            if (res.status >= 500)
              failures.push(`${r.method} ${p}${q} ${JSON.stringify(b)} → ${res.status} ${await res.text()}`)
          }
        }
      }
    }
    expect(failures).toEqual([])
  }, 120_000)
})
