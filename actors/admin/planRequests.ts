import { Clock, Effect } from 'effect'
import { currentMillis } from '../../engine/clock'
import { RateLimiter } from '../../engine/ratelimit/RateLimiter'
import * as PlanRequests from '../../store/planRequests'
import { rateLimited } from '../errors'
import type { Locale } from '../i18n'

/**
 * Spec 1 §4.5 the Custom plan request: stored, and held back against abuse: 3 a minute and 10 a
 * day per client address, 3 a day per e-mail address.
 */
export const LIMITS = { perMinute: 3, perDayIp: 10, perDayEmail: 3 } as const
const DAY_MS = 86_400_000

const tooMany = (seconds: number) => rateLimited(seconds)

export interface PlanRequest {
  readonly name: string
  readonly email: string
  readonly message: string
  readonly company?: string | undefined
  readonly phone?: string | undefined
  readonly channels?: number | null | undefined
  readonly agents?: number | null | undefined
}

/** Stores a request from `ip` (429 with `Retry-After` past a limit). */
export const submit = (body: PlanRequest, ip: string, locale: Locale) =>
  Effect.gen(function* () {
    const limiter = yield* RateLimiter
    const minute = yield* limiter.hit(`plan-requests:${ip}`, LIMITS.perMinute)
    // The limiter's window is on Effect's clock; the look-back is the domain's.
    if (!minute.allowed) {
      const limiterNow = yield* Clock.currentTimeMillis
      return yield* Effect.fail(tooMany(Math.max(1, Math.ceil((minute.resetAtMs - limiterNow) / 1000))))
    }
    const email = body.email.trim()
    const now = yield* currentMillis
    const r = yield* PlanRequests.recent(ip, email, new Date(now - DAY_MS))
    const blocked =
      r.by_ip >= LIMITS.perDayIp ? r.oldest_ip : r.by_email >= LIMITS.perDayEmail ? r.oldest_email : null
    if (blocked)
      return yield* Effect.fail(tooMany(Math.max(1, Math.ceil((blocked.getTime() + DAY_MS - now) / 1000))))
    return yield* PlanRequests.create({
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
  })
