import { Effect, Schema } from 'effect'
import { invalid } from '../../actors/errors'
import { systemTime } from '../../engine/clock'
import { DateParam, TypeParam } from '../query'
import { envelope, keyRoute } from '../route'
import * as Summary from '../store/summary'
import { addDays, dayOf, endOfDay, startOfDay } from '../time'

/** Spec 3 §4: `GET /api/v1/reports/summary`. Formulas: store/summary.ts and docs/decisions-social.md. */

const Query = Schema.Struct({
  from: Schema.optional(DateParam),
  to: Schema.optional(DateParam),
  channel: Schema.optional(Schema.String),
  type: Schema.optional(TypeParam),
})

/** Default range: the last 7 days, today included (Asia/Jakarta). */
export const DEFAULT_DAYS = 7

/** `1,2,3` → [1, 2, 3] (duplicates dropped, order kept); null when something is not an id. */
const channelsOf = (raw: string): number[] | null => {
  const parts = raw.split(',').map((p) => p.trim())
  if (parts.some((p) => !/^[1-9]\d{0,9}$/.test(p) || Number(p) > 2_147_483_647)) return null
  return [...new Set(parts.map(Number))]
}

export const routes = [
  keyRoute({
    method: 'GET',
    path: '/api/v1/reports/summary',
    query: Query,
    handler: (req) =>
      Effect.gen(function* () {
        const q = req.query
        const today = dayOf(yield* systemTime)
        const to = q.to ?? (q.from && q.from > today ? q.from : today)
        const from = q.from ?? addDays(to, -(DEFAULT_DAYS - 1))
        if (to < from) return yield* Effect.fail(invalid({ to: { key: 'social.field.date_order' } }))
        const channels = q.channel === undefined ? null : channelsOf(q.channel)
        if (channels === null && q.channel !== undefined) {
          return yield* Effect.fail(invalid({ channel: { key: 'social.field.channels' } }))
        }
        const type = q.type ?? null
        const s = yield* Summary.summary(req.workspaceId, {
          from: startOfDay(from),
          to: endOfDay(to),
          channels,
          type,
        })
        return envelope(
          {
            conversations: s.conversations,
            messages_in: s.messages_in,
            replies_sent: s.replies_sent,
            replied: s.replied,
            backlog: s.backlog,
            solved: s.solved,
            closed: s.closed,
            escalated: s.escalated,
            reopened: s.reopened,
            response_rate: s.response_rate,
            solved_rate: s.solved_rate,
            escalation_rate: s.escalation_rate,
            reopen_rate: s.reopen_rate,
            avg_frt_seconds: s.avg_frt_seconds,
            median_frt_seconds: s.median_frt_seconds,
            avg_resolution_seconds: s.avg_resolution_seconds,
            median_resolution_seconds: s.median_resolution_seconds,
            tickets: {
              total: s.tickets_total,
              open: s.tickets_open,
              done: s.tickets_done,
              avg_resolve_seconds: s.tickets_avg_resolve_seconds,
            },
          },
          {},
          { filters: { from, to, channels, type } },
        )
      }),
  }),
]
