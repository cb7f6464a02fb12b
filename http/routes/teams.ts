import { Effect, Schema } from 'effect'
import * as Teams from '../../actors/admin/teams'
import { Id, IdFromString, Text } from '../../actors/fields'
import { created, ok, type Route, route } from '../route'

/** Spec 1 §4.2 teams; the rules are in actors/admin/teams.ts. */

const IdParam = Schema.Struct({ id: IdFromString })
const TeamType = Schema.Literal('frontline', 'backoffice')
const UserIds = Schema.Array(Id).pipe(Schema.maxItems(1000))

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/teams',
    access: 'K',
    tag: 'Teams',
    summary: 'Frontline and Back Office teams with their members; filter `type`',
    query: Schema.Struct({ type: Schema.optional(TeamType) }),
    response: Schema.Array(Teams.TeamSchema),
    handler: ({ workspace, query }) => Effect.map(Teams.list(workspace.id, query.type), (rows) => ok(rows)),
  }),
  route({
    method: 'GET',
    path: '/v1/teams/{id}',
    access: 'K',
    tag: 'Teams',
    summary: 'One team',
    params: IdParam,
    response: Teams.TeamSchema,
    handler: ({ workspace, params }) => Effect.map(Teams.get(workspace.id, params.id), (t) => ok(t)),
  }),
  route({
    method: 'POST',
    path: '/v1/teams',
    access: 'A',
    permission: 'settings.members',
    tag: 'Teams',
    summary: 'Create a team (`type` frontline or backoffice, fixed from now on)',
    body: Schema.Struct({
      name: Text(1, 100),
      type: TeamType,
      description: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(500)), { default: () => '' }),
      member_ids: Schema.optionalWith(UserIds, { default: () => [] }),
    }),
    response: Teams.TeamSchema,
    handler: (req) => Effect.map(Teams.create(req, req.body), (t) => created(t)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/teams/{id}',
    access: 'A',
    permission: 'settings.members',
    tag: 'Teams',
    summary:
      'Rename, describe, or replace the member list (`member_ids` is the full list); type cannot change',
    params: IdParam,
    body: Schema.Struct({
      name: Schema.optional(Text(1, 100)),
      description: Schema.optional(Schema.String.pipe(Schema.maxLength(500))),
      member_ids: Schema.optional(UserIds),
      type: Schema.optional(TeamType),
    }),
    response: Teams.TeamSchema,
    handler: (req) => Effect.map(Teams.update(req, req.params.id, req.body), (t) => ok(t)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/teams/{id}',
    access: 'A',
    permission: 'settings.members',
    tag: 'Teams',
    summary: 'Delete a team; with members or data left, `replacement_id` (same type) takes them over',
    params: IdParam,
    query: Schema.Struct({
      replacement_id: Schema.optional(IdFromString),
    }),
    handler: (req) => Effect.map(Teams.remove(req, req.params.id, req.query.replacement_id), (r) => ok(r)),
  }),
]
