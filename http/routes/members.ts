import { SqlClient } from '@effect/sql'
import { Effect, Schema } from 'effect'
import { type Caller, holds, isOwner } from '../../actors/admin/caller'
import { Timestamp } from '../../actors/admin/presenters'
import { ApiError, conflict, type FieldMessage, invalid, notFound } from '../../actors/errors'
import { Id, IdFromString } from '../../actors/fields'
import { addMessages, type Locale, t } from '../../actors/i18n'
import { invalidateCredentials, publishEvent } from '../../engine/events'
import { iso } from '../../engine/time'
import { pgArray } from '../../store/arrays'
import * as Members from '../../store/members'
import { isAdminRole } from '../../store/permissions'
import { limitsOf } from '../../store/plans'
import * as Roles from '../../store/roles'
import * as Teams from '../../store/teams'
import type { WorkspaceRow } from '../../store/workspaces'
import { ok, type Route, route } from '../route'
import { audited, changes } from './auditLogs'
import { isAdminCaller } from './roles'

/**
 * Spec 1 §4.2 members: everyone including the Owner with the user quota in `meta.users`; edits of
 * role, teams, `view_all`, channel access, status and `reply_initial`. The Owner keeps their role
 * and status (others may still set their teams and reply initial); nobody changes their own role
 * or status; only the Owner and admins touch admins. A member with a non-admin role needs a team.
 * A disabled member loses access at once: cached credentials, sockets and (with no other
 * workspace) sessions.
 */

addMessages({
  'members.quota': {
    en: 'Your plan allows {limit} active members; upgrade or disable someone first.',
    id: 'Paket Anda mengizinkan {limit} anggota aktif; upgrade atau nonaktifkan seseorang dulu.',
  },
  'members.owner_fixed': {
    en: "The Owner's role and status cannot be changed; transfer the ownership first.",
    id: 'Peran dan status Pemilik tidak dapat diubah; alihkan kepemilikan dulu.',
  },
  'members.self': {
    en: 'You cannot change your own role or status.',
    id: 'Anda tidak dapat mengubah peran atau status Anda sendiri.',
  },
  'members.admin_only': {
    en: 'Only the Owner or an admin may change admins or give admin roles.',
    id: 'Hanya Pemilik atau admin yang dapat mengubah admin atau memberikan peran admin.',
  },
  'members.team_required': {
    en: 'must name at least one team for a role without admin rights',
    id: 'harus berisi minimal satu tim untuk peran tanpa hak admin',
  },
  'members.unknown_role': {
    en: 'must be a role of this workspace (not the Owner role)',
    id: 'harus peran di workspace ini (bukan peran Pemilik)',
  },
  'members.unknown_teams': { en: 'must be teams of this workspace', id: 'harus tim di workspace ini' },
  'members.unknown_channels': {
    en: 'must be channels of this workspace',
    id: 'harus kanal di workspace ini',
  },
})

export const MemberSchema = Schema.Struct({
  id: Schema.Number,
  user: Schema.Struct({
    id: Schema.Number,
    name: Schema.String,
    email: Schema.String,
    avatar_url: Schema.NullOr(Schema.String),
  }),
  role: Schema.Struct({ id: Schema.Number, name: Schema.String, is_admin: Schema.Boolean }),
  status: Schema.Literal('active', 'disabled'),
  disabled_reason: Schema.NullOr(Schema.String),
  channel_access: Schema.Literal('all', 'selected'),
  channel_ids: Schema.Array(Schema.Number),
  team_ids: Schema.Array(Schema.Number),
  view_all: Schema.Boolean,
  reply_initial: Schema.String,
  is_owner: Schema.Boolean,
  is_me: Schema.Boolean,
  editable: Schema.Boolean,
  joined_at: Timestamp,
})

const targetIsAdmin = (m: Members.MemberView) => m.role_is_admin || m.role_is_owner

/** Whether the caller may change anything of this member. */
const editableBy = (caller: Caller, workspace: WorkspaceRow, m: Members.MemberView) =>
  caller.via === 'session' &&
  holds(caller, 'settings.members') &&
  (workspace.owner_user_id !== m.user_id || isOwner(caller) || isAdminCaller(caller)) &&
  (!targetIsAdmin(m) || isAdminCaller(caller))

export const presentMember = (
  m: Members.MemberView,
  caller: Caller,
  workspace: WorkspaceRow,
): typeof MemberSchema.Type => ({
  id: m.id,
  user: { id: m.user_id, name: m.user_name, email: m.user_email, avatar_url: m.user_avatar_url },
  role: { id: m.role_id, name: m.role_name, is_admin: targetIsAdmin(m) },
  status: m.status,
  disabled_reason: m.disabled_reason,
  channel_access: m.channel_access,
  channel_ids: m.channel_access === 'selected' ? m.channel_ids : [],
  team_ids: m.team_ids,
  view_all: m.view_all,
  reply_initial: m.reply_initial,
  is_owner: workspace.owner_user_id === m.user_id,
  is_me: caller.user.id === m.user_id,
  editable: editableBy(caller, workspace, m),
  joined_at: iso(m.joined_at)!,
})

/** `meta.users` and `meta.quota_error`: active members against the plan's limit (0 = unlimited). */
export const usersQuota = (workspace: WorkspaceRow, locale: Locale) =>
  Effect.map(Members.countActive(workspace.id), (used) => {
    const limit = limitsOf(workspace).users
    const full = limit > 0 && used >= limit
    return { users: { used, limit }, quota_error: full ? t(locale, 'members.quota', { limit }) : null }
  })

/** Of `ids`, those that are not live channels of the workspace. */
export const unknownChannels = (workspaceId: number, ids: readonly number[]) =>
  ids.length === 0
    ? Effect.succeed([] as number[])
    : Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ id: number }>`
          SELECT id FROM channels WHERE workspace_id = ${workspaceId} AND archived_at IS NULL
            AND id = ANY(${pgArray(ids)}::int[])`.pipe(
          Effect.map((rows) => {
            const known = new Set(rows.map((r) => r.id))
            return ids.filter((i) => !known.has(i))
          }),
        ),
      )

export interface AccessInput {
  readonly roleId?: number | undefined
  readonly teamIds?: readonly number[] | undefined
  readonly channelAccess?: 'all' | 'selected' | undefined
  readonly channelIds?: readonly number[] | undefined
}

/**
 * Checks a role, teams and channel access given to someone (a member or an invitation): the role
 * exists and is not the Owner's (an admin role only from an admin), the teams and channels exist,
 * and a non-admin role comes with a team (when `needsTeam`: an active member whose role or teams
 * change). `current` fills what the change leaves as it is.
 */
export const checkAccess = (
  caller: Caller,
  workspaceId: number,
  change: AccessInput,
  current: { readonly roleId: number; readonly teamIds: readonly number[]; readonly needsTeam: boolean },
) =>
  Effect.gen(function* () {
    const problems: Record<string, FieldMessage> = {}
    const role = yield* Roles.byId(workspaceId, change.roleId ?? current.roleId)
    if (change.roleId !== undefined && (!role || role.is_owner))
      problems.role_id = { key: 'members.unknown_role' }
    if (change.roleId !== undefined && role && !role.is_owner && isAdminRole(role) && !isAdminCaller(caller))
      return yield* Effect.fail(new ApiError({ code: 'forbidden', message: 'members.admin_only' }))
    if (change.teamIds !== undefined) {
      const found = yield* Teams.existing(workspaceId, change.teamIds)
      if (found.length !== new Set(change.teamIds).size) problems.team_ids = { key: 'members.unknown_teams' }
    }
    if (change.channelAccess === 'selected' || change.channelIds !== undefined) {
      if ((yield* unknownChannels(workspaceId, change.channelIds ?? [])).length > 0)
        problems.channel_ids = { key: 'members.unknown_channels' }
    }
    const teams = change.teamIds ?? current.teamIds
    if (role && !isAdminRole(role) && current.needsTeam && teams.length === 0 && !problems.role_id)
      problems.team_ids = { key: 'members.team_required' }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    return role
  })

const IdParam = Schema.Struct({ id: IdFromString })
const Ids = Schema.Array(Id).pipe(Schema.maxItems(1000))

const memberOr404 = (workspaceId: number, id: number) =>
  Effect.flatMap(Members.viewById(workspaceId, id), (m) => (m ? Effect.succeed(m) : Effect.fail(notFound())))

export const membersChanged = (workspaceId: number, data: Readonly<Record<string, unknown>>) =>
  publishEvent(`ws:${workspaceId}`, 'members.changed', data)

const unique = (ids: readonly number[]) => [...new Set(ids)]

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/members',
    access: 'K',
    permission: ['settings.members', 'settings.roles'],
    tag: 'Members',
    summary: 'Every member including the Owner; `meta.users` = {used, limit}, `meta.quota_error`',
    response: Schema.Array(MemberSchema),
    handler: ({ caller, workspace, locale }) =>
      Effect.gen(function* () {
        const rows = yield* Members.listViews(workspace.id)
        return ok(
          rows.map((m) => presentMember(m, caller, workspace)),
          yield* usersQuota(workspace, locale),
        )
      }),
  }),
  route({
    method: 'PATCH',
    path: '/v1/members/{id}',
    access: 'A',
    permission: 'settings.members',
    tag: 'Members',
    summary: 'Change role, teams, view_all, channel access, status or reply_initial of a member',
    params: IdParam,
    body: Schema.Struct({
      role_id: Schema.optional(Id),
      team_ids: Schema.optional(Ids),
      view_all: Schema.optional(Schema.Boolean),
      channel_access: Schema.optional(Schema.Literal('all', 'selected')),
      channel_ids: Schema.optional(Ids),
      status: Schema.optional(Schema.Literal('active', 'disabled')),
      reply_initial: Schema.optional(Schema.String.pipe(Schema.maxLength(20))),
    }),
    response: MemberSchema,
    handler: (req) =>
      Effect.gen(function* () {
        const { caller, workspace, body, params, locale } = req
        const m = yield* memberOr404(workspace.id, params.id)
        const ownerTarget = workspace.owner_user_id === m.user_id
        const fixedFields =
          body.role_id !== undefined ||
          body.status !== undefined ||
          body.view_all !== undefined ||
          body.channel_access !== undefined ||
          body.channel_ids !== undefined
        if (ownerTarget && fixedFields) return yield* Effect.fail(conflict('members.owner_fixed'))
        if (!editableBy(caller, workspace, m))
          return yield* Effect.fail(new ApiError({ code: 'forbidden', message: 'members.admin_only' }))
        const roleOrStatus =
          (body.role_id !== undefined && body.role_id !== m.role_id) ||
          (body.status !== undefined && body.status !== m.status)
        if (m.user_id === caller.user.id && roleOrStatus) return yield* Effect.fail(conflict('members.self'))
        const teamIds = body.team_ids === undefined ? undefined : unique(body.team_ids)
        const channelIds =
          body.channel_access === 'all'
            ? []
            : body.channel_ids === undefined
              ? undefined
              : unique(body.channel_ids)
        const status = body.status ?? m.status
        const enabling = m.status === 'disabled' && status === 'active'
        const disabling = m.status === 'active' && status === 'disabled'
        yield* checkAccess(
          caller,
          workspace.id,
          {
            roleId: body.role_id,
            teamIds,
            channelAccess: body.channel_access,
            channelIds,
          },
          {
            roleId: m.role_id,
            teamIds: m.team_ids,
            needsTeam:
              !ownerTarget &&
              status === 'active' &&
              (body.role_id !== undefined || teamIds !== undefined || enabling),
          },
        )
        const after = yield* audited(
          req,
          Effect.gen(function* () {
            if (enabling) {
              // The quota is counted under the workspace's lock, so two enables cannot both fit.
              const sql = yield* SqlClient.SqlClient
              yield* sql`SELECT id FROM workspaces WHERE id = ${workspace.id} FOR UPDATE`
              const { users } = yield* usersQuota(workspace, locale)
              if (users.limit > 0 && users.used >= users.limit)
                return yield* Effect.fail(
                  new ApiError({
                    code: 'plan_required',
                    message: 'members.quota',
                    params: { limit: users.limit },
                  }),
                )
            }
            yield* Members.applyChange(workspace.id, m.id, {
              ...(body.role_id !== undefined ? { roleId: body.role_id } : {}),
              ...(body.view_all !== undefined ? { viewAll: body.view_all } : {}),
              ...(body.channel_access !== undefined ? { channelAccess: body.channel_access } : {}),
              ...(channelIds !== undefined ? { channelIds } : {}),
              ...(body.status !== undefined && body.status !== m.status ? { status: body.status } : {}),
              ...(body.reply_initial !== undefined ? { replyInitial: body.reply_initial.trim() } : {}),
            })
            if (teamIds !== undefined) yield* Teams.setTeamsOfUser(workspace.id, m.user_id, teamIds)
            return (yield* Members.viewById(workspace.id, m.id))!
          }),
          (a) => ({
            action: disabling ? 'member.disabled' : enabling ? 'member.enabled' : 'member.updated',
            workspaceId: workspace.id,
            target: `${a.user_name} <${a.user_email}>`,
            details: changes([
              ['role', m.role_name, a.role_name],
              ['teams', m.team_ids, a.team_ids],
              ['view_all', m.view_all, a.view_all],
              ['channel_access', m.channel_access, a.channel_access],
              ['channel_ids', m.channel_ids, a.channel_ids],
              ['status', m.status, a.status],
              ['reply_initial', m.reply_initial, a.reply_initial],
            ]),
          }),
        )
        // After the commit: a disabled member is out at once; any change drops cached callers.
        if (disabling) yield* Members.endAccess(m.user_id, workspace.id)
        else yield* invalidateCredentials({ userId: m.user_id })
        if (teamIds !== undefined)
          yield* publishEvent(`ws:${workspace.id}`, 'teams.changed', {
            reason: 'members',
            user_id: m.user_id,
          })
        yield* membersChanged(workspace.id, {
          reason: disabling ? 'disabled' : enabling ? 'enabled' : 'updated',
          member_id: m.id,
        })
        return ok(presentMember(after, caller, workspace), yield* usersQuota(workspace, locale))
      }),
  }),
]
