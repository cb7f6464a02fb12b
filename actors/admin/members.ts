import { Effect, Schema } from 'effect'
import { invalidateCredentials } from '../../engine/events'
import { iso } from '../../engine/time'
import * as Channels from '../../store/channels'
import * as Members from '../../store/members'
import { isAdminRole, type Permission } from '../../store/permissions'
import { limitsOf } from '../../store/plans'
import * as Roles from '../../store/roles'
import * as Teams from '../../store/teams'
import type { WorkspaceRow } from '../../store/workspaces'
import * as Workspaces from '../../store/workspaces'
import { ApiError, conflict, type FieldMessage, invalid, notFound } from '../errors'
import { type Payload, publish, topics } from '../events'
import { addMessages, type Locale, t } from '../i18n'
import { audited, changes } from './audit'
import { type Caller, holds, type InWorkspace, isAdminCaller, isOwner } from './caller'
import { Timestamp } from './presenters'

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
  'members.not_grantable': {
    en: 'You can only give a role, or "Can view all data", within what you hold yourself.',
    id: 'Anda hanya dapat memberikan peran, atau "Dapat melihat semua data", sebatas yang Anda miliki sendiri.',
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

/** The member list as the caller sees it (`editable`, `is_me`). */
export const list = (ctx: InWorkspace) =>
  Effect.map(Members.listViews(ctx.workspace.id), (rows) =>
    rows.map((m) => presentMember(m, ctx.caller, ctx.workspace)),
  )

export interface AccessInput {
  readonly roleId?: number | undefined
  readonly teamIds?: readonly number[] | undefined
  readonly channelAccess?: 'all' | 'selected' | undefined
  readonly channelIds?: readonly number[] | undefined
  readonly viewAll?: boolean | undefined
}

/**
 * Whether the caller may give this role and `view_all`: the Owner and admins anything; anyone else
 * only a role whose permissions they hold themselves, and `view_all` only if they have it (the
 * rule roles follow, `meta.grantable`).
 */
const withinGrant = (caller: Caller, role: Roles.RoleView | null, viewAll: boolean | undefined) =>
  isAdminCaller(caller) ||
  ((role === null || role.permissions.every((p) => caller.permissions.has(p as Permission))) &&
    (viewAll !== true || caller.member?.view_all === true))

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
    if (!withinGrant(caller, change.roleId !== undefined ? role : null, change.viewAll))
      return yield* Effect.fail(new ApiError({ code: 'forbidden', message: 'members.not_grantable' }))
    if (change.teamIds !== undefined) {
      const found = yield* Teams.existing(workspaceId, change.teamIds)
      if (found.length !== new Set(change.teamIds).size) problems.team_ids = { key: 'members.unknown_teams' }
    }
    if (change.channelAccess === 'selected' || change.channelIds !== undefined) {
      if ((yield* Channels.unknownLive(workspaceId, change.channelIds ?? [])).length > 0)
        problems.channel_ids = { key: 'members.unknown_channels' }
    }
    const teams = change.teamIds ?? current.teamIds
    if (role && !isAdminRole(role) && current.needsTeam && teams.length === 0 && !problems.role_id)
      problems.team_ids = { key: 'members.team_required' }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    return role
  })

export const membersChanged = (workspaceId: number, data: Payload<'ws', 'members.changed'>) =>
  publish(topics.workspace(workspaceId), 'members.changed', data)

/**
 * 402 with the plan's user limit unless one more active member fits beside `pending` invitations.
 * Decided under the workspace's lock (`Workspaces.lock`), so two decisions cannot both fit.
 */
export const checkRoom = (workspace: WorkspaceRow, pending = 0) =>
  Effect.gen(function* () {
    const limit = limitsOf(workspace).users
    const used = yield* Members.countActive(workspace.id)
    if (limit > 0 && used + pending >= limit)
      return yield* Effect.fail(
        new ApiError({ code: 'plan_required', message: 'members.quota', params: { limit } }),
      )
  })

const unique = (ids: readonly number[]) => [...new Set(ids)]

export interface MemberPatch {
  readonly role_id?: number | undefined
  readonly team_ids?: readonly number[] | undefined
  readonly view_all?: boolean | undefined
  readonly channel_access?: 'all' | 'selected' | undefined
  readonly channel_ids?: readonly number[] | undefined
  readonly status?: 'active' | 'disabled' | undefined
  readonly reply_initial?: string | undefined
}

/**
 * Changes a member. Enabling counts the user quota under the workspace's lock, so two enables
 * cannot both fit; after the commit a disabled member is out at once and any change drops the
 * member's cached credentials. Answers the member as the caller now sees it.
 */
export const update = (ctx: InWorkspace, id: number, body: MemberPatch) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const m = yield* Effect.flatMap(Members.viewById(workspace.id, id), (v) =>
      v ? Effect.succeed(v) : Effect.fail(notFound()),
    )
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
        viewAll: body.view_all === true && !m.view_all ? true : undefined,
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
      ctx,
      Effect.gen(function* () {
        if (enabling) {
          yield* Workspaces.lock(workspace.id)
          yield* checkRoom(workspace)
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
    if (disabling) yield* Members.endAccess(m.user_id, workspace.id)
    else yield* invalidateCredentials({ userId: m.user_id })
    if (teamIds !== undefined)
      yield* publish(topics.workspace(workspace.id), 'teams.changed', {
        reason: 'members',
        user_id: m.user_id,
      })
    yield* membersChanged(workspace.id, {
      reason: disabling ? 'disabled' : enabling ? 'enabled' : 'updated',
      member_id: m.id,
    })
    return presentMember(after, caller, workspace)
  })
