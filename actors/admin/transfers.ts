import { Effect, Schema } from 'effect'
import { invalidateCredentials } from '../../engine/events'
import { iso } from '../../engine/time'
import * as Members from '../../store/members'
import { isAdminRole } from '../../store/permissions'
import * as Roles from '../../store/roles'
import * as Teams from '../../store/teams'
import * as Transfers from '../../store/transfers'
import * as Users from '../../store/users'
import * as Workspaces from '../../store/workspaces'
import { ApiError, conflict, type FieldMessage, invalid, notFound } from '../errors'
import { addMessages, type Locale, t } from '../i18n'
import * as Notifications from '../notifications'
import { audited } from './audit'
import { billingUpdated } from './billing'
import { type Caller, type InWorkspace, isOwner, type Origin } from './caller'
import { membersChanged } from './members'
import { Timestamp } from './presenters'
import { workspaceUpdated } from './workspaces'

/**
 * Spec 1 §3 ownership transfer: the Owner asks a member (`POST /workspace/transfer`, confirming
 * with the workspace's name), may cancel; the recipient sees it in `GET /me/transfers`, accepts
 * (becomes Owner; the workspace becomes their active one) or declines. The previous Owner stays
 * with the chosen role and teams (`stay`) or leaves. `can_accept` is false while the recipient is
 * no longer an active member or already owns as many workspaces as their account may;
 * `becomes_free`: a Custom contract belongs to whoever signed it, so a transferred Custom
 * workspace moves to Free. Works while the workspace is frozen.
 */

addMessages({
  'transfers.owner_only': {
    en: 'Only the Owner can transfer the workspace.',
    id: 'Hanya Pemilik yang dapat mengalihkan workspace.',
  },
  'transfers.pending': {
    en: 'A transfer is already waiting for an answer; cancel it first.',
    id: 'Sudah ada pengalihan yang menunggu jawaban; batalkan dulu.',
  },
  'transfers.closed': {
    en: 'This transfer request is no longer pending.',
    id: 'Permintaan pengalihan ini sudah tidak menunggu.',
  },
  'transfers.ineligible': {
    en: 'You cannot take this workspace over now: {reason}.',
    id: 'Anda tidak dapat mengambil alih workspace ini sekarang: {reason}.',
  },
  'transfers.reason.not_member': {
    en: 'you are no longer an active member',
    id: 'Anda bukan lagi anggota aktif',
  },
  'transfers.reason.owns_workspace': {
    en: 'your account already owns as many workspaces as it may',
    id: 'akun Anda sudah memiliki workspace sebanyak yang diizinkan',
  },
  'transfers.confirm_name': { en: "must be the workspace's name", id: 'harus nama workspace' },
  'transfers.recipient': { en: 'must be another active member', id: 'harus anggota aktif lain' },
  'transfers.stay_role': {
    en: 'must be a role of this workspace other than Owner',
    id: 'harus peran di workspace ini selain Pemilik',
  },
  'transfers.requested.title': {
    en: '{name} asks you to take over {workspace}',
    id: '{name} meminta Anda mengambil alih {workspace}',
  },
  'transfers.accepted.title': {
    en: '{name} is now the Owner of {workspace}',
    id: '{name} sekarang Pemilik {workspace}',
  },
  'transfers.declined.title': {
    en: '{name} declined to take over {workspace}',
    id: '{name} menolak mengambil alih {workspace}',
  },
})

const Person = Schema.Struct({ id: Schema.Number, name: Schema.String, email: Schema.String })

export const RequestSchema = Schema.Struct({
  id: Schema.Number,
  workspace: Schema.Struct({ id: Schema.Number, name: Schema.String, plan: Schema.String }),
  from: Person,
  to: Person,
  status: Schema.Literal('pending', 'cancelled', 'accepted', 'declined'),
  stay: Schema.Boolean,
  stay_role: Schema.NullOr(Schema.Struct({ id: Schema.Number, name: Schema.String })),
  stay_team_ids: Schema.Array(Schema.Number),
  created_at: Timestamp,
  decided_at: Schema.NullOr(Timestamp),
})

const present = (v: Transfers.TransferView): typeof RequestSchema.Type => ({
  id: v.id,
  workspace: { id: v.workspace_id, name: v.workspace_name, plan: v.workspace_plan },
  from: { id: v.from_user_id, name: v.from_name, email: v.from_email },
  to: { id: v.to_user_id, name: v.to_name, email: v.to_email },
  status: v.status,
  stay: v.stay,
  stay_role: v.stay_role_id === null ? null : { id: v.stay_role_id, name: v.stay_role_name ?? '' },
  stay_team_ids: v.stay_team_ids,
  created_at: iso(v.created_at)!,
  decided_at: iso(v.decided_at),
})

export const RecipientView = Schema.Struct({
  ...RequestSchema.fields,
  can_accept: Schema.Boolean,
  reason: Schema.NullOr(Schema.Literal('not_member', 'owns_workspace')),
  becomes_free: Schema.Boolean,
})

const forRecipient = (v: Transfers.TransferView) =>
  Effect.map(Transfers.eligibility(v.workspace_id, v.to_user_id), (e): typeof RecipientView.Type => ({
    ...present(v),
    can_accept: v.status === 'pending' && e.canAccept,
    reason: e.reason,
    becomes_free: Transfers.becomesFree(v.workspace_plan),
  }))

const ownerOnly = (caller: Caller) =>
  isOwner(caller)
    ? Effect.void
    : Effect.fail(new ApiError({ code: 'forbidden', message: 'transfers.owner_only' }))

/** The request addressed to the caller (404 otherwise), pending (409 otherwise). */
const pendingForCaller = (caller: Caller, id: number) =>
  Effect.gen(function* () {
    const v = yield* Transfers.forRecipient(caller.user.id, id)
    if (!v) return yield* Effect.fail(notFound())
    if (v.status !== 'pending') return yield* Effect.fail(conflict('transfers.closed'))
    return v
  })

const notifyUser = (
  workspaceId: number,
  userId: number,
  kind: string,
  key: string,
  params: Record<string, string>,
) =>
  Effect.flatMap(Users.byId(userId), (u) =>
    u
      ? Notifications.notify({
          workspaceId,
          userId,
          kind,
          title: t(u.locale, key, params),
          data: { workspace_id: workspaceId },
        })
      : Effect.void,
  )

/** Owner only: the pending request and the members who could take over. */
export const overview = (ctx: InWorkspace) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    yield* ownerOnly(caller)
    const pending = yield* Transfers.pendingOf(workspace.id)
    const members = yield* Members.listViews(workspace.id)
    const recipients = []
    for (const m of members) {
      if (m.user_id === caller.user.id) continue
      const e =
        m.status === 'active'
          ? yield* Transfers.eligibility(workspace.id, m.user_id)
          : { canAccept: false, reason: 'not_member' as const }
      recipients.push({
        user: { id: m.user_id, name: m.user_name, email: m.user_email, avatar_url: m.user_avatar_url },
        member_id: m.id,
        role: { id: m.role_id, name: m.role_name },
        eligible: e.canAccept,
        reason: e.reason,
      })
    }
    return {
      pending: pending ? present(pending) : null,
      recipients,
      becomes_free: Transfers.becomesFree(workspace.plan),
    }
  })

export interface TransferAsk {
  readonly to_user_id: number
  readonly confirm_name: string
  readonly stay: boolean
  readonly stay_role_id?: number | null | undefined
  readonly stay_team_ids: readonly number[]
}

/**
 * The Owner asks another active member to take over, confirming with the workspace's name; when
 * the Owner stays, their role and teams obey the rules of any member (a non-admin role needs a team).
 */
export const request = (ctx: InWorkspace, body: TransferAsk) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    yield* ownerOnly(caller)
    const problems: Record<string, FieldMessage> = {}
    if (body.confirm_name.trim().toLowerCase() !== workspace.name.trim().toLowerCase())
      problems.confirm_name = { key: 'transfers.confirm_name' }
    const recipient = yield* Members.activeMembership(body.to_user_id, workspace.id)
    if (!recipient || body.to_user_id === caller.user.id) problems.to_user_id = { key: 'transfers.recipient' }
    const stayTeams = [...new Set(body.stay_team_ids)]
    if (body.stay) {
      const role = body.stay_role_id ? yield* Roles.byId(workspace.id, body.stay_role_id) : null
      if (!role || role.is_owner) problems.stay_role_id = { key: 'transfers.stay_role' }
      if ((yield* Teams.existing(workspace.id, stayTeams)).length !== stayTeams.length)
        problems.stay_team_ids = { key: 'members.unknown_teams' }
      else if (role && !isAdminRole(role) && stayTeams.length === 0)
        problems.stay_team_ids = { key: 'members.team_required' }
    }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    const id = yield* audited(
      ctx,
      Transfers.request({
        workspaceId: workspace.id,
        fromUserId: caller.user.id,
        toUserId: body.to_user_id,
        stay: body.stay,
        stayRoleId: body.stay ? (body.stay_role_id ?? null) : null,
        stayTeamIds: body.stay ? stayTeams : [],
      }),
      (r) =>
        r === null
          ? null
          : {
              action: 'transfer.requested',
              workspaceId: workspace.id,
              target: `user #${body.to_user_id}`,
              details: body.stay ? 'previous owner stays' : 'previous owner leaves',
            },
    )
    if (id === null) return yield* Effect.fail(conflict('transfers.pending'))
    const view = (yield* Transfers.pendingOf(workspace.id))!
    yield* notifyUser(workspace.id, body.to_user_id, 'transfer.requested', 'transfers.requested.title', {
      name: caller.user.name,
      workspace: workspace.name,
    })
    return present(view)
  })

/** The Owner withdraws the pending request (404 when none). */
export const cancel = (ctx: InWorkspace) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    yield* ownerOnly(caller)
    const closed = yield* audited(ctx, Transfers.close({ workspaceId: workspace.id }, 'cancelled'), (r) =>
      r ? { action: 'transfer.cancelled', workspaceId: workspace.id, target: `user #${r.to_user_id}` } : null,
    )
    if (!closed) return yield* Effect.fail(notFound())
    return closed.id
  })

/** Requests waiting for the caller's answer. */
export const waiting = (ctx: Origin) =>
  Effect.flatMap(Transfers.waitingFor(ctx.caller.user.id), (rows) => Effect.forEach(rows, forRecipient))

/** One request addressed to the caller (404 otherwise). */
export const addressedTo = (ctx: Origin, id: number) =>
  Effect.gen(function* () {
    const v = yield* Transfers.forRecipient(ctx.caller.user.id, id)
    if (!v) return yield* Effect.fail(notFound())
    return yield* forRecipient(v)
  })

/**
 * The recipient takes over (while eligible: an active member who may own one more workspace).
 * A Custom workspace moves to Free; the previous Owner stays as chosen or loses access.
 */
export const accept = (ctx: Origin, id: number, locale: Locale) =>
  Effect.gen(function* () {
    const { caller } = ctx
    const v = yield* pendingForCaller(caller, id)
    const outcome = yield* audited(ctx, Transfers.accept(caller.user.id, v.id), (o) =>
      o && 'transfer' in o
        ? {
            action: 'transfer.accepted',
            workspaceId: v.workspace_id,
            target: `${caller.user.name} <${caller.user.email}>`,
            details: `from ${v.from_name}${o.becameFree ? '; custom → free' : ''}`,
          }
        : null,
    )
    if (outcome === null) return yield* Effect.fail(conflict('transfers.closed'))
    if ('ineligible' in outcome)
      return yield* Effect.fail(
        new ApiError({
          code: 'conflict',
          message: 'transfers.ineligible',
          params: { reason: t(locale, `transfers.reason.${outcome.ineligible}`) },
        }),
      )
    const ws = (yield* Workspaces.byId(v.workspace_id))!
    if (outcome.becameFree) {
      for (const userId of outcome.dropped) yield* Members.endAccess(userId, ws.id)
      yield* billingUpdated(ws, 'transfer')
    }
    yield* invalidateCredentials({ userId: caller.user.id })
    if (!v.stay) yield* Members.endAccess(v.from_user_id, ws.id)
    yield* workspaceUpdated(ws)
    yield* membersChanged(ws.id, { reason: 'owner_changed', owner_user_id: caller.user.id })
    yield* notifyUser(ws.id, v.from_user_id, 'transfer.accepted', 'transfers.accepted.title', {
      name: caller.user.name,
      workspace: ws.name,
    }).pipe(Effect.when(() => v.stay))
    return { id: v.id, status: 'accepted' as const, workspace_id: ws.id, plan: ws.plan }
  })

export const decline = (ctx: Origin, id: number) =>
  Effect.gen(function* () {
    const { caller } = ctx
    const v = yield* pendingForCaller(caller, id)
    const closed = yield* audited(
      ctx,
      Transfers.close({ id: v.id, toUserId: caller.user.id }, 'declined'),
      (r) =>
        r
          ? {
              action: 'transfer.declined',
              workspaceId: v.workspace_id,
              target: `${caller.user.name} <${caller.user.email}>`,
            }
          : null,
    )
    if (!closed) return yield* Effect.fail(conflict('transfers.closed'))
    yield* notifyUser(v.workspace_id, v.from_user_id, 'transfer.declined', 'transfers.declined.title', {
      name: caller.user.name,
      workspace: v.workspace_name,
    })
    return v.id
  })
