import { Effect } from 'effect'
import { invalidateCredentials } from '../../engine/events'
import * as Channels from '../../store/channels'
import { publish, topics } from '../events'

/**
 * The one place every channel-creation route (`/channels`, `/channels/email`,
 * `/channels/livechat`, `/channels/api`) honours `grant_selected_members: true`: members on
 * selected-channel access get the new channel, their cached credentials are dropped on every node
 * (their access is read from them) and `members.changed` tells the clients.
 */
export const grantSelectedMembers = (
  asked: boolean | undefined,
  channel: { readonly id: number; readonly workspace_id: number },
) =>
  asked !== true
    ? Effect.succeed(0)
    : Effect.gen(function* () {
        const n = yield* Channels.grantSelectedMembers(channel.workspace_id, channel.id)
        if (n > 0) {
          yield* invalidateCredentials({ workspaceId: channel.workspace_id })
          yield* publish(topics.workspace(channel.workspace_id), 'members.changed', {
            reason: 'channel_granted',
            channel_id: channel.id,
          })
        }
        return n
      })
