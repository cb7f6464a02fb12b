import { SqlClient } from '@effect/sql'
import { Effect, Schema } from 'effect'
import { presentWorkspace, Timestamp, WorkspaceSchema } from '../../actors/admin/presenters'
import { ApiError, conflict, notFound } from '../../actors/errors'
import { Id, IdFromString } from '../../actors/fields'
import { addMessages, type Locale, t } from '../../actors/i18n'
import * as Mailer from '../../connectors/mail/Mailer'
import { Config } from '../../engine/config'
import { invalidateCredentials } from '../../engine/events'
import { Log } from '../../engine/log'
import { iso } from '../../engine/time'
import * as Invitations from '../../store/invitations'
import * as Notifications from '../../store/notifications'
import { limitsOf } from '../../store/plans'
import * as Users from '../../store/users'
import * as Workspaces from '../../store/workspaces'
import { created, ok, type Route, route } from '../route'
import { audited } from './auditLogs'
import { checkAccess, membersChanged } from './members'
import { isAdminCaller } from './roles'

/**
 * Spec 1 §3 and §4.2 invitations: create (the address gets an account without any membership, so
 * it can sign in to accept), resend (new link, old link dead), cancel, expiry after 7 days (still
 * listed), accept by the invited address only; `GET /v1/invite/{token}` summarises the link. The
 * e-mail goes out through the mail port (SMTP when `SMTP_URL` is set) after the commit.
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

const MyInvitationSchema = Schema.Struct({
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
    const [role] = yield* Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<{ name: string }>`SELECT name FROM roles WHERE id = ${i.role_id}`,
    )
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
    if (outcome !== 'off') yield* Invitations.markMail(i.id, outcome, new Date())
    return outcome
  })

const IdParam = Schema.Struct({ id: IdFromString })
const Ids = Schema.Array(Id).pipe(Schema.maxItems(1000))
export const Email = Schema.String.pipe(
  Schema.filter((s) => s.trim().length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s.trim()), {
    jsonSchema: { format: 'email', maxLength: 254 },
    message: () => 'field.email',
  }),
)

addMessages({ 'field.email': { en: 'must be an e-mail address', id: 'harus alamat e-mail' } })

const invitationOr404 = (workspaceId: number, id: number) =>
  Effect.flatMap(Invitations.byId(workspaceId, id), (i) =>
    i && i.accepted_at === null && i.cancelled_at === null ? Effect.succeed(i) : Effect.fail(notFound()),
  )

const unique = (ids: readonly number[]) => [...new Set(ids)]

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/invitations',
    access: 'K',
    permission: 'settings.members',
    tag: 'Invitations',
    summary: 'Invitations not accepted yet, expired ones included (`status`)',
    response: Schema.Array(InvitationSchema),
    handler: ({ workspace }) =>
      Effect.map(Invitations.listOpen(workspace.id), (rows) => {
        const now = new Date()
        return ok(rows.map((r) => present(r, now)))
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/invitations',
    access: 'A',
    permission: 'settings.members',
    tag: 'Invitations',
    summary: 'Invite an e-mail address with a role, teams and channel access; the link is e-mailed',
    body: Schema.Struct({
      email: Email,
      role_id: Id,
      team_ids: Schema.optionalWith(Ids, { default: () => [] }),
      view_all: Schema.optionalWith(Schema.Boolean, { default: () => false }),
      channel_access: Schema.optionalWith(Schema.Literal('all', 'selected'), {
        default: () => 'all' as const,
      }),
      channel_ids: Schema.optionalWith(Ids, { default: () => [] }),
    }),
    response: InvitationSchema,
    handler: (req) =>
      Effect.gen(function* () {
        const { caller, workspace, body, locale } = req
        const email = body.email.trim()
        const teamIds = unique(body.team_ids)
        const channelIds = body.channel_access === 'all' ? [] : unique(body.channel_ids)
        yield* checkAccess(
          caller,
          workspace.id,
          { roleId: body.role_id, teamIds, channelAccess: body.channel_access, channelIds },
          { roleId: body.role_id, teamIds, needsTeam: true },
        )
        const now = new Date()
        const made = yield* audited(
          req,
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            // Quota and duplicates are decided under the workspace's lock.
            yield* sql`SELECT id FROM workspaces WHERE id = ${workspace.id} FOR UPDATE`
            const [member] = yield* sql`
              SELECT 1 FROM members m JOIN users u ON u.id = m.user_id
              WHERE m.workspace_id = ${workspace.id} AND lower(u.email) = lower(${email})`
            if (member) return yield* Effect.fail(conflict('invitations.member'))
            if (yield* Invitations.openFor(workspace.id, email))
              return yield* Effect.fail(conflict('invitations.pending'))
            const limit = limitsOf(workspace).users
            const [{ n }] = (yield* sql<{ n: number }>`
              SELECT count(*) AS n FROM members WHERE workspace_id = ${workspace.id} AND status = 'active'`) as [
              { n: number },
            ]
            if (limit > 0 && n + (yield* Invitations.countPending(workspace.id, now)) >= limit)
              return yield* Effect.fail(
                new ApiError({ code: 'plan_required', message: 'members.quota', params: { limit } }),
              )
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
        const view = yield* Invitations.byId(workspace.id, made.row.id)
        return created(present(view!, now))
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/invitations/{id}/resend',
    access: 'A',
    permission: 'settings.members',
    tag: 'Invitations',
    summary: 'Send a new link (valid 7 days again); the previous link stops working',
    params: IdParam,
    response: InvitationSchema,
    handler: (req) =>
      Effect.gen(function* () {
        const { caller, workspace, params, locale } = req
        const invitation = yield* invitationOr404(workspace.id, params.id)
        if (invitation.role_is_admin && !isAdminCaller(caller))
          return yield* Effect.fail(new ApiError({ code: 'forbidden', message: 'members.admin_only' }))
        const now = new Date()
        const renewed = yield* audited(req, Invitations.renew(workspace.id, invitation.id, now), (r) =>
          r ? { action: 'invitation.resent', workspaceId: workspace.id, target: r.row.email } : null,
        )
        if (!renewed) return yield* Effect.fail(notFound())
        yield* sendMail(renewed.row, renewed.token, caller.user.name, locale)
        yield* membersChanged(workspace.id, { reason: 'invitation_resent', invitation_id: invitation.id })
        return ok(present((yield* Invitations.byId(workspace.id, invitation.id))!, now))
      }),
  }),
  route({
    method: 'DELETE',
    path: '/v1/invitations/{id}',
    access: 'A',
    permission: 'settings.members',
    tag: 'Invitations',
    summary: 'Cancel an invitation; its link stops working',
    params: IdParam,
    handler: (req) =>
      Effect.gen(function* () {
        const { workspace, params } = req
        const cancelled = yield* audited(req, Invitations.cancel(workspace.id, params.id, new Date()), (r) =>
          r ? { action: 'invitation.cancelled', workspaceId: workspace.id, target: r.email } : null,
        )
        if (!cancelled) return yield* Effect.fail(notFound())
        yield* membersChanged(workspace.id, { reason: 'invitation_cancelled', invitation_id: params.id })
        return ok({ id: params.id, cancelled: true })
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/me/invitations',
    access: 'A',
    workspace: 'optional',
    tag: 'Identity',
    summary: 'Valid invitations for your account’s e-mail address',
    response: Schema.Array(MyInvitationSchema),
    handler: ({ caller }) =>
      Effect.map(Invitations.validFor(caller.user.email, new Date()), (rows) => ok(rows.map(presentMine))),
  }),
  route({
    method: 'POST',
    path: '/v1/me/invitations/{id}/accept',
    access: 'A',
    // The caller's own account and other workspaces: a frozen active workspace blocks none of it.
    whileFrozen: true,
    workspace: 'optional',
    tag: 'Identity',
    summary: 'Accept an invitation for your e-mail address; that workspace becomes your active one',
    params: IdParam,
    response: Schema.Struct({ workspace: WorkspaceSchema, member_id: Schema.Number }),
    handler: (req) =>
      Effect.gen(function* () {
        const { caller, params } = req
        const now = new Date()
        const outcome = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql.withTransaction(
            Effect.tap(Invitations.accept(caller.user, params.id, now), (o) =>
              o._tag === 'Accepted'
                ? audited(req, Effect.void, () => ({
                    action: 'invitation.accepted',
                    workspaceId: o.invitation.workspace_id,
                    target: `${caller.user.name} <${caller.user.email}>`,
                    details: `role: ${o.invitation.role_name}`,
                  }))
                : Effect.void,
            ),
          ),
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
        const inviter = outcome.invitation.invited_by
          ? yield* Users.byId(outcome.invitation.invited_by)
          : null
        if (inviter)
          yield* Notifications.notify({
            workspaceId: wsId,
            userId: inviter.id,
            kind: 'invitation.accepted',
            title: t(inviter.locale, 'invitations.accepted.title', { name: caller.user.name }),
            data: { invitation_id: outcome.invitation.id, user_id: caller.user.id },
          })
        const ws = (yield* Workspaces.byId(wsId))!
        return ok({ workspace: presentWorkspace(ws), member_id: outcome.memberId })
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/invite/{token}',
    access: 'P',
    tag: 'Public',
    summary: 'What an e-mailed invitation link is about (workspace, role, inviter, status)',
    params: Schema.Struct({ token: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{20,100}$/)) }),
    response: Schema.Struct({
      id: Schema.Number,
      email: Schema.String,
      workspace: Schema.Struct({ id: Schema.Number, name: Schema.String }),
      role: Schema.Struct({ name: Schema.String }),
      invited_by: Schema.NullOr(Schema.Struct({ name: Schema.String })),
      status: Schema.Literal('pending', 'expired', 'accepted', 'cancelled'),
      expires_at: Timestamp,
      account_exists: Schema.Boolean,
    }),
    handler: ({ params }) =>
      Effect.gen(function* () {
        const i = yield* Invitations.byToken(params.token)
        if (!i) return yield* Effect.fail(notFound())
        const user = yield* Users.byEmail(i.email)
        return ok({
          id: i.id,
          email: i.email,
          workspace: { id: i.workspace_id, name: i.workspace_name },
          role: { name: i.role_name },
          invited_by: i.inviter_name === null ? null : { name: i.inviter_name },
          status: Invitations.statusOf(i, new Date()),
          expires_at: iso(i.expires_at)!,
          // Whether the address has signed in before (an account made by the invitation has not).
          account_exists: user !== null && user.last_login_at !== null,
        })
      }),
  }),
]
