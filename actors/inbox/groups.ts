import { Effect } from 'effect'
import * as Groups from '../../store/groups'
import type { WorkspaceRow } from '../../store/workspaces'
import type { Caller } from '../admin/caller'
import { notFound } from '../errors'
import * as Inbox from './conversations'

/**
 * A group the caller may see, else 404: a group on a channel the caller cannot access stays
 * hidden, like its conversations. The one rule for the group and its photo.
 */
export const visibleGroup = (caller: Caller, workspace: WorkspaceRow, id: number) =>
  Effect.gen(function* () {
    const group = yield* Groups.byId(workspace.id, id)
    if (!group) return yield* Effect.fail(notFound())
    const viewer = Inbox.viewerFor(caller, workspace)
    if (
      viewer.channelIds !== null &&
      group.channel_id !== null &&
      !viewer.channelIds.includes(group.channel_id)
    ) {
      return yield* Effect.fail(notFound())
    }
    return group
  })
