import { Effect } from 'effect'
import * as Notifications from '../store/notifications'
import { publish, topics } from './events'

/**
 * A user's notifications: stored by the store module, announced here, since telling sockets is
 * the domain's business (spec 1 §6 `notification.created` on `user:{id}`), not the repository's.
 */

/** Tells the user's sockets of a stored notification; call after the insert committed. */
export const announce = (row: Notifications.NotificationRow) =>
  publish(topics.user(row.user_id), 'notification.created', Notifications.present(row))

/** Stores a notification, then (after the insert committed) tells the user's sockets. */
export const notify = (n: Notifications.NewNotification) =>
  Effect.gen(function* () {
    const row = yield* Notifications.insert(n)
    yield* announce(row)
    return row
  })
