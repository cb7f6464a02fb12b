import { Effect, Schema } from 'effect'
import { presentWorkspace, WorkspaceSchema } from '../../actors/admin/presenters'
import * as Setup from '../../actors/admin/setup'
import { Email, Text, TimeZone } from '../../actors/fields'
import { currentTime } from '../../engine/clock'
import { sameSiteJson } from '../auth'
import { created, ok, type Route, route } from '../route'
import { deviceOf, startSession } from '../signIn'

/**
 * The first run in the browser: the link `npm start` logs on an unclaimed install opens the app's
 * page, which checks the token and claims the install (actors/admin/setup.ts).
 */

const Token = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))

const ClaimedSchema = Schema.Struct({
  workspace: WorkspaceSchema,
  user: Schema.Struct({ id: Schema.Number, name: Schema.String, email: Schema.String }),
  /** Where the app goes now, signed in. */
  redirect_to: Schema.String,
})

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/setup/{token}',
    access: 'P',
    tag: 'Public',
    summary: 'Whether a first-run setup link still works (404 setup_token_invalid, 410 setup_done)',
    params: Schema.Struct({ token: Schema.String }),
    response: Schema.Struct({ valid: Schema.Literal(true) }),
    handler: ({ params }) => Effect.map(Setup.check(params.token), (r) => ok(r)),
  }),
  route({
    method: 'POST',
    path: '/v1/setup',
    access: 'P',
    tag: 'Public',
    summary:
      'Claim a new install with its setup token: creates the first workspace and its owner, signs them in (session cookies)',
    body: Schema.Struct({
      token: Token,
      workspace_name: Text(2, 120),
      name: Text(2, 120),
      email: Email,
      locale: Schema.optional(Schema.Literal('en', 'id')),
      timezone: Schema.optional(TimeZone.pipe(Schema.minLength(1))),
    }),
    response: ClaimedSchema,
    handler: ({ body, ip, header, cookie }) =>
      Effect.gen(function* () {
        yield* sameSiteJson(header)
        const { workspace, user } = yield* Setup.claim(body, ip())
        const cookies = yield* startSession(user.id, 'link', { cookie, device: deviceOf(ip(), header) })
        return {
          ...created({
            workspace: presentWorkspace(workspace, yield* currentTime),
            user: { id: user.id, name: user.name, email: user.email },
            redirect_to: '/app',
          } satisfies typeof ClaimedSchema.Type),
          cookies,
        }
      }),
  }),
]
