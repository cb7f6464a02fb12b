import { Effect } from 'effect'
import { ApiError } from '../actors/errors'
import { channelOfKey, refuseIfFrozen } from '../actors/livechat/visitors'
import type { ChannelRow } from '../store/channels'
import * as Livechat from '../store/livechat'
import type * as Workspaces from '../store/workspaces'

/**
 * Visitor-token (V) access of spec 1 §4.6 and §5 rule 8, checked here and nowhere else: the path's
 * `{key}` must name a live live-chat channel (else 404, also for a replaced key), and
 * `Authorization: Bearer lcv_…` must be a visitor of that very channel (else 401). Tokens are
 * stored hashed and looked up per request: no cache, so a replaced key or an archived channel
 * stops the widget at once. A frozen workspace (spec 1 §3) answers the widget's writes with 423.
 */
export interface VisitorCredential {
  readonly channel: ChannelRow
  readonly widget: Readonly<Record<string, unknown>>
  readonly visitor: Livechat.VisitorRow
  readonly workspace: Workspaces.WorkspaceRow
}

export const authenticateVisitor = (
  key: string | undefined,
  authorization: string | undefined,
  method: string,
) =>
  Effect.gen(function* () {
    const { channel, livechat, workspace } = yield* channelOfKey(key)
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1]
    const visitor = token ? yield* Livechat.visitorByToken(token) : null
    if (!visitor || visitor.channel_id !== channel.id)
      return yield* Effect.fail(new ApiError({ code: 'unauthorized' }))
    yield* refuseIfFrozen(workspace, method)
    return { channel, widget: livechat.widget, visitor, workspace } satisfies VisitorCredential
  })
