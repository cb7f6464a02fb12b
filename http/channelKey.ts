import { Effect } from 'effect'
import { ApiError } from '../actors/errors'
import { systemMillis } from '../engine/clock'
import { andThen } from '../engine/step'
import { digestText } from '../engine/tokens'
import * as ChannelApi from '../store/channelApi'
import { isPaidActive } from '../store/plans'
import * as Workspaces from '../store/workspaces'
import type { ChannelCredential, CredentialCacheShape } from './credentials'
import type { Method } from './router'

/**
 * Channel-key (C) access of spec 1 §4.7 and §5 rule 7: `Authorization: Bearer svca_ch_…` names an
 * API channel. Resolved keys live in the node's credential cache like API keys; replacing a key,
 * archiving the channel or changing the workspace drops them on every node, so a replaced key is
 * refused from the very next request. The workspace must still be on an active paid plan (402)
 * and, for writes, not frozen (423).
 */
const unauthorized = () => new ApiError({ code: 'unauthorized' })

export const authenticateChannel = (cache: CredentialCacheShape, authorization: string | undefined) => {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')
  const key = m?.[1]
  if (!key || !ChannelApi.CHANNEL_KEY_PATTERN.test(key)) return Effect.fail(unauthorized())
  const cacheKey = digestText(key)
  // A key this node resolved before: answered at once (engine/step.ts), no fiber; in its entry's
  // last second it is also looked up again in the background.
  const hit = cache.getChannel(cacheKey)
  if (hit) {
    const refresh = cache.refreshChannel(cacheKey, () => lookup(key))
    const access = withAccess(hit)
    return refresh ? andThen(refresh, () => Effect.succeed(access)) : Effect.succeed(access)
  }
  // Requests that miss together share one lookup (http/credentials.ts `load`).
  return Effect.map(cache.loadChannel(cacheKey, lookup(key)), withAccess)
}

const lookup = (key: string) =>
  Effect.gen(function* () {
    const channel = yield* ChannelApi.findByKey(key)
    if (!channel) return yield* Effect.fail(unauthorized())
    const workspace = yield* Workspaces.byId(channel.workspace_id)
    if (!workspace) return yield* Effect.fail(unauthorized())
    return { channel, workspace }
  })

/** The channel and its workspace, with the check of the workspace's plan and frozen state. */
const withAccess = ({ channel, workspace }: ChannelCredential) => ({
  channel,
  workspace,
  authorize: (method: Method): Effect.Effect<void, ApiError> => {
    // Every request with a channel key: the synchronous read of the clock.
    if (!isPaidActive(workspace, new Date(systemMillis())))
      return Effect.fail(new ApiError({ code: 'plan_required' }))
    if (workspace.frozen_at !== null && method !== 'GET')
      return Effect.fail(new ApiError({ code: 'workspace_frozen' }))
    return Effect.void
  },
})
