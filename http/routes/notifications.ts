import { Effect, Schema } from 'effect'
import { notFound } from '../../actors/errors'
import { Id } from '../../actors/fields'
import * as Notifications from '../../store/notifications'
import { ok, type Route, route } from '../route'

/** Spec 1 §4.1 notifications: the 20 latest with an unread count; mark one or all read. */
export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/notifications',
    access: 'A',
    tag: 'Notifications',
    summary: 'The 20 latest notifications and the unread count',
    handler: ({ caller, workspace }) =>
      Effect.map(Notifications.latest(workspace.id, caller.user.id), ({ rows, unread }) =>
        ok(rows.map(Notifications.present), { unread, limit: Notifications.LATEST }),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/notifications/read',
    access: 'A',
    whileFrozen: true,
    tag: 'Notifications',
    summary: 'Mark one notification read (`{id}`), or all of them (no id)',
    body: Schema.Struct({ id: Schema.optional(Id) }),
    handler: ({ caller, workspace, body }) =>
      Effect.gen(function* () {
        if (body.id !== undefined && !(yield* Notifications.exists(workspace.id, caller.user.id, body.id))) {
          return yield* Effect.fail(notFound())
        }
        const marked = yield* Notifications.markRead(workspace.id, caller.user.id, body.id)
        const { unread } = yield* Notifications.latest(workspace.id, caller.user.id)
        return ok({ marked }, { unread })
      }),
  }),
]
