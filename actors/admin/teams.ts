import { Effect, Schema } from 'effect'
import { invalidateCredentials } from '../../engine/events'
import { iso } from '../../engine/time'
import * as Members from '../../store/members'
import * as Teams from '../../store/teams'
import { type FieldMessage, invalid, notFound } from '../errors'
import { publish, topics } from '../events'
import { addMessages } from '../i18n'
import { audited, changes } from './audit'
import type { InWorkspace } from './caller'
import { Timestamp } from './presenters'

/**
 * Spec 1 §4.2 teams: Frontline and Back Office, type fixed at creation, members replaced as a whole
 * on update (never taking a non-admin member's last team); a team that still has members or data
 * can only be deleted into a replacement of the same type, which takes both.
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
    if (memberIds !== undefined && (yield* Members.strangers(workspaceId, memberIds)).length > 0)
      problems.member_ids = { key: 'teams.not_members' }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
  })

const teamOr404 = (workspaceId: number, id: number) =>
  Effect.flatMap(Teams.byId(workspaceId, id), (t) => (t ? Effect.succeed(t) : Effect.fail(notFound())))

/** Team membership decides conversation visibility: cached callers go, clients reload. */
const teamsChanged = (workspaceId: number, teamId: number, reason: string) =>
  Effect.all([
    invalidateCredentials({ workspaceId }),
    publish(topics.workspace(workspaceId), 'teams.changed', { team_id: teamId, reason }),
  ])

const unique = (ids: readonly number[]) => [...new Set(ids)]

export const list = (workspaceId: number, type: Teams.TeamType | undefined) =>
  Effect.map(Teams.list(workspaceId, type), (rows) => rows.map(presentTeam))

export const get = (workspaceId: number, id: number) => Effect.map(teamOr404(workspaceId, id), presentTeam)

export interface NewTeam {
  readonly name: string
  readonly type: Teams.TeamType
  readonly description: string
  readonly member_ids: readonly number[]
}

export const create = (ctx: InWorkspace, body: NewTeam) =>
  Effect.gen(function* () {
    const { workspace } = ctx
    const memberIds = unique(body.member_ids)
    yield* validate(workspace.id, body.name, memberIds, null)
    const team = yield* audited(ctx, Teams.create(workspace.id, { ...body, memberIds }), (t) => ({
      action: 'team.created',
      workspaceId: workspace.id,
      target: t.name,
      details: `${t.type}; members: ${memberIds.length}`,
    }))
    yield* teamsChanged(workspace.id, team.id, 'created')
    return presentTeam(yield* teamOr404(workspace.id, team.id))
  })

export interface TeamPatch {
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly member_ids?: readonly number[] | undefined
  readonly type?: Teams.TeamType | undefined
}

export const update = (ctx: InWorkspace, id: number, body: TeamPatch) =>
  Effect.gen(function* () {
    const { workspace } = ctx
    const before = yield* teamOr404(workspace.id, id)
    if (body.type !== undefined && body.type !== before.type)
      return yield* Effect.fail(invalid({ type: { key: 'teams.type_fixed' } }))
    const memberIds = body.member_ids === undefined ? undefined : unique(body.member_ids)
    yield* validate(workspace.id, body.name, memberIds, before.id)
    if (memberIds !== undefined) {
      const removed = before.members.map((m) => m.id).filter((id) => !memberIds.includes(id))
      if (
        removed.length > 0 &&
        (yield* Teams.wouldBeTeamless(workspace.id, { userIds: removed, exceptTeamId: before.id })).length > 0
      )
        return yield* Effect.fail(invalid({ member_ids: { key: 'teams.last_team' } }))
    }
    const after = yield* audited(
      ctx,
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
    return presentTeam(after)
  })

/** Deletes a team; one with members or data left goes into `replacementId` (same type). */
export const remove = (ctx: InWorkspace, id: number, replacementId: number | undefined) =>
  Effect.gen(function* () {
    const { workspace } = ctx
    const team = yield* teamOr404(workspace.id, id)
    const replacement = replacementId === undefined ? null : yield* Teams.byId(workspace.id, replacementId)
    if (
      replacementId !== undefined &&
      (!replacement || replacement.type !== team.type || replacement.id === team.id)
    )
      return yield* Effect.fail(invalid({ replacement_id: { key: 'teams.replacement_invalid' } }))
    if (!replacement && (yield* Teams.inUse(team.id)))
      return yield* Effect.fail(invalid({ replacement_id: { key: 'teams.replacement_required' } }))
    const done = yield* audited(ctx, Teams.remove(workspace.id, team.id, replacement?.id ?? null), (r) =>
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
    return { id: team.id, deleted: true, replacement_id: replacement?.id ?? null }
  })
