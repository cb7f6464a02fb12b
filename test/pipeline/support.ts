import * as C from '../contacts/support'
import * as I from '../inbox/support'
import type * as F from '../support/fixtures'
import type { TestServer } from '../support/server'

/** Pipeline test data through the API (workflows, leads), and people with their teams. */
export const { call, api, session, key, phone } = C
export type { Answer, Who } from '../contacts/support'

/** A Back Office team with these members. */
export const team = (s: TestServer, w: F.Seeded, userIds: readonly number[]) =>
  I.team(s, w, userIds, 'backoffice')

/** A signed-in member with exactly these permissions (not an admin, no view-all). */
export const person = async (s: TestServer, w: F.Seeded, permissions: readonly string[]) => {
  const role = await I.role(s, w, permissions)
  const a = await I.agent(s, w, role)
  return {
    id: a.user.id,
    name: a.user.name,
    email: a.user.email,
    who: C.session(a.session),
    session: a.session,
  }
}

/** A workflow made by `who` (an app session holding pipeline.manage); default stages. */
export const workflow = async (s: TestServer, who: C.Who, body: Record<string, unknown> = {}) => {
  const r = await C.api(s, who).post('/v1/pipelines', {
    name: `Sales ${Math.random().toString(36).slice(2, 7)}`,
    ...body,
  })
  if (r.status !== 201) throw new Error(`workflow: ${r.status} ${JSON.stringify(r.error)}`)
  return r.data as {
    id: number
    stages: Array<{ id: number; kind: string; label: string; probability: number }>
    team_ids: number[]
  }
}

export const stageOf = (p: { stages: Array<{ id: number; kind: string }> }, kind: string, nth = 0) =>
  p.stages.filter((s) => s.kind === kind)[nth]!.id

export const lead = async (s: TestServer, who: C.Who, body: Record<string, unknown>) => {
  const r = await C.api(s, who).post('/v1/leads', { title: 'Deal', ...body })
  if (r.status !== 201) throw new Error(`lead: ${r.status} ${JSON.stringify(r.error)}`)
  return r.data
}

/** Waits (polling) until `check` holds; for work a background loop does, never for timing. */
export const eventually = async <T>(f: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000) => {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = await f()
    if (ok(v)) return v
    if (Date.now() > end) throw new Error(`not reached: ${JSON.stringify(v)}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}
