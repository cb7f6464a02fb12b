import { Effect, Schema } from 'effect'
import * as ApiKeys from '../../actors/admin/apiKeys'
import { IdFromString, Text } from '../../actors/fields'
import { created, ok, type Route, route } from '../route'

/** Spec 1 §4.2 API keys and §5 rules 1–3; the rules are in actors/admin/apiKeys.ts. */

const Id = Schema.Struct({ id: IdFromString })

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/api-keys',
    access: 'A',
    permission: 'settings.api',
    tag: 'API keys',
    summary: 'Active keys, without their secret values',
    response: Schema.Array(ApiKeys.KeySchema),
    handler: ({ workspace }) => Effect.map(ApiKeys.list(workspace.id), ({ keys, meta }) => ok(keys, meta)),
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
    response: Schema.extend(ApiKeys.KeySchema, Schema.Struct({ key: Schema.String })),
    handler: (req) => Effect.map(ApiKeys.create(req, req.body.name, req.body.scope), (k) => created(k)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/api-keys/{id}',
    access: 'A',
    permission: 'settings.api',
    tag: 'API keys',
    summary: 'Revoke a key; later requests with it get 401',
    params: Id,
    handler: (req) => Effect.as(ApiKeys.revoke(req, req.params.id), ok({ id: req.params.id, revoked: true })),
  }),
]
