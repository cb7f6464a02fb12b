import { Effect, Schema } from 'effect'
import { reply } from '../answer'
import type { ApiError } from '../errors'
import { invalid } from '../errors'
import { BigId, Id, IsoDateTime } from '../fields'
import { addMessages, type Locale, t } from '../i18n'
import type { Ctx } from './access'
import { Money, move, update } from './leads'

/**
 * `POST /leads/bulk` (spec 2 §4.7, §8: at most 100 leads): `move` (with the move rules of §3),
 * `assign` (owner and/or team) and `followup` (set or clear). Each lead goes through the very
 * operation a single change uses (`move` / `update` of leads.ts): the lead rule (a lead the caller
 * may not see is refused `not_found`, never skipped silently), the checks, and the lead's row lock,
 * so a bulk move racing a single move is decided on the row as the other left it. One result per
 * id, in the order given; a lead named twice is done once.
 */
addMessages({
  'leads.bulk_max': { en: 'may name at most {max} leads', id: 'paling banyak {max} prospek' },
})

export const BULK_MAX = 100

export const BulkBody = Schema.Struct({
  action: Schema.Literal('move', 'assign', 'followup'),
  lead_ids: Schema.Array(BigId).pipe(Schema.minItems(1)),
  stage_id: Schema.optional(Id),
  value_won: Schema.optional(Money),
  lost_reason: Schema.optional(Schema.String.pipe(Schema.maxLength(100))),
  lost_note: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(2000)))),
  assignee_id: Schema.optional(Schema.NullOr(Id)),
  team_id: Schema.optional(Schema.NullOr(Id)),
  followup_at: Schema.optional(Schema.NullOr(IsoDateTime)),
  followup_note: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(1000)))),
})

export interface BulkResult {
  readonly id: number
  readonly ok: boolean
  /** Out of the caller's sight after the change (`{id, visible: false}` of a single write). */
  readonly visible?: boolean
  readonly error?: {
    readonly code: string
    readonly message: string
    readonly fields?: Record<string, string>
  }
}

const failure = (id: number, e: ApiError, locale: Locale): BulkResult => ({
  id,
  ok: false,
  error: {
    code: e.code,
    message: t(locale, e.message || e.code, e.params),
    ...(e.fields
      ? {
          fields: Object.fromEntries(
            Object.entries(e.fields).map(([k, v]) => [k, t(locale, v.key, v.params)]),
          ),
        }
      : {}),
  },
})

export const bulk = (ctx: Ctx, body: typeof BulkBody.Type, locale: Locale) =>
  Effect.gen(function* () {
    const ids = [...new Set(body.lead_ids)]
    if (ids.length > BULK_MAX)
      return yield* Effect.fail(invalid({ lead_ids: { key: 'leads.bulk_max', params: { max: BULK_MAX } } }))
    // What the action needs, checked once before any lead is touched.
    if (body.action === 'move' && body.stage_id === undefined)
      return yield* Effect.fail(invalid({ stage_id: { key: 'field.required' } }))
    if (body.action === 'assign' && body.assignee_id === undefined && body.team_id === undefined)
      return yield* Effect.fail(invalid({ assignee_id: { key: 'field.required' } }))
    if (body.action === 'followup' && body.followup_at === undefined)
      return yield* Effect.fail(invalid({ followup_at: { key: 'field.required' } }))
    const one = (id: number) => {
      const op =
        body.action === 'move'
          ? move(
              ctx,
              { id },
              {
                stage_id: body.stage_id!,
                ...(body.value_won !== undefined ? { value_won: body.value_won } : {}),
                ...(body.lost_reason !== undefined ? { lost_reason: body.lost_reason } : {}),
                ...(body.lost_note !== undefined ? { lost_note: body.lost_note } : {}),
              },
            )
          : body.action === 'assign'
            ? update(
                ctx,
                { id },
                {
                  ...(body.assignee_id !== undefined ? { assignee_id: body.assignee_id } : {}),
                  ...(body.team_id !== undefined ? { team_id: body.team_id } : {}),
                },
              )
            : update(
                ctx,
                { id },
                {
                  followup_at: body.followup_at ?? null,
                  ...(body.followup_note !== undefined ? { followup_note: body.followup_note } : {}),
                },
              )
      return op.pipe(
        Effect.map(
          (a): BulkResult => ({ id, ok: true, visible: !('visible' in a.data && a.data.visible === false) }),
        ),
        Effect.catchTag('ApiError', (e) => Effect.succeed(failure(id, e, locale))),
      )
    }
    const results = yield* Effect.forEach(ids, one)
    const done = results.filter((r) => r.ok).length
    return reply(results, { done, failed: results.length - done })
  })
