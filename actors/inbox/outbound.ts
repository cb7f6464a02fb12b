import { Effect } from 'effect'
import { currentMillis, currentTime } from '../../engine/clock'
import * as Channels from '../../store/channels'
import * as Contacts from '../../store/contacts'
import type * as Conversations from '../../store/conversations'
import * as Files from '../../store/files'
import * as Groups from '../../store/groups'
import * as Messages from '../../store/messages'
import type { WorkspaceRow } from '../../store/workspaces'
import type { Caller } from '../admin/caller'
import { type CounterState, WorkspaceActor } from '../admin/WorkspaceActor'
import { ChannelActor } from '../channels/ChannelActor'
import type { Delivery, OutboundMessage } from '../channels/Connector'
import { ApiError } from '../errors'
import { publish, topics } from '../events'
import { ConversationActor, type MessageLike, presentMessage } from './ConversationActor'
import { type Ctx, pickupLost } from './conversations'

/**
 * The outbound path of every message an agent, a key or an automatic reply sends: the channel's
 * gate (archived 409, suspended 402, 30 per minute per number 429), the daily reply quota, the
 * ConversationActor's append, then the ChannelActor and its connector, and the delivery recorded.
 */

/** `{name, user_id}` of a session's user; a key's messages carry the key's name and id. */
export const senderFor = (caller: Caller) =>
  caller.via === 'key'
    ? Effect.map(Messages.keyName(caller.keyId), (name) => ({ name, user_id: null, key_id: caller.keyId }))
    : Effect.succeed({ name: caller.user.name, user_id: caller.user.id })

/** Initials appended to messaging-app replies: the member's `reply_initial`, else from the name. */
export const initialOf = (caller: Caller): string => {
  const own = caller.member?.reply_initial?.trim()
  if (own) return own
  return caller.user.name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 3)
    .map((w) => w[0]!.toUpperCase())
    .join('')
}

export const repliesMeta = (c: CounterState) => ({ used: c.used, limit: c.limit })

/**
 * The gate of everything that goes out: nothing through an archived channel (409) or one the plan
 * set aside (402, suspended after a move to Free), and one of this
 * minute's 30 outbound slots of a messaging-app number (else 429).
 */
export const takeSlot = (channel: Channels.ChannelRow | null) =>
  Effect.gen(function* () {
    if (channel && channel.archived_at !== null)
      return yield* Effect.fail(new ApiError({ code: 'conflict', message: 'messages.channel_archived' }))
    if (channel && channel.suspended_at !== null)
      return yield* Effect.fail(
        new ApiError({ code: 'plan_required', message: 'messages.channel_suspended' }),
      )
    if (channel?.type !== 'msgapp') return
    const nowMs = yield* currentMillis
    yield* Effect.flatMap(ChannelActor, (a) => a.ask(channel.id, { _tag: 'TakeOutboundSlot', nowMs }))
  })

/** Uses one of the replies of `at`'s day (spec 1 §2 `replies_per_day`), or 402 with the reset time. */
export const consumeReply = (workspace: WorkspaceRow, at: Date) =>
  Effect.flatMap(WorkspaceActor, (a) =>
    a.ask(workspace.id, { _tag: 'Consume', counter: 'replies_per_day', now: at }),
  )

/** Gives back a reply `consumeReply` took at `at` that nothing went out for. */
export const releaseReply = (workspace: WorkspaceRow, at: Date) =>
  Effect.flatMap(WorkspaceActor, (a) =>
    a.ask(workspace.id, { _tag: 'Release', counter: 'replies_per_day', n: 1, now: at }),
  )

/** A reply the caller took already (starting a chat takes it before the conversation exists). */
export interface Prepaid {
  readonly replies: CounterState
  readonly at: Date
}

export const repliesUsage = (workspace: WorkspaceRow) =>
  Effect.gen(function* () {
    const now = yield* currentTime
    const all = yield* Effect.flatMap(WorkspaceActor, (a) => a.ask(workspace.id, { _tag: 'Usage', now }))
    return all.replies_per_day
  })

export interface Draft {
  readonly type: string
  readonly body: string
  readonly file: Files.FileRow | null
  readonly replyToId: number | null
  readonly payload: Readonly<Record<string, unknown>>
  readonly clientId?: string | undefined
}

export interface Target extends Ctx {
  readonly conversation: Conversations.ConversationRow
  readonly channel: Channels.ChannelRow | null
}

/** What delivering a stored message needs (no caller: automatic replies deliver too). */
export type Delivering = Pick<Target, 'workspace' | 'conversation' | 'channel'>

/** The conversation's channel (null when it has none). */
export const channelOf = (c: Conversations.ConversationRow) =>
  c.channel_id === null ? Effect.succeed(null) : Channels.byId(c.channel_id)

/** An internal note (the team's, never the customer's): by its type, or by its `internal` status. */
export const isNote = (m: { readonly type: string; readonly status?: string }) =>
  m.type === 'note' || m.status === 'internal'

/**
 * Hands a stored message to its channel and records the answer: ChannelActor → connector →
 * ConversationActor (`sent`, or `failed` with the channel's reason). Returns the message as stored.
 */
export const deliver = (t: Delivering, message: MessageLike) =>
  Effect.gen(function* () {
    // An internal note never goes to a channel, whoever asks: it is kept as it is (`internal`).
    if (isNote(message)) return message
    const conv = yield* ConversationActor
    let delivery: Delivery
    if (t.channel === null) {
      delivery = { _tag: 'Rejected', reason: 'The conversation has no channel to deliver through.' }
    } else {
      const outbound = yield* outboundOf(t, message)
      delivery = yield* Effect.flatMap(ChannelActor, (a) =>
        a.ask(t.channel!.id, { _tag: 'Deliver', message: outbound }),
      ).pipe(
        Effect.catchTag('ChannelNotFound', () =>
          Effect.succeed<Delivery>({ _tag: 'Rejected', reason: 'channel removed' }),
        ),
      )
    }
    return yield* conv.ask(t.conversation.id, { _tag: 'Delivered', messageId: message.id, delivery })
  })

/** What the connector is asked to deliver: recipient, files, quoted message, final text. */
const outboundOf = (t: Delivering, m: MessageLike) =>
  Effect.gen(function* () {
    const c = t.conversation
    const contact = c.contact_id === null ? null : yield* Contacts.byId(t.workspace.id, c.contact_id)
    const group = c.group_id === null ? null : yield* Groups.byId(t.workspace.id, c.group_id)
    const email = (m.payload.email ?? null) as { attachments?: Array<{ file_id: number }> } | null
    const fileIds = [
      ...(m.file_id !== null ? [m.file_id] : []),
      ...(email?.attachments ?? []).map((a) => a.file_id),
    ]
    const files = yield* Files.byIds(t.workspace.id, fileIds)
    const quoted = m.reply_to_id === null ? null : yield* Messages.inConversation(c.id, m.reply_to_id)
    const initial = typeof m.payload.agent_initial === 'string' ? m.payload.agent_initial : ''
    return {
      messageId: m.id,
      conversationId: c.id,
      type: m.type,
      body: initial === '' ? m.body : `${m.body}\n\n-${initial}`,
      to: contact ? { name: contact.name, phone: contact.phone, email: contact.email } : null,
      group: group?.external_id ?? null,
      subject: c.subject,
      files: files.map((f) => ({ storageKey: f.storage_key, name: f.name, mime: f.mime, size: f.size })),
      replyTo: quoted?.external_id ?? null,
      payload: m.payload,
    } satisfies OutboundMessage
  })

/**
 * Sends a message the way an agent's reply goes: idempotent on `client_id`; a live chat nobody
 * has is picked up first (sessions only); the number's throttle and the daily reply quota are
 * taken before anything is stored; then the ConversationActor numbers it and the channel gets it.
 * Notes skip the channel, the throttle and the quota.
 */
export const send = (t: Target, draft: Draft, prepaid?: Prepaid) =>
  Effect.gen(function* () {
    const conv = yield* ConversationActor
    const deliverable = draft.type !== 'note'
    if (draft.clientId !== undefined) {
      const again = yield* Messages.byClientId(t.conversation.id, draft.clientId)
      if (again) return { message: again, replies: yield* repliesUsage(t.workspace) }
    }
    if (
      deliverable &&
      t.channel?.type === 'livechat' &&
      t.caller.via === 'session' &&
      t.conversation.assignee_id === null
    ) {
      yield* pickUp(t)
    }
    // A caller that took the slot and the reply already (starting a chat) passes what it got.
    if (deliverable && !prepaid) yield* takeSlot(t.channel)
    const at = prepaid?.at ?? (yield* currentTime)
    const taken = prepaid?.replies ?? (deliverable ? yield* consumeReply(t.workspace, at) : undefined)
    const replies = taken ?? (yield* repliesUsage(t.workspace))
    const sender = yield* senderFor(t.caller)
    const initial =
      deliverable &&
      t.channel?.type === 'msgapp' &&
      t.caller.via === 'session' &&
      t.channel.settings.agent_initial !== false
        ? initialOf(t.caller)
        : ''
    const stored = yield* conv.ask(t.conversation.id, {
      _tag: 'Append',
      direction: 'out',
      type: draft.type,
      body: draft.body,
      sender,
      status: deliverable ? 'pending' : 'internal',
      clientId: draft.clientId,
      fileId: draft.file?.id ?? null,
      replyToId: draft.replyToId,
      payload: initial === '' ? draft.payload : { ...draft.payload, agent_initial: initial },
    })
    // The same client id sent again while the first was on its way (both passed the check above
    // before either was stored): the first delivers the message; this copy gives its reply back.
    if (stored.duplicate)
      return { message: stored, replies: taken ? yield* releaseReply(t.workspace, at) : replies }
    if (!deliverable || stored.status !== 'pending') return { message: stored, replies }
    return { message: yield* deliver(t, stored), replies }
  })

/** A new conversation appeared in the inbox (no content: clients reload the list). */
export const inboxCreated = (c: Conversations.ConversationRow) =>
  publish(topics.workspace(c.workspace_id), 'inbox.changed', {
    interaction_id: c.id,
    channel_id: c.channel_id,
    reason: 'created',
  })

/** Picks up a live chat for the calling agent (409 when someone was faster) and tells the visitor. */
export const pickUp = (t: Target) =>
  Effect.gen(function* () {
    const row = yield* Effect.flatMap(ConversationActor, (a) =>
      a.ask(t.conversation.id, { _tag: 'Pickup', userId: t.caller.user.id }),
    ).pipe(Effect.catchTag('AlreadyPickedUp', pickupLost))
    if (t.channel) yield* agentJoined(t.channel.id, row.id, t.caller.user.name)
    return row
  })

/**
 * Tells a live chat's visitor (and those queued behind) that an agent has the chat: after a
 * pickup, or when someone assigns the waiting chat.
 */
export const agentJoined = (channelId: number, conversationId: number, agentName: string) =>
  Effect.flatMap(ChannelActor, (a) =>
    a.ask(channelId, { _tag: 'Signal', conversationId, signal: { kind: 'agent_joined', agentName } }),
  ).pipe(Effect.catchTag('ChannelNotFound', () => Effect.void))

/** The message resource, as every inbox route answers it. */
export const presentSent = (m: MessageLike) => presentMessage(m)
