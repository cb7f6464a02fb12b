import { Effect, Schema } from 'effect'
import * as Transfers from '../../actors/admin/transfers'
import { Id, IdFromString } from '../../actors/fields'
import { created, ok, type Route, route } from '../route'

/** Spec 1 §3 ownership transfer; the rules are in actors/admin/transfers.ts. Works while frozen. */

const IdParam = Schema.Struct({ id: IdFromString })

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/workspace/transfer',
    access: 'A',
    tag: 'Ownership transfer',
    summary: 'Owner only: the pending request and the members who could take over',
    handler: (req) => Effect.map(Transfers.overview(req), (o) => ok(o)),
  }),
  route({
    method: 'POST',
    path: '/v1/workspace/transfer',
    access: 'A',
    whileFrozen: true,
    tag: 'Ownership transfer',
    summary: 'Ask a member to become the Owner (confirm with the workspace name); choose whether you stay',
    body: Schema.Struct({
      to_user_id: Id,
      confirm_name: Schema.String.pipe(Schema.maxLength(200)),
      stay: Schema.optionalWith(Schema.Boolean, { default: () => false }),
      stay_role_id: Schema.optional(Schema.NullOr(Id)),
      stay_team_ids: Schema.optionalWith(Schema.Array(Id), {
        default: () => [],
      }),
    }),
    response: Transfers.RequestSchema,
    handler: (req) => Effect.map(Transfers.request(req, req.body), (r) => created(r)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/workspace/transfer',
    access: 'A',
    whileFrozen: true,
    tag: 'Ownership transfer',
    summary: 'Cancel the pending request',
    handler: (req) => Effect.map(Transfers.cancel(req), (id) => ok({ id, status: 'cancelled' })),
  }),
  route({
    method: 'GET',
    path: '/v1/me/transfers',
    access: 'A',
    workspace: 'optional',
    tag: 'Ownership transfer',
    summary: 'Transfer requests waiting for your answer',
    response: Schema.Array(Transfers.RecipientView),
    handler: (req) => Effect.map(Transfers.waiting(req), (rows) => ok(rows)),
  }),
  route({
    method: 'GET',
    path: '/v1/me/transfers/{id}',
    access: 'A',
    workspace: 'optional',
    tag: 'Ownership transfer',
    summary: 'One request addressed to you, with `can_accept` and `becomes_free`',
    params: IdParam,
    response: Transfers.RecipientView,
    handler: (req) => Effect.map(Transfers.addressedTo(req, req.params.id), (r) => ok(r)),
  }),
  route({
    method: 'POST',
    path: '/v1/me/transfers/{id}/accept',
    access: 'A',
    workspace: 'optional',
    whileFrozen: true,
    tag: 'Ownership transfer',
    summary: 'Become the Owner; the workspace becomes your active one',
    params: IdParam,
    handler: (req) => Effect.map(Transfers.accept(req, req.params.id, req.locale), (r) => ok(r)),
  }),
  route({
    method: 'POST',
    path: '/v1/me/transfers/{id}/decline',
    access: 'A',
    workspace: 'optional',
    whileFrozen: true,
    tag: 'Ownership transfer',
    summary: 'Decline the request',
    params: IdParam,
    handler: (req) =>
      Effect.map(Transfers.decline(req, req.params.id), (id) => ok({ id, status: 'declined' })),
  }),
]
