import { Effect, Schema } from 'effect'
import * as Invitations from '../../actors/admin/invitations'
import { presentWorkspace, WorkspaceSchema } from '../../actors/admin/presenters'
import { Email, Id, IdFromString } from '../../actors/fields'
import { currentTime } from '../../engine/clock'
import { created, ok, type Route, route } from '../route'

/** Spec 1 §3 and §4.2 invitations; the rules are in actors/admin/invitations.ts. */

const IdParam = Schema.Struct({ id: IdFromString })
const Ids = Schema.Array(Id).pipe(Schema.maxItems(1000))

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/invitations',
    access: 'K',
    permission: 'settings.members',
    tag: 'Invitations',
    summary: 'Invitations not accepted yet, expired ones included (`status`)',
    response: Schema.Array(Invitations.InvitationSchema),
    handler: ({ workspace }) => Effect.map(Invitations.listOpen(workspace.id), (rows) => ok(rows)),
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
    response: Invitations.InvitationSchema,
    handler: (req) => Effect.map(Invitations.create(req, req.body, req.locale), (i) => created(i)),
  }),
  route({
    method: 'POST',
    path: '/v1/invitations/{id}/resend',
    access: 'A',
    permission: 'settings.members',
    tag: 'Invitations',
    summary: 'Send a new link (valid 7 days again); the previous link stops working',
    params: IdParam,
    response: Invitations.InvitationSchema,
    handler: (req) => Effect.map(Invitations.resend(req, req.params.id, req.locale), (i) => ok(i)),
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
      Effect.as(Invitations.cancel(req, req.params.id), ok({ id: req.params.id, cancelled: true })),
  }),
  route({
    method: 'GET',
    path: '/v1/me/invitations',
    access: 'A',
    workspace: 'optional',
    tag: 'Identity',
    summary: 'Valid invitations for your account’s e-mail address',
    response: Schema.Array(Invitations.MyInvitationSchema),
    handler: (req) => Effect.map(Invitations.mine(req), (rows) => ok(rows)),
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
      Effect.map(Effect.zip(Invitations.accept(req, req.params.id), currentTime), ([r, now]) =>
        ok({ workspace: presentWorkspace(r.workspace, now), member_id: r.memberId }),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/invite/{token}',
    access: 'P',
    tag: 'Public',
    summary: 'What an e-mailed invitation link is about (workspace, role, inviter, status)',
    params: Schema.Struct({ token: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{20,100}$/)) }),
    response: Invitations.LinkSchema,
    handler: ({ params }) => Effect.map(Invitations.byLink(params.token), (link) => ok(link)),
  }),
]
