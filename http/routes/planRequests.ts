import { Effect, Schema } from 'effect'
import { ApiError } from '../../actors/errors'
import { Text } from '../../actors/fields'
import { Config } from '../../engine/config'
import { RateLimiter } from '../../engine/ratelimit/RateLimiter'
import { iso } from '../../engine/time'
import * as PlanRequests from '../../store/planRequests'
import { created, ok, type Route, route } from '../route'
import { Email } from './invitations'

/**
 * Spec 1 §4.5 public endpoints of administration: the Custom plan request (validated, stored, and
 * held back against abuse: 3 a minute and 10 a day per client address, 3 a day per e-mail
 * address) and the demo page's live chat key.
 */
export const LIMITS = { perMinute: 3, perDayIp: 10, perDayEmail: 3 } as const
const DAY_MS = 86_400_000

const tooMany = (seconds: number) =>
  new ApiError({
    code: 'rate_limited',
    params: { seconds },
    headers: { 'Retry-After': String(seconds) },
  })

const Count = Schema.optional(Schema.NullOr(Schema.Number.pipe(Schema.int(), Schema.between(0, 100_000))))

export const routes: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/plan-requests',
    access: 'P',
    tag: 'Public',
    summary: 'Ask for a Custom plan: name, email, message, optional company, phone, channels, agents',
    body: Schema.Struct({
      name: Text(2, 120),
      email: Email,
      message: Text(10, 5000),
      company: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
      phone: Schema.optional(
        Schema.String.pipe(
          Schema.filter((s) => s.trim() === '' || /^\+?[0-9 ()-]{6,25}$/.test(s.trim()), {
            jsonSchema: { pattern: '^\\+?[0-9 ()-]{6,25}$' },
          }),
        ),
      ),
      channels: Count,
      agents: Count,
    }),
    response: Schema.Struct({ id: Schema.Number, received_at: Schema.String }),
    handler: ({ body, ip, locale }) =>
      Effect.gen(function* () {
        const limiter = yield* RateLimiter
        const minute = yield* limiter.hit(`plan-requests:${ip}`, LIMITS.perMinute)
        if (!minute.allowed)
          return yield* Effect.fail(tooMany(Math.max(1, Math.ceil((minute.resetAtMs - Date.now()) / 1000))))
        const email = body.email.trim()
        const now = Date.now()
        const r = yield* PlanRequests.recent(ip, email, new Date(now - DAY_MS))
        const blocked =
          r.by_ip >= LIMITS.perDayIp ? r.oldest_ip : r.by_email >= LIMITS.perDayEmail ? r.oldest_email : null
        if (blocked)
          return yield* Effect.fail(
            tooMany(Math.max(1, Math.ceil((blocked.getTime() + DAY_MS - now) / 1000))),
          )
        const row = yield* PlanRequests.create({
          name: body.name.trim(),
          email,
          company: body.company?.trim() ?? '',
          phone: body.phone?.trim() ?? '',
          message: body.message.trim(),
          channels: body.channels ?? null,
          agents: body.agents ?? null,
          locale,
          ip,
        })
        return created({ id: row.id, received_at: iso(row.created_at)! })
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/public/demo-livechat',
    access: 'P',
    tag: 'Public',
    summary: 'Key of a sample live chat for a demo page; null when none is set up',
    response: Schema.Struct({ key: Schema.NullOr(Schema.String) }),
    handler: () => Effect.map(Config, (cfg) => ok({ key: cfg.demoLivechatKey ?? null })),
  }),
]
