import { Effect, Schema } from 'effect'
import { ApiError, notFound } from '../../actors/errors'
import { IdFromString, Text } from '../../actors/fields'
import { addMessages } from '../../actors/i18n'
import { iso } from '../../engine/time'
import * as ApiKeys from '../../store/apiKeys'
import * as Audit from '../../store/audit'
import { isPaidActive } from '../../store/plans'
import { created, ok, type Route, route } from '../route'
import { audited } from './auditLogs'

/** Spec 1 §4.2 API keys and §5 rules 1–3: Pro, `settings.api`, at most 10 active, secret shown once. */

addMessages({
  'api_keys.limit': {
    en: 'A workspace can have at most 10 active API keys; revoke one first.',
    id: 'Satu workspace paling banyak memiliki 10 kunci API aktif; cabut salah satunya dulu.',
  },
})

const KeySchema = Schema.Struct({
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

const Id = Schema.Struct({ id: IdFromString })

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/api-keys',
    access: 'A',
    permission: 'settings.api',
    tag: 'API keys',
    summary: 'Active keys, without their secret values',
    response: Schema.Array(KeySchema),
    handler: ({ workspace }) =>
      Effect.map(ApiKeys.listActive(workspace.id), (rows) =>
        ok(
          rows.map((r) => present(r, r.creator_name)),
          { active: rows.length, limit: ApiKeys.MAX_ACTIVE_KEYS },
        ),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/api-keys',
    access: 'A',
    permission: 'settings.api',
    tag: 'API keys',
    summary: 'Create a key; its full value is returned in this response only',
    body: Schema.Struct({
      name: Text(1, 100),
      scope: Schema.Literal('read', 'write'),
    }),
    response: Schema.extend(KeySchema, Schema.Struct({ key: Schema.String })),
    handler: (req) =>
      Effect.gen(function* () {
        const { workspace, caller, body } = req
        if (!isPaidActive(workspace, new Date()))
          return yield* Effect.fail(new ApiError({ code: 'plan_required' }))
        const made = yield* audited(
          req,
          ApiKeys.createWithinLimit(workspace.id, caller.user.id, body.name.trim(), body.scope),
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
        return created({ ...present(made.row, caller.user.name), key: made.key })
      }),
  }),
  route({
    method: 'DELETE',
    path: '/v1/api-keys/{id}',
    access: 'A',
    permission: 'settings.api',
    tag: 'API keys',
    summary: 'Revoke a key; later requests with it get 401',
    params: Id,
    handler: ({ workspace, params, caller, ip }) =>
      Effect.gen(function* () {
        const key = (yield* ApiKeys.listActive(workspace.id)).find((k) => k.id === params.id)
        // Revoked (and dropped from every node's cache) on its own commit, then logged: the
        // revocation must not wait on, or roll back with, the log entry.
        if (!key || !(yield* ApiKeys.revoke(workspace.id, params.id))) return yield* Effect.fail(notFound())
        yield* Audit.record({
          workspaceId: workspace.id,
          userId: caller.user.id,
          action: 'api_key.revoked',
          ip,
          target: key.name,
          details: `prefix: ${key.prefix}`,
        })
        return ok({ id: params.id, revoked: true })
      }),
  }),
]
