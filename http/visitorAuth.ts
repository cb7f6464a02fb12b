import { Effect } from 'effect'
import { ApiError } from '../actors/errors'
import type { ChannelRow } from '../store/channels'
import * as Livechat from '../store/livechat'
import * as Workspaces from '../store/workspaces'

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

/** The live chat channel of a public key, or 404. Public (P) widget routes use it too. */
export const channelOfKey = (key: string | undefined) =>
  Effect.gen(function* () {
    const found = key ? yield* Livechat.byPublicKey(key) : null
    if (!found) return yield* Effect.fail(new ApiError({ code: 'not_found' }))
    const workspace = yield* Workspaces.byId(found.channel.workspace_id)
    if (!workspace) return yield* Effect.fail(new ApiError({ code: 'not_found' }))
    return { ...found, workspace }
  })

/** Widget writes (start, send, typing, seen) wait while the workspace is frozen. */
export const refuseIfFrozen = (workspace: Workspaces.WorkspaceRow, method: string) =>
  workspace.frozen_at !== null && method !== 'GET'
    ? Effect.fail(new ApiError({ code: 'workspace_frozen' }))
    : Effect.void

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
