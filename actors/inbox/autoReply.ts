import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { currentTime } from '../../engine/clock'
import { Log } from '../../engine/log'
import type { ChannelRow } from '../../store/channels'
import * as Channels from '../../store/channels'
import * as Conversations from '../../store/conversations'
import * as Settings from '../../store/settings'
import * as Workspaces from '../../store/workspaces'
import { ConversationActor } from './ConversationActor'
import { awayDue, repliesOf } from './inboundRules'
import { deliver, takeSlot } from './outbound'

/**
 * A channel's automatic replies (spec 1 §4.4 `auto_reply`), run after every inbound message
 * whatever the channel type: the greeting when the message opened a new conversation, and the away
 * message when it arrived outside business hours (the channel's `hours`, else the workspace's), at
 * most once per conversation every 12 hours. They go out like an agent's reply, through the
 * channel's throttle and connector, as the channel's name, without using the daily reply quota.
 * Best effort: a reply that cannot go out is logged and the inbound message is unaffected.
 */
export const AWAY_REPEAT_HOURS = 12

const awaySentRecently = (conversationId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number }>`
      SELECT count(*)::int AS n FROM messages
      WHERE conversation_id = ${conversationId} AND direction = 'out' AND payload->>'auto_reply' = 'away'
        AND created_at > now() - make_interval(hours => ${AWAY_REPEAT_HOURS})`,
  ).pipe(Effect.map((r) => (r[0]?.n ?? 0) > 0))

const sendAuto = (
  channel: ChannelRow,
  conversation: Conversations.ConversationRow,
  workspace: Workspaces.WorkspaceRow,
  kind: 'greeting' | 'away',
  text: string,
) =>
  Effect.gen(function* () {
    yield* takeSlot(channel)
    const stored = yield* Effect.flatMap(ConversationActor, (a) =>
      a.ask(conversation.id, {
        _tag: 'Append',
        direction: 'out',
        type: 'text',
        body: text,
        sender: { name: channel.name, user_id: null, auto: true },
        status: 'pending',
        payload: { auto_reply: kind },
      }),
    )
    yield* deliver({ workspace, conversation, channel }, stored)
  })

export const afterInbound = (
  from: ChannelRow,
  conversationId: number,
  opts: {
    readonly newConversation: boolean
    /**
     * The caller's row is current (the API channel's comes from the credential cache, which every
     * channel change clears on every node): no need to read it again.
     */
    readonly fresh?: boolean
  },
) =>
  // A current row without automatic replies (most inbound messages): nothing to do, at once.
  opts.fresh && !repliesOf(from.settings, opts.newConversation)
    ? Effect.void
    : Effect.gen(function* () {
        // Connectors hold their channel row for the life of a session; the settings are read fresh.
        const channel = opts.fresh ? from : yield* Channels.byId(from.id)
        if (!channel || channel.archived_at !== null) return
        const replies = repliesOf(channel.settings, opts.newConversation)
        if (!replies) return
        const { greeting, away } = replies
        const workspace = yield* Workspaces.byId(channel.workspace_id)
        const conversation = yield* Conversations.byId(conversationId)
        if (!workspace || !conversation) return
        if (greeting !== '') yield* sendAuto(channel, conversation, workspace, 'greeting', greeting)
        if (away === '') return
        const hours = channel.settings.hours as Settings.BusinessHours | null | undefined
        if (!awayDue(hours, Settings.generalOf(workspace), yield* currentTime)) return
        if (yield* awaySentRecently(conversationId)) return
        yield* sendAuto(channel, conversation, workspace, 'away', away)
      }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.flatMap(Log, (log) =>
            Effect.sync(() =>
              log.warn('automatic reply not sent', { channel_id: from.id, cause: String(cause) }),
            ),
          ),
        ),
      )
