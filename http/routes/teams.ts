import { SqlClient } from '@effect/sql'
import { Effect, Schema } from 'effect'
import { Timestamp } from '../../actors/admin/presenters'
import { type FieldMessage, invalid, notFound } from '../../actors/errors'
import { Id, IdFromString, Text } from '../../actors/fields'
import { addMessages } from '../../actors/i18n'
import { invalidateCredentials, publishEvent } from '../../engine/events'
import { iso } from '../../engine/time'
import { pgArray } from '../../store/arrays'
import * as Teams from '../../store/teams'
import { created, ok, type Route, route } from '../route'
import { audited, changes } from './auditLogs'

/**
 * Spec 1 §4.2 teams: Frontline and Back Office, type fixed at creation, members replaced as a whole
 * on update; a team that still has members or data can only be deleted into a replacement of the
 * same type, which takes both.
 */

addMessages({
  'teams.last_team': {
    en: 'would leave a member without a team; non-admin roles need at least one',
    id: 'akan membuat anggota tanpa tim; peran non-admin memerlukan setidaknya satu tim',
  },
  'teams.type_fixed': {
    en: 'cannot change after the team is created',
    id: 'tidak dapat diubah setelah tim dibuat',
  },
  'teams.name_taken': { en: 'is already used by another team', id: 'sudah dipakai tim lain' },
  'teams.not_members': { en: 'must be members of this workspace', id: 'harus anggota workspace ini' },
  'teams.replacement_required': {
    en: 'is required: the team still has members or data',
    id: 'wajib diisi: tim masih memiliki anggota atau data',
  },
  'teams.replacement_invalid': {
    en: 'must be another team of the same type',
    id: 'harus tim lain dengan jenis yang sama',
  },
})

const MemberSchema = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  email: Schema.String,
  avatar_url: Schema.NullOr(Schema.String),
})

export const TeamSchema = Schema.Struct({
  id: Schema.Number,
  type: Schema.Literal('frontline', 'backoffice'),
  name: Schema.String,
  description: Schema.String,
  member_ids: Schema.Array(Schema.Number),
  members: Schema.Array(MemberSchema),
  created_at: Timestamp,
})

export const presentTeam = (t: Teams.TeamView): typeof TeamSchema.Type => ({
  id: t.id,
  type: t.type,
  name: t.name,
  description: t.description,
  member_ids: t.members.map((m) => m.id),
  members: t.members,
  created_at: iso(t.created_at)!,
})

const IdParam = Schema.Struct({ id: IdFromString })
const TeamType = Schema.Literal('frontline', 'backoffice')
const UserIds = Schema.Array(Id).pipe(Schema.maxItems(1000))

/** Of the given user ids, those that are not members (active or disabled) of the workspace. */
const strangers = (workspaceId: number, userIds: readonly number[]) =>
  userIds.length === 0
    ? Effect.succeed([] as number[])
    : Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ user_id: number }>`
          SELECT user_id FROM members WHERE workspace_id = ${workspaceId} AND user_id = ANY(${pgArray(userIds)}::int[])`.pipe(
          Effect.map((rows) => {
            const known = new Set(rows.map((r) => r.user_id))
            return userIds.filter((u) => !known.has(u))
          }),
        ),
      )

const validate = (
  workspaceId: number,
  name: string | undefined,
  memberIds: readonly number[] | undefined,
  except: number | null,
) =>
  Effect.gen(function* () {
    const problems: Record<string, FieldMessage> = {}
    if (name !== undefined && (yield* Teams.nameTaken(workspaceId, name, except)))
      problems.name = { key: 'teams.name_taken' }
    if (memberIds !== undefined && (yield* strangers(workspaceId, memberIds)).length > 0)
      problems.member_ids = { key: 'teams.not_members' }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
  })

const teamOr404 = (workspaceId: number, id: number) =>
  Effect.flatMap(Teams.byId(workspaceId, id), (t) => (t ? Effect.succeed(t) : Effect.fail(notFound())))

/** Team membership decides conversation visibility: cached callers go, clients reload. */
const teamsChanged = (workspaceId: number, teamId: number, reason: string) =>
  Effect.all([
    invalidateCredentials({ workspaceId }),
    publishEvent(`ws:${workspaceId}`, 'teams.changed', { team_id: teamId, reason }),
  ])

const unique = (ids: readonly number[]) => [...new Set(ids)]

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/teams',
    access: 'K',
    tag: 'Teams',
    summary: 'Frontline and Back Office teams with their members; filter `type`',
    query: Schema.Struct({ type: Schema.optional(TeamType) }),
    response: Schema.Array(TeamSchema),
    handler: ({ workspace, query }) =>
      Effect.map(Teams.list(workspace.id, query.type), (rows) => ok(rows.map(presentTeam))),
  }),
  route({
    method: 'GET',
    path: '/v1/teams/{id}',
    access: 'K',
    tag: 'Teams',
    summary: 'One team',
    params: IdParam,
    response: TeamSchema,
    handler: ({ workspace, params }) =>
      Effect.map(teamOr404(workspace.id, params.id), (t) => ok(presentTeam(t))),
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
    response: TeamSchema,
    handler: (req) =>
      Effect.gen(function* () {
        const { workspace, body } = req
        const memberIds = unique(body.member_ids)
        yield* validate(workspace.id, body.name, memberIds, null)
        const team = yield* audited(req, Teams.create(workspace.id, { ...body, memberIds }), (t) => ({
          action: 'team.created',
          workspaceId: workspace.id,
          target: t.name,
          details: `${t.type}; members: ${memberIds.length}`,
        }))
        yield* teamsChanged(workspace.id, team.id, 'created')
        return created(presentTeam(yield* teamOr404(workspace.id, team.id)))
      }),
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
    response: TeamSchema,
    handler: (req) =>
      Effect.gen(function* () {
        const { workspace, body, params } = req
        const before = yield* teamOr404(workspace.id, params.id)
        if (body.type !== undefined && body.type !== before.type)
          return yield* Effect.fail(invalid({ type: { key: 'teams.type_fixed' } }))
        const memberIds = body.member_ids === undefined ? undefined : unique(body.member_ids)
        yield* validate(workspace.id, body.name, memberIds, before.id)
        if (memberIds !== undefined) {
          const removed = before.members.map((m) => m.id).filter((id) => !memberIds.includes(id))
          if (
            removed.length > 0 &&
            (yield* Teams.wouldBeTeamless(workspace.id, { userIds: removed, exceptTeamId: before.id }))
              .length > 0
          )
            return yield* Effect.fail(invalid({ member_ids: { key: 'teams.last_team' } }))
        }
        const after = yield* audited(
          req,
          Teams.update(workspace.id, before.id, {
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.description !== undefined ? { description: body.description } : {}),
            ...(memberIds !== undefined ? { memberIds } : {}),
          }).pipe(Effect.zipRight(teamOr404(workspace.id, before.id))),
          (t) => ({
            action: 'team.updated',
            workspaceId: workspace.id,
            target: t.name,
            details: changes([
              ['name', before.name, t.name],
              ['description', before.description, t.description],
              ['members', before.members.map((m) => m.id), t.members.map((m) => m.id)],
            ]),
          }),
        )
        yield* teamsChanged(workspace.id, after.id, 'updated')
        return ok(presentTeam(after))
      }),
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
    handler: (req) =>
      Effect.gen(function* () {
        const { workspace, params, query } = req
        const team = yield* teamOr404(workspace.id, params.id)
        const replacement =
          query.replacement_id === undefined ? null : yield* Teams.byId(workspace.id, query.replacement_id)
        if (
          query.replacement_id !== undefined &&
          (!replacement || replacement.type !== team.type || replacement.id === team.id)
        )
          return yield* Effect.fail(invalid({ replacement_id: { key: 'teams.replacement_invalid' } }))
        if (!replacement && (yield* Teams.inUse(team.id)))
          return yield* Effect.fail(invalid({ replacement_id: { key: 'teams.replacement_required' } }))
        const done = yield* audited(req, Teams.remove(workspace.id, team.id, replacement?.id ?? null), (r) =>
          r
            ? {
                action: 'team.deleted',
                workspaceId: workspace.id,
                target: team.name,
                details: replacement ? `moved to ${replacement.name}` : '',
              }
            : null,
        )
        if (!done) return yield* Effect.fail(notFound())
        yield* teamsChanged(workspace.id, team.id, 'deleted')
        return ok({ id: team.id, deleted: true, replacement_id: replacement?.id ?? null })
      }),
  }),
]
