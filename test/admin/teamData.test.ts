import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/** A team that still has data (conversations) but no members is deleted only into a replacement. */
let s: TestServer
beforeAll(async () => {
  s = await startTestServer()
})
afterAll(() => s?.stop())

describe('deleting a team with data', () => {
  it('needs replacement_id (422 with fields), then moves the conversations there; teams.changed', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const h = owner.headers()
    const old = (await I.body(await s.fetch('/v1/teams', F.json({ name: 'Old', type: 'frontline' }, h)))).data
    const next = (await I.body(await s.fetch('/v1/teams', F.json({ name: 'Next', type: 'frontline' }, h))))
      .data
    const ch = await I.channel(s, w, 'api')
    const conv = await I.conversation(s, w, { channelId: ch.id, teamId: old.id })
    const roles = (await I.body(await s.fetch('/v1/roles', { headers: h }))).data
    const agentRole = roles.find((r: any) => r.name === 'Agent')
    const inv = (
      await I.body(
        await s.fetch(
          '/v1/invitations',
          F.json(
            { email: `team-${Date.now()}@example.com`, role_id: agentRole.id, team_ids: [old.id, next.id] },
            h,
          ),
        ),
      )
    ).data
    expect(old.member_ids).toEqual([])

    const refused = await s.fetch(`/v1/teams/${old.id}`, I.del(h))
    expect(refused.status).toBe(422)
    expect((await I.body(refused)).error.fields).toHaveProperty('replacement_id')
    const sameTeam = await s.fetch(`/v1/teams/${old.id}?replacement_id=${old.id}`, I.del(h))
    expect(sameTeam.status).toBe(422)

    const { c } = await I.socketFor(s, owner, `ws:${w.workspaceId}`)
    expect((await s.fetch(`/v1/teams/${old.id}?replacement_id=${next.id}`, I.del(h))).status).toBe(200)
    expect(await c.next((f) => f.event === 'teams.changed')).toBeTruthy()
    c.close()
    const [row] = await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (db) => db<{ team_id: number }>`SELECT team_id FROM conversations WHERE id = ${conv.id}`,
      ),
    )
    expect(row!.team_id).toBe(next.id)
    // The open invitation now names the replacement once.
    const open = (await I.body(await s.fetch('/v1/invitations', { headers: h }))).data
    expect(open.find((x: any) => x.id === inv.id).team_ids).toEqual([next.id])
    expect((await s.fetch(`/v1/teams/${old.id}`, { headers: h })).status).toBe(404)
    // An empty team with nothing left goes without a replacement.
    const empty = (await I.body(await s.fetch('/v1/teams', F.json({ name: 'Empty', type: 'backoffice' }, h))))
      .data
    expect((await s.fetch(`/v1/teams/${empty.id}`, I.del(h))).status).toBe(200)
  })
})
