import { Effect } from 'effect'
import * as ApiKeys from '../../store/apiKeys'
import * as Members from '../../store/members'
import type { Plan } from '../../store/plans'
import * as Sessions from '../../store/sessions'
import * as Users from '../../store/users'
import * as Workspaces from '../../store/workspaces'
import type { TestServer } from './server'

/**
 * Test data made through the same store functions the operator CLI uses (there is no public
 * endpoint to create a workspace from nothing), and sign-in through the public link endpoint.
 */
let seq = 0
const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}`

export interface Seeded {
  readonly workspaceId: number
  readonly ownerId: number
  readonly ownerEmail: string
}

export const workspace = (s: TestServer, opts: { plan?: Plan; proUntil?: Date | null; name?: string } = {}) =>
  s.run(
    Effect.map(
      Workspaces.create({
        name: opts.name ?? `Acme ${unique()}`,
        timezone: 'Asia/Jakarta',
        plan: opts.plan ?? 'pro',
        proUntil: opts.proUntil ?? null,
        owner: { email: `owner-${unique()}@example.com`, name: 'Olivia Owner' },
      }),
      ({ workspace, user }): Seeded => ({
        workspaceId: workspace.id,
        ownerId: user.id,
        ownerEmail: user.email,
      }),
    ),
  )

export const apiKey = (s: TestServer, w: Seeded, scope: ApiKeys.Scope = 'write') =>
  s.run(Effect.map(ApiKeys.create(w.workspaceId, w.ownerId, `key ${unique()}`, scope), (r) => r.key))

export const member = (s: TestServer, w: Seeded, role = 'Agent') =>
  s.run(
    Effect.gen(function* () {
      const user = yield* Users.ensure(`agent-${unique()}@example.com`, 'Andi Agent')
      yield* Members.addWithRole(w.workspaceId, user.id, role)
      yield* Users.setActiveWorkspace(user.id, w.workspaceId)
      return user
    }),
  )

export interface Session {
  readonly cookie: string
  readonly csrf: string
  readonly headers: (extra?: Record<string, string>) => Record<string, string>
}

const cookieValue = (setCookies: readonly string[], name: string) => {
  for (const c of setCookies) {
    const m = new RegExp(`^${name}=([^;]*)`).exec(c)
    if (m) return m[1]!
  }
  throw new Error(`no ${name} cookie in ${JSON.stringify(setCookies)}`)
}

/**
 * Signs a user in with a one-time link as its page's button does (`POST /auth/link/{token}`, a
 * JSON body) and returns the cookie and CSRF token.
 */
export const signIn = async (s: TestServer, email: string): Promise<Session> => {
  const token = await s.run(
    Effect.gen(function* () {
      const user = yield* Users.byEmail(email)
      return yield* Sessions.createLoginLink(user!.id, 5)
    }),
  )
  const res = await s.fetch(`/auth/link/${token}`, json({}))
  if (res.status !== 200) throw new Error(`sign-in link answered ${res.status}: ${await res.text()}`)
  const set = res.headers.getSetCookie()
  const session = cookieValue(set, 'kotak_session')
  const csrf = cookieValue(set, 'kotak_csrf')
  const cookie = `kotak_session=${session}; kotak_csrf=${csrf}`
  return { cookie, csrf, headers: (extra = {}) => ({ cookie, 'x-csrf-token': csrf, ...extra }) }
}

export const bearer = (key: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${key}`,
  ...extra,
})

export const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
})
