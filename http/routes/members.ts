import { Effect, Schema } from 'effect'
import * as Members from '../../actors/admin/members'
import { Id, IdFromString } from '../../actors/fields'
import { ok, type Route, route } from '../route'

/** Spec 1 §4.2 members; the rules are in actors/admin/members.ts. */

const IdParam = Schema.Struct({ id: IdFromString })
const Ids = Schema.Array(Id).pipe(Schema.maxItems(1000))

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/members',
    access: 'K',
    permission: ['settings.members', 'settings.roles'],
    tag: 'Members',
    summary: 'Every member including the Owner; `meta.users` = {used, limit}, `meta.quota_error`',
    response: Schema.Array(Members.MemberSchema),
    handler: (req) =>
      Effect.gen(function* () {
        const rows = yield* Members.list(req)
        return ok(rows, yield* Members.usersQuota(req.workspace, req.locale))
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
    response: Members.MemberSchema,
    handler: (req) =>
      Effect.gen(function* () {
        const member = yield* Members.update(req, req.params.id, req.body)
        return ok(member, yield* Members.usersQuota(req.workspace, req.locale))
      }),
  }),
]
