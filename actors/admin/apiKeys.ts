import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import { iso } from '../../engine/time'
import * as ApiKeys from '../../store/apiKeys'
import * as Audit from '../../store/audit'
import { isPaidActive } from '../../store/plans'
import { ApiError, notFound } from '../errors'
import { addMessages } from '../i18n'
import { audited } from './audit'
import type { InWorkspace } from './caller'

/** Spec 1 §4.2 API keys and §5 rules 1–3: Pro, at most 10 active, secret shown once. */

addMessages({
  'api_keys.limit': {
    en: 'A workspace can have at most 10 active API keys; revoke one first.',
    id: 'Satu workspace paling banyak memiliki 10 kunci API aktif; cabut salah satunya dulu.',
  },
})

export const KeySchema = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  scope: Schema.Literal('read', 'write'),
  prefix: Schema.String,
  last_used_at: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  created_by: Schema.Struct({ id: Schema.Number, name: Schema.String }),
})

const present = (k: ApiKeys.ApiKeyRow, creatorName: string): typeof KeySchema.Type => ({
  id: k.id,
  name: k.name,
  scope: k.scope,
  prefix: k.prefix,
  last_used_at: iso(k.last_used_at),
  created_at: iso(k.created_at)!,
  created_by: { id: k.created_by, name: creatorName },
})

/** The active keys, and `meta`: how many against the limit. */
export const list = (workspaceId: number) =>
  Effect.map(ApiKeys.listActive(workspaceId), (rows) => ({
    keys: rows.map((r) => present(r, r.creator_name)),
    meta: { active: rows.length, limit: ApiKeys.MAX_ACTIVE_KEYS },
  }))

/** A new key (Pro or Custom only, within the limit); its secret is in this answer only. */
export const create = (ctx: InWorkspace, name: string, scope: ApiKeys.Scope) =>
  Effect.gen(function* () {
    const { workspace, caller } = ctx
    if (!isPaidActive(workspace, yield* currentTime))
      return yield* Effect.fail(new ApiError({ code: 'plan_required' }))
    const made = yield* audited(
      ctx,
      ApiKeys.createWithinLimit(workspace.id, caller.user.id, name.trim(), scope),
      (m) =>
        m
          ? {
              action: 'api_key.created',
              workspaceId: workspace.id,
              target: m.row.name,
              details: `scope: ${m.row.scope}; prefix: ${m.row.prefix}`,
            }
          : null,
    )
    if (!made) return yield* Effect.fail(new ApiError({ code: 'conflict', message: 'api_keys.limit' }))
    return { ...present(made.row, caller.user.name), key: made.key }
  })

export const revoke = (ctx: InWorkspace, id: number) =>
  Effect.gen(function* () {
    const { workspace, caller } = ctx
    const key = (yield* ApiKeys.listActive(workspace.id)).find((k) => k.id === id)
    // Revoked (and dropped from every node's cache) on its own commit, then logged: the
    // revocation must not wait on, or roll back with, the log entry.
    if (!key || !(yield* ApiKeys.revoke(workspace.id, id))) return yield* Effect.fail(notFound())
    yield* Audit.record({
      workspaceId: workspace.id,
      userId: caller.user.id,
      action: 'api_key.revoked',
      ip: ctx.ip(),
      target: key.name,
      details: `prefix: ${key.prefix}`,
    })
  })
