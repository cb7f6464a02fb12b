import { Clock, Effect, Schema } from 'effect'
import { Config } from '../../engine/config'
import { iso } from '../../engine/time'
import { SigningKey } from '../../engine/tokens'
import { REALTIME_PATH } from '../realtime/gateway'
import { sign, TOKEN_TTL_SECONDS } from '../realtime/token'
import { ok, type Route, route } from '../route'

/** Spec 1 §4.1 `POST /realtime/token` and §6: a short-lived token to open the WebSocket. */
const Channel = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))

export const routes: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/realtime/token',
    access: 'A',
    whileFrozen: true,
    tag: 'Real-time',
    summary: 'A WebSocket token valid for 60 seconds; optional channels are subscribed on connect',
    body: Schema.Struct({ channels: Schema.optional(Schema.Array(Channel).pipe(Schema.maxItems(50))) }),
    response: Schema.Struct({ token: Schema.String, expires_at: Schema.String, url: Schema.String }),
    handler: ({ caller, workspace, body }) =>
      Effect.gen(function* () {
        const cfg = yield* Config
        const key = yield* SigningKey
        // Verified on the process clock (realtime/token), which Effect's Clock reads.
        const exp = Math.floor((yield* Clock.currentTimeMillis) / 1000) + TOKEN_TTL_SECONDS
        const token = sign(key, {
          u: caller.user.id,
          w: workspace.id,
          exp,
          ch: body.channels ?? [],
          ...(caller.via === 'session' ? { s: caller.session.id } : {}),
        })
        const base = cfg.publicUrl.replace(/^http/, 'ws')
        return ok({
          token,
          expires_at: iso(new Date(exp * 1000)),
          url: `${base}${REALTIME_PATH}?token=${token}`,
        })
      }),
  }),
]
