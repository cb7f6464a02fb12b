import { Effect } from 'effect'
import { currentMillis, currentTime } from '../../engine/clock'
import type * as Channels from '../../store/channels'
import * as Conversations from '../../store/conversations'
import type * as Files from '../../store/files'
import type { WorkspaceRow } from '../../store/workspaces'
import { ChannelActor } from '../channels/ChannelActor'
import { ConversationActor } from '../inbox/ConversationActor'
import { mediaType } from '../inbox/messages'
import * as Outbound from '../inbox/outbound'

/**
 * A broadcast message goes out the way an agent's message does: into the contact's open chat on
 * the number (opened when there is none, so a reply lands in the inbox as a normal conversation),
 * stored by the ConversationActor (idempotent on its client id), then handed to the number's
 * ChannelActor, which keeps the 30-a-minute limit, and its connector (warm-up, send log,
 * restriction detection). The steps are separate so the sender can record each one durably.
 */
export interface Prepared {
  readonly conversation: Conversations.ConversationRow
  readonly message: Effect.Effect.Success<ReturnType<typeof store>>
}

const store = (
  conversationId: number,
  body: string,
  file: Files.FileRow | null,
  clientId: string,
  sender: Readonly<Record<string, unknown>>,
  payload: Readonly<Record<string, unknown>>,
) =>
  Effect.flatMap(ConversationActor, (a) =>
    a.ask(conversationId, {
      _tag: 'Append',
      direction: 'out',
      type: file ? mediaType(file.mime) : 'text',
      body,
      sender,
      status: 'pending',
      clientId,
      fileId: file?.id ?? null,
      replyToId: null,
      payload,
    }),
  )

/** Opens (or finds) the chat and stores the message, once per client id. */
export const prepare = (
  workspace: WorkspaceRow,
  channel: Channels.ChannelRow,
  contactId: number,
  body: string,
  file: Files.FileRow | null,
  clientId: string,
  sender: Readonly<Record<string, unknown>>,
  payload: Readonly<Record<string, unknown>>,
) =>
  Effect.gen(function* () {
    const started = yield* Conversations.openChatWith(workspace.id, channel.id, contactId, yield* currentTime)
    if (!started.reused) yield* Outbound.inboxCreated(started.row)
    const message = yield* store(started.row.id, body, file, clientId, sender, payload)
    return { conversation: started.row, message }
  })

/** One of this minute's 30 slots of the number, or the seconds to wait for the next. */
export const takeSlot = (channelId: number) =>
  Effect.gen(function* () {
    const nowMs = yield* currentMillis
    return yield* Effect.flatMap(ChannelActor, (a) =>
      a.ask(channelId, { _tag: 'TakeOutboundSlot', nowMs }),
    ).pipe(
      Effect.as(null),
      Effect.catchTags({
        Throttled: (e) => Effect.succeed(e.retryAfterSeconds),
        ChannelNotFound: () => Effect.succeed(-1),
      }),
    )
  })

/** Hands the stored message to the number and records the answer on the message. */
export const handOver = (workspace: WorkspaceRow, channel: Channels.ChannelRow, p: Prepared) =>
  Outbound.deliver({ workspace, conversation: p.conversation, channel }, p.message)
