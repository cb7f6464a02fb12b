import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import { Config } from '../../engine/config'
import { invalidateCredentials } from '../../engine/events'
import { Log } from '../../engine/log'
import { iso } from '../../engine/time'
import * as Invitations from '../../store/invitations'
import * as Members from '../../store/members'
import * as Roles from '../../store/roles'
import * as Users from '../../store/users'
import * as Workspaces from '../../store/workspaces'
import { ApiError, conflict, notFound } from '../errors'
import { publish, topics } from '../events'
import { addMessages, type Locale, t } from '../i18n'
import * as Notifications from '../notifications'
import { audited } from './audit'
import { type InWorkspace, isAdminCaller, type Origin } from './caller'
import * as Mailer from './Mailer'
import { checkAccess, checkRoom, membersChanged } from './members'
import { Timestamp } from './presenters'

/**
 * Spec 1 §3 and §4.2 invitations: create (the address gets an account without any membership, so
 * it can sign in to accept), resend (new link, old link dead), cancel, expiry after 7 days (still
 * listed), accept by the invited address only; a link's summary for its page. The e-mail goes out
 * through the mail port (SMTP when `SMTP_URL` is set) after the commit.
 */

addMessages({
  'invitations.member': {
    en: 'This address already belongs to a member of the workspace.',
    id: 'Alamat ini sudah milik anggota workspace.',
  },
  'invitations.pending': {
    en: 'This address already has an open invitation; resend it instead.',
    id: 'Alamat ini sudah memiliki undangan terbuka; kirim ulang undangan itu.',
  },
  'invitations.expired': {
    en: 'This invitation has expired; ask for a new one.',
    id: 'Undangan ini sudah kedaluwarsa; minta undangan baru.',
  },
  'invitations.already_member': {
    en: 'You are already a member of this workspace.',
    id: 'Anda sudah menjadi anggota workspace ini.',
  },
  'invitations.quota': {
    en: 'The workspace has no room for another member on its plan ({limit} users).',
    id: 'Workspace tidak punya tempat untuk anggota lain di paketnya ({limit} pengguna).',
  },
  'invitations.mail.subject': {
    en: '{inviter} invited you to {workspace} on Kotak',
    id: '{inviter} mengundang Anda ke {workspace} di Kotak',
  },
  'invitations.mail.body': {
    en: 'Hello,\n\n{inviter} invited you to join the workspace "{workspace}" on Kotak as {role}.\n\nOpen this link to accept (valid until {expires}):\n{link}\n\nIf you did not expect this invitation, you can ignore this e-mail.',
    id: 'Halo,\n\n{inviter} mengundang Anda bergabung dengan workspace "{workspace}" di Kotak sebagai {role}.\n\nBuka tautan ini untuk menerima (berlaku sampai {expires}):\n{link}\n\nJika Anda tidak mengharapkan undangan ini, abaikan e-mail ini.',
  },
  'invitations.accepted.title': {
    en: '{name} accepted your invitation',
    id: '{name} menerima undangan Anda',
  },
})

export const InvitationSchema = Schema.Struct({
  id: Schema.Number,
  email: Schema.String,
  role: Schema.Struct({ id: Schema.Number, name: Schema.String }),
  team_ids: Schema.Array(Schema.Number),
  view_all: Schema.Boolean,
  channel_access: Schema.Literal('all', 'selected'),
  channel_ids: Schema.Array(Schema.Number),
  status: Schema.Literal('pending', 'expired', 'accepted', 'cancelled'),
  invited_by: Schema.NullOr(Schema.Struct({ id: Schema.Number, name: Schema.String })),
  mail: Schema.Literal('off', 'sent', 'failed'),
  sent_at: Schema.NullOr(Timestamp),
  expires_at: Timestamp,
  created_at: Timestamp,
})

const present = (i: Invitations.InvitationView, now: Date): typeof InvitationSchema.Type => ({
  id: i.id,
  email: i.email,
  role: { id: i.role_id, name: i.role_name },
  team_ids: i.team_ids,
  view_all: i.view_all,
  channel_access: i.channel_access,
  channel_ids: i.channel_access === 'selected' ? i.channel_ids : [],
  status: Invitations.statusOf(i, now),
  invited_by: i.invited_by === null ? null : { id: i.invited_by, name: i.inviter_name ?? '' },
  mail: i.mail_status,
  sent_at: iso(i.sent_at),
  expires_at: iso(i.expires_at)!,
  created_at: iso(i.created_at)!,
})

export const MyInvitationSchema = Schema.Struct({
  id: Schema.Number,
  workspace: Schema.Struct({ id: Schema.Number, name: Schema.String }),
  role: Schema.Struct({ id: Schema.Number, name: Schema.String }),
  invited_by: Schema.NullOr(Schema.Struct({ id: Schema.Number, name: Schema.String })),
  expires_at: Timestamp,
  created_at: Timestamp,
})

const presentMine = (i: Invitations.InvitationView): typeof MyInvitationSchema.Type => ({
  id: i.id,
  workspace: { id: i.workspace_id, name: i.workspace_name },
  role: { id: i.role_id, name: i.role_name },
  invited_by: i.invited_by === null ? null : { id: i.invited_by, name: i.inviter_name ?? '' },
  expires_at: iso(i.expires_at)!,
  created_at: iso(i.created_at)!,
})

/** The link in the e-mail: the app's page for it, which reads `GET /v1/invite/{token}`. */
export const inviteLink = (publicUrl: string, token: string) => `${publicUrl}/invite/${token}`

/**
 * Sends (or resends) the invitation e-mail after the commit, in the invitee's language when they
 * have an account that chose one, else the inviter's. The outcome is stored on the invitation; a
 * mail failure never fails the request (the invitation exists; resend tries again).
 */
const sendMail = (i: Invitations.InvitationRow, token: string, inviterName: string, locale: Locale) =>
  Effect.gen(function* () {
    const cfg = yield* Config
    const mailer = yield* Mailer.current
    const invitee = yield* Users.byEmail(i.email)
    const workspace = yield* Workspaces.byId(i.workspace_id)
    const lang = invitee && invitee.last_login_at !== null ? invitee.locale : locale
    const role = yield* Roles.byId(i.workspace_id, i.role_id)
    const params = {
      inviter: inviterName,
      workspace: workspace?.name ?? '',
      role: role?.name ?? '',
      link: inviteLink(cfg.publicUrl, token),
      expires: `${iso(i.expires_at)!.replace('T', ' ').replace('Z', '')} UTC`,
    }
    const outcome = yield* mailer
      .send({
        to: i.email,
        subject: t(lang, 'invitations.mail.subject', params),
        text: t(lang, 'invitations.mail.body', params),
      })
      .pipe(
        Effect.catchTag('MailError', (e) =>
          Effect.flatMap(Log, (log) =>
            Effect.sync(() => log.warn('invitation mail failed', { invitation_id: i.id, error: e.reason })),
          ).pipe(Effect.as('failed' as const)),
        ),
      )
    if (outcome !== 'off') yield* Invitations.markMail(i.id, outcome, yield* currentTime)
    return outcome
  })

/**
 * Tells the invited address's own sockets (`user:{id}`, whatever workspace they are signed in to)
 * that their invitations changed, so an open list or banner reloads `GET /v1/me/invitations`.
 */
const tellInvitee = (email: string, reason: string, invitationId: number) =>
  Effect.flatMap(Users.byEmail(email), (user) =>
    user
      ? publish(topics.user(user.id), 'invitations.changed', { reason, invitation_id: invitationId })
      : Effect.void,
  )

const invitationOr404 = (workspaceId: number, id: number) =>
  Effect.flatMap(Invitations.byId(workspaceId, id), (i) =>
    i && i.accepted_at === null && i.cancelled_at === null ? Effect.succeed(i) : Effect.fail(notFound()),
  )

const unique = (ids: readonly number[]) => [...new Set(ids)]

/** Invitations not accepted yet, expired ones included. */
export const listOpen = (workspaceId: number) =>
  Effect.map(Effect.zip(Invitations.listOpen(workspaceId), currentTime), ([rows, now]) => {
    return rows.map((r) => present(r, now))
  })

/** What an invitation grants, as asked (ids may repeat; the e-mail is trimmed here). */
export type NewInvitation = Pick<
  Invitations.InvitationRow,
  'email' | 'role_id' | 'team_ids' | 'view_all' | 'channel_access' | 'channel_ids'
>

/**
 * Invites an address. Members, open invitations and the user quota (active members plus pending
 * invitations) are decided under the workspace's lock; the e-mail goes after the commit.
 */
export const create = (ctx: InWorkspace, body: NewInvitation, locale: Locale) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const email = body.email.trim()
    const teamIds = unique(body.team_ids)
    const channelIds = body.channel_access === 'all' ? [] : unique(body.channel_ids)
    yield* checkAccess(
      caller,
      workspace.id,
      {
        roleId: body.role_id,
        teamIds,
        channelAccess: body.channel_access,
        channelIds,
        viewAll: body.view_all,
      },
      { roleId: body.role_id, teamIds, needsTeam: true },
    )
    const now = yield* currentTime
    const made = yield* audited(
      ctx,
      Effect.gen(function* () {
        yield* Workspaces.lock(workspace.id)
        if (yield* Members.hasEmail(workspace.id, email))
          return yield* Effect.fail(conflict('invitations.member'))
        if (yield* Invitations.openFor(workspace.id, email))
          return yield* Effect.fail(conflict('invitations.pending'))
        yield* checkRoom(workspace, yield* Invitations.countPending(workspace.id, now))
        const r = yield* Invitations.create({
          workspaceId: workspace.id,
          email,
          roleId: body.role_id,
          teamIds,
          viewAll: body.view_all,
          channelAccess: body.channel_access,
          channelIds,
          invitedBy: caller.user.id,
          now,
        })
        if (!r) return yield* Effect.fail(conflict('invitations.pending'))
        return r
      }),
      (r) => ({ action: 'invitation.created', workspaceId: workspace.id, target: r.row.email }),
    )
    yield* sendMail(made.row, made.token, caller.user.name, locale)
    yield* membersChanged(workspace.id, { reason: 'invitation_created', invitation_id: made.row.id })
    yield* tellInvitee(made.row.email, 'created', made.row.id)
    const view = yield* Invitations.byId(workspace.id, made.row.id)
    return present(view!, now)
  })

/** A new link (valid 7 days again) by e-mail; an admin role's invitation only from an admin. */
export const resend = (ctx: InWorkspace, id: number, locale: Locale) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const invitation = yield* invitationOr404(workspace.id, id)
    if (invitation.role_is_admin && !isAdminCaller(caller))
      return yield* Effect.fail(new ApiError({ code: 'forbidden', message: 'members.admin_only' }))
    const now = yield* currentTime
    const renewed = yield* audited(ctx, Invitations.renew(workspace.id, invitation.id, now), (r) =>
      r ? { action: 'invitation.resent', workspaceId: workspace.id, target: r.row.email } : null,
    )
    if (!renewed) return yield* Effect.fail(notFound())
    yield* sendMail(renewed.row, renewed.token, caller.user.name, locale)
    yield* membersChanged(workspace.id, { reason: 'invitation_resent', invitation_id: invitation.id })
    yield* tellInvitee(invitation.email, 'resent', invitation.id)
    return present((yield* Invitations.byId(workspace.id, invitation.id))!, now)
  })

export const cancel = (ctx: InWorkspace, id: number) =>
  Effect.gen(function* () {
    const { workspace } = ctx
    const cancelled = yield* audited(ctx, Invitations.cancel(workspace.id, id, yield* currentTime), (r) =>
      r ? { action: 'invitation.cancelled', workspaceId: workspace.id, target: r.email } : null,
    )
    if (!cancelled) return yield* Effect.fail(notFound())
    yield* membersChanged(workspace.id, { reason: 'invitation_cancelled', invitation_id: id })
    yield* tellInvitee(cancelled.email, 'cancelled', id)
  })

/** Valid invitations for the caller's own address. */
export const mine = (ctx: Origin) =>
  Effect.flatMap(currentTime, (now) =>
    Effect.map(Invitations.validFor(ctx.caller.user.email, now), (rows) => rows.map(presentMine)),
  )

/**
 * The caller accepts an invitation to their address: they become a member (quota permitting) and
 * the workspace their active one; the inviter is notified.
 */
export const accept = (ctx: Origin, id: number) =>
  Effect.gen(function* () {
    const { caller } = ctx
    const now = yield* currentTime
    const outcome = yield* audited(ctx, Invitations.accept(caller.user, id, now), (o) =>
      o._tag === 'Accepted'
        ? {
            action: 'invitation.accepted',
            workspaceId: o.invitation.workspace_id,
            target: `${caller.user.name} <${caller.user.email}>`,
            details: `role: ${o.invitation.role_name}`,
          }
        : null,
    )
    switch (outcome._tag) {
      case 'NotFound':
        return yield* Effect.fail(notFound())
      case 'Expired':
        return yield* Effect.fail(conflict('invitations.expired'))
      case 'AlreadyMember':
        return yield* Effect.fail(conflict('invitations.already_member'))
      case 'QuotaFull': {
        return yield* Effect.fail(new ApiError({ code: 'plan_required', message: 'invitations.quota' }))
      }
    }
    const wsId = outcome.invitation.workspace_id
    yield* invalidateCredentials({ userId: caller.user.id })
    yield* membersChanged(wsId, { reason: 'invitation_accepted', member_id: outcome.memberId })
    yield* publish(topics.user(caller.user.id), 'invitations.changed', {
      reason: 'accepted',
      invitation_id: outcome.invitation.id,
    })
    const inviter = outcome.invitation.invited_by ? yield* Users.byId(outcome.invitation.invited_by) : null
    if (inviter)
      yield* Notifications.notify({
        workspaceId: wsId,
        userId: inviter.id,
        kind: 'invitation.accepted',
        title: t(inviter.locale, 'invitations.accepted.title', { name: caller.user.name }),
        data: { invitation_id: outcome.invitation.id, user_id: caller.user.id },
      })
    const workspace = (yield* Workspaces.byId(wsId))!
    return { workspace, memberId: outcome.memberId }
  })

export const LinkSchema = Schema.Struct({
  id: Schema.Number,
  email: Schema.String,
  workspace: Schema.Struct({ id: Schema.Number, name: Schema.String }),
  role: Schema.Struct({ name: Schema.String }),
  invited_by: Schema.NullOr(Schema.Struct({ name: Schema.String })),
  status: Schema.Literal('pending', 'expired', 'accepted', 'cancelled'),
  expires_at: Timestamp,
  account_exists: Schema.Boolean,
})

/** What an e-mailed link is about, for its page (anyone holding the link). */
export const byLink = (token: string) =>
  Effect.gen(function* () {
    const i = yield* Invitations.byToken(token)
    if (!i) return yield* Effect.fail(notFound())
    const user = yield* Users.byEmail(i.email)
    return {
      id: i.id,
      email: i.email,
      workspace: { id: i.workspace_id, name: i.workspace_name },
      role: { name: i.role_name },
      invited_by: i.inviter_name === null ? null : { name: i.inviter_name },
      status: Invitations.statusOf(i, yield* currentTime),
      expires_at: iso(i.expires_at)!,
      // Whether the address has signed in before (an account made by the invitation has not).
      account_exists: user !== null && user.last_login_at !== null,
    } satisfies typeof LinkSchema.Type
  })
