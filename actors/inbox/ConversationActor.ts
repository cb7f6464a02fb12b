import type { SqlClient, SqlError } from '@effect/sql'
import { Data, Duration, Effect, Exit, Option } from 'effect'
import * as Actor from '../../engine/actor/Actor'
import { ActorStopped } from '../../engine/actor/Actor'
import { currentMillis, currentTime, WallClock } from '../../engine/clock'
import { ClusterNode, type ClusterNodeShape, type Fence } from '../../engine/cluster/node'
import { recheckTopic } from '../../engine/events'
import { iso } from '../../engine/time'
import { AppendWriter } from '../../store/appendWriter'
import * as Assignees from '../../store/assignees'
import * as Contacts from '../../store/contacts'
import * as Conversations from '../../store/conversations'
import * as Fences from '../../store/fence'
import * as LabelRules from '../../store/labelRules'
import * as Messages from '../../store/messages'
import * as ReportFacts from '../../store/reportFacts'
import type { Delivery } from '../channels/Connector'
import { apiAnswer, conflict, forbidden, notFound } from '../errors'
import { publish, topics } from '../events'
import * as Recent from './recentClientIds'

/**
 * ConversationActor: the single writer of a conversation. Orders its messages (gap-free
 * sequence), records their delivery, applies the edit (15 minutes) and unsend (2 days) windows,
 * reactions, status, team, assignee, category and custom-field changes, the live-chat pickup race,
 * read state, and holds typing in memory. Each change is published after it is committed:
 * `message.created` / `message.updated` / `interaction.updated` / `typing` on `conv:{id}`,
 * `inbox.changed` (no content) on `ws:{workspace}`. Time comes from the WallClock port.
 */
export class ConversationNotFound extends Data.TaggedError('ConversationNotFound')<{ readonly id: number }> {
  [apiAnswer]() {
    return notFound()
  }
}
export class MessageNotFound extends Data.TaggedError('MessageNotFound')<{ readonly id: number }> {
  [apiAnswer]() {
    return notFound()
  }
}
/** An edit the rules refuse: not the sender's own, not text, unsent already, or past 15 minutes. */
export class EditRefused extends Data.TaggedError('EditRefused')<{
  readonly reason: 'not_own' | 'not_text' | 'deleted' | 'window'
}> {
  [apiAnswer]() {
    return this.reason === 'not_own'
      ? forbidden('messages.not_own')
      : conflict(
          this.reason === 'window'
            ? 'messages.edit_window'
            : this.reason === 'deleted'
              ? 'messages.deleted'
              : 'messages.not_text',
        )
  }
}
/** An unsend the rules refuse: a customer's message, unsent already, or past 2 days. */
export class UnsendRefused extends Data.TaggedError('UnsendRefused')<{
  readonly reason: 'incoming' | 'deleted' | 'window'
}> {
  [apiAnswer]() {
    return conflict(
      this.reason === 'window'
        ? 'messages.unsend_window'
        : this.reason === 'deleted'
          ? 'messages.deleted'
          : 'messages.unsend_incoming',
    )
  }
}
/**
 * Losing the live-chat pickup race: someone has the conversation already. No `[apiAnswer]`: the
 * answer names the winner, read from the store (inbox/conversations.ts `pickupLost`).
 */
export class AlreadyPickedUp extends Data.TaggedError('AlreadyPickedUp')<{
  readonly assigneeId: number
}> {}

/** A conversation's actor lets go of its state after this long without a message. */
export const IDLE_MS = 60_000

/** Typing indicators expire on their own; nothing about typing is ever written to the database. */
export const TYPING_TTL_MS = 6_000
/** Spec 2 §8. */
export const EDIT_WINDOW_MS = 15 * 60_000
export const UNSEND_WINDOW_MS = 2 * 24 * 60 * 60_000

export interface ConversationState {
  /**
   * The conversation's hot columns as stored (`Conversations.hotRow`). This actor is the only
   * writer of its per-message columns (sequence, times, counters, reply state, status), so appends
   * compute the next row from this copy instead of reading it; the write is guarded by `last_seq`
   * and `version` all the same.
   */
  readonly row: Conversations.HotRow | null
  /**
   * Client ids of the latest messages (hashed, bounded): a resend is answered with one read of the
   * stored message, without a failed write. Changed in place (`remember`).
   */
  readonly recent: Recent.RecentClientIds
  /** user id → expiry (epoch ms) of their typing indicator (`NO_TYPING`, shared, until someone types). */
  readonly typing: ReadonlyMap<number, number>
  /**
   * message id → when a resend of it was handed out (epoch ms; `NOT_RESENDING`, shared, until one
   * is): a failed message, once resent, is `pending` and as old as before, so without this every
   * retry arriving before the channel answers would send it again.
   */
  readonly resending: ReadonlyMap<number, number>
  /** When `ws:` last heard of new messages here; changed in place (`messagesChanged`). */
  readonly inbox: InboxHold
  /**
   * In cluster mode, this node: every append carries the fence (shard, epoch) the node holds the
   * entity's shard at when it writes, checked in the write's transaction (store/fence.ts), so a
   * node that lost the shard writes nothing. The epoch of the moment, not of the load: an
   * instance that outlived a hold (its stop timed out) and serves again once the node took the
   * shard back must not refuse every write for ever; its copy of the row may be stale then, which
   * the write's `last_seq` and `version` guard catches.
   */
  readonly node: ClusterNodeShape | undefined
}

/** The fence of an append (see `ConversationState.node`). */
const fenceOf = (state: ConversationState, id: number): Fence | undefined =>
  state.node?.fence('conversation', id)

/**
 * A change of the row other than an append (status, assignment, a read marker…), under the same
 * fence in cluster mode (store/fence.ts `within`): an owner that lost the shard writes nothing
 * and answers as a stopped one (503, retried on the new owner). A single node writes as is.
 */
const fenced = <A, E, R>(
  state: ConversationState,
  id: number,
  write: Effect.Effect<A, E, R>,
): Effect.Effect<A, E | SqlError.SqlError | ActorStopped, R | SqlClient.SqlClient> => {
  const fence = fenceOf(state, id)
  if (fence === undefined) return write
  return Fences.within(fence, write).pipe(
    Effect.catchAll((e: E | SqlError.SqlError | Fences.ShardLost) =>
      Effect.fail(
        e instanceof Fences.ShardLost
          ? new ActorStopped({ actor: 'conversation', id: String(id) })
          : (e as E | SqlError.SqlError),
      ),
    ),
  )
}

interface InboxHold {
  /** `performance.now()` of the last `inbox.changed` for messages. */
  at: number
  /** One is scheduled for the end of the current window. */
  trailing: boolean
}

/**
 * How often at most `ws:` hears `inbox.changed` for new messages of one conversation: the event
 * tells agents' apps to reload their list, and a busy conversation (hundreds of messages a
 * second) would otherwise have every app reload it as often (docs/decisions.md, "The write path").
 */
const INBOX_MESSAGES_EVERY_MS = 100

const record = (v: unknown): Readonly<Record<string, unknown>> | null =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null

/** Who sent a message: `{name, user_id, jid}` (a key's messages carry the key's name, no user). */
const senderOf = (s: Readonly<Record<string, unknown>> | null) => ({
  name: typeof s?.name === 'string' ? s.name : null,
  user_id: typeof s?.user_id === 'number' ? s.user_id : null,
  jid: typeof s?.jid === 'string' ? s.jid : null,
})

/** A message row, with its file and quoted message when joined (store/messages `view`). */
export type MessageLike = Conversations.MessageRow &
  Partial<Omit<Messages.MessageView, keyof Conversations.MessageRow>>

/** The message resource of spec 2 §2, also the payload of `message.created` / `message.updated`. */
export const presentMessage = (m: MessageLike) => {
  const payload = m.payload ?? {}
  const email = record(payload.email)
  const attachments = Array.isArray(email?.attachments)
    ? (email.attachments as Record<string, unknown>[])
    : []
  return {
    id: m.id,
    interaction_id: m.conversation_id,
    seq: m.seq,
    direction: m.direction,
    type: m.type,
    body: m.body,
    media:
      m.file_id !== null && m.file_id !== undefined
        ? {
            url: `/v1/messages/${m.id}/media`,
            name: m.file_name ?? null,
            mime: m.file_mime ?? null,
            size: m.file_size ?? null,
          }
        : null,
    reply_to:
      m.reply_to_id !== null && m.reply_to_id !== undefined
        ? {
            id: m.reply_to_id,
            type: m.r_type ?? null,
            direction: m.r_direction ?? null,
            body: m.r_deleted_at ? '' : (m.r_body ?? '').slice(0, 200),
            sender: { name: senderOf(m.r_sender ?? null).name },
          }
        : null,
    location: record(payload.location),
    shared_contact: record(payload.contact),
    email: email
      ? {
          subject: email.subject ?? null,
          html: email.html ?? null,
          cc: email.cc ?? [],
          reply_all: email.reply_all === true,
          attachments: attachments.map((a, index) => ({
            index,
            name: a.name,
            mime: a.mime,
            size: a.size,
            url: `/v1/messages/${m.id}/attachments/${index}`,
          })),
        }
      : null,
    template_id: typeof payload.template_id === 'number' ? payload.template_id : null,
    source: m.type === 'note' ? (typeof payload.source === 'string' ? payload.source : 'note') : null,
    sender: senderOf(m.sender),
    status: m.status,
    error: m.error,
    reactions: m.reactions ?? [],
    client_id: m.client_id,
    edited_at: iso(m.edited_at ?? null),
    deleted_at: iso(m.deleted_at ?? null),
    sent_at: iso(m.sent_at),
    created_at: iso(m.created_at),
  }
}

/** `interaction.updated`: what changed, without message content; clients reload the detail. */
const presentChange = (c: Conversations.HotRow) => ({
  id: c.id,
  status: c.status,
  reply_state: c.reply_state,
  team_id: c.team_id,
  assignee_id: c.assignee_id,
  category_id: c.category_id,
  channel_id: c.channel_id,
  picked_up: c.picked_up_at !== null,
  updated_at: iso(c.updated_at),
})

const inboxChanged = (c: Conversations.HotRow, reason: string) =>
  publish(topics.workspace(c.workspace_id), 'inbox.changed', {
    interaction_id: c.id,
    channel_id: c.channel_id,
    reason,
  })

const existing = (state: ConversationState, id: number) =>
  state.row ? Effect.succeed(state.row) : Effect.fail(new ConversationNotFound({ id }))

const messageOf = (conversationId: number, id: number) =>
  Effect.flatMap(Messages.inConversation(conversationId, id), (m) =>
    m ? Effect.succeed(m) : Effect.fail(new MessageNotFound({ id })),
  )

/** The message as the API shows it (re-read when changed), told to the conversation's subscribers. */
const publishMessage = (
  conversationId: number,
  id: number | Conversations.MessageRow,
  event: 'message.created' | 'message.updated',
) =>
  Effect.flatMap(typeof id === 'number' ? Messages.view(id) : Messages.asView(id), (view) =>
    view
      ? Effect.as(publish(topics.conversation(conversationId), event, presentMessage(view)), view)
      : // Only called right after a change to this very row, in this actor: it exists.
        Effect.dieMessage(`message ${typeof id === 'number' ? id : id.id} vanished`),
  )

const changed = (row: Conversations.ConversationRow | null, id: number) =>
  row ? Effect.succeed(row) : Effect.fail(new ConversationNotFound({ id }))

/** How long a delivery may take before a message still `pending` may be sent again. */
const DELIVERY_MS = 60_000

/** Failed, or pending for longer than a delivery takes: a retry may send it again. */
export const resendable = (m: Conversations.MessageRow, nowMs: number) =>
  m.deleted_at === null &&
  m.direction === 'out' &&
  (m.status === 'failed' ||
    (m.status === 'pending' && nowMs - (m.sent_at ?? m.created_at).getTime() > DELIVERY_MS))

/** A change the channel reports for a stored message (handler `Remote`). */
export type RemoteChange =
  | { readonly kind: 'status'; readonly status: 'delivered' | 'read' }
  /** The service refused a message the team sent after it had taken it (an error in its ack). */
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'edit'; readonly body: string }
  | { readonly kind: 'unsend' }
  | { readonly kind: 'react'; readonly emoji: string; readonly jid: string; readonly name: string | null }

const RECEIPT_RANK: Readonly<Record<string, number>> = { pending: 1, sent: 2, delivered: 3, read: 4 }

export interface Editor {
  readonly userId: number | null
  readonly keyId: number | null
}

/** No one typing: shared by every conversation until someone types (the Typing handler copies it). */
const NO_TYPING: ReadonlyMap<number, number> = new Map()
/** Nothing being resent: shared until something is (the Resend handler copies it). */
const NOT_RESENDING: ReadonlyMap<number, number> = new Map()

/**
 * Adds stored messages' client ids to the conversation's recent ones, in place: unlike the rest of
 * the state they may change before a handler commits, which is harmless because they only ever
 * learn ids of messages that are stored.
 */
const remember = (recent: Recent.RecentClientIds, added: ReadonlyArray<readonly [string, number]>) => {
  for (const [clientId, id] of added) Recent.add(recent, clientId, id)
  return recent
}

/**
 * The messages a run may be resending: those whose client id hashes like a recent one's, read
 * (one read each, the answer a resend needs anyway) and kept only when their own client id is the
 * same. Undefined when the run has no candidate (the usual case: no read at all).
 */
const resent = (recent: Recent.RecentClientIds, msgs: readonly Conversations.NewMessage[]) => {
  let candidates: Array<readonly [string, number]> | undefined
  for (const m of msgs) {
    if (m.clientId === undefined) continue
    const id = Recent.candidate(recent, m.clientId)
    if (id === undefined) continue
    candidates ??= []
    candidates.push([m.clientId, id])
  }
  if (candidates === undefined) return undefined
  return Effect.map(
    Effect.forEach(candidates, ([, id]) => Messages.view(id)),
    (views) => {
      const stored = new Map<string, Messages.MessageView>()
      for (const [i, view] of views.entries())
        if (view !== null && view.client_id === candidates[i]![0]) stored.set(view.client_id, view)
      return stored
    },
  )
}

const NONE_RESENT: ReadonlyMap<string, Messages.MessageView> = new Map()

/** An append's answer: the message, marked `duplicate` when a resent client id found it stored. */
export type Appended = Messages.MessageView & { readonly duplicate?: true }
type AppendExit = Exit.Exit<Appended, ConversationNotFound | SqlError.SqlError | ActorStopped>

/**
 * This node lost the conversation's shard before the write (store/fence.ts): nothing was written,
 * and the caller is answered as by an owner that stopped (503, retried on the new owner).
 */
const shardLost = (id: number): AppendExit =>
  Exit.fail(new ActorStopped({ actor: 'conversation', id: String(id) }))

/**
 * Appends a run of messages (what queued up in the mailbox): the next row computed from the
 * actor's copy, one write through the node's group commit (store/appendWriter), the events after
 * the commit. When that write cannot apply — the row moved on (another node appended during an
 * ownership move) or the write failed (an old client id sent again, say) — each message is
 * appended the careful way instead, under the row lock, and the copy is read again.
 */
const appendRun = (state: ConversationState, msgs: readonly Conversations.NewMessage[], id: number) => {
  const row = state.row
  if (!row) {
    const gone = Exit.fail(new ConversationNotFound({ id }))
    return Effect.succeed([msgs.map((): AppendExit => gone), state] as const)
  }
  const candidates = resent(state.recent, msgs)
  return candidates === undefined
    ? appendNew(state, row, msgs, id, NONE_RESENT)
    : Effect.flatMap(candidates, (stored) => appendNew(state, row, msgs, id, stored))
}

const appendNew = (
  state: ConversationState,
  row: Conversations.HotRow,
  msgs: readonly Conversations.NewMessage[],
  id: number,
  stored: ReadonlyMap<string, Messages.MessageView>,
) =>
  // Plain combinators, not a generator: every inbound message runs through here.
  Effect.flatMap(currentTime, (now) => {
    // Each message: a resend of a known client id (answered with the stored message), or new.
    const plan: Array<{ readonly dup: Messages.MessageView | number } | { readonly at: number }> = []
    const seen = new Map<string, number>()
    const messages: Array<Conversations.AppendWrite['messages'][number]> = []
    let next = row
    for (const m of msgs) {
      const known = m.clientId === undefined ? undefined : (stored.get(m.clientId) ?? seen.get(m.clientId))
      if (known !== undefined) {
        plan.push({ dup: known })
        continue
      }
      const at = m.at ?? now
      const fact = ReportFacts.ofMessage(next, m, at)
      next = Conversations.applyMessage(next, m, at)
      if (m.clientId !== undefined) seen.set(m.clientId, -next.last_seq)
      plan.push({ at: messages.length })
      messages.push({ seq: next.last_seq, at, m, fact })
    }
    if (messages.length === 0)
      return Effect.map(
        Effect.forEach(plan, (p) => storedView('dup' in p ? p.dup : 0, id, [])),
        (exits) => [exits, state] as const,
      )
    return Effect.flatMap(AppendWriter, (writer) =>
      Effect.matchEffect(
        writer.submit({
          conversationId: row.id,
          prevSeq: row.last_seq,
          row: next,
          messages,
          fence: fenceOf(state, id),
        }),
        {
          onFailure: (e) =>
            e._tag === 'ShardLost'
              ? Effect.succeed([msgs.map((): AppendExit => shardLost(id)), state] as const)
              : appendCarefully(state, msgs, id),
          onSuccess: ({ conversation, messages: stored }) =>
            Effect.flatMap(announce(state, conversation, stored), (views) => {
              const added = stored.flatMap((v) =>
                v.client_id === null ? [] : [[v.client_id, v.id] as const],
              )
              const after = { ...state, row: conversation, recent: remember(state.recent, added) }
              // Resends in the run are rare: without one, the answers are the views as they are.
              if (plan.every((p) => 'at' in p))
                return Effect.succeed([
                  plan.map((p) => Exit.succeed(views[(p as { readonly at: number }).at]!) as AppendExit),
                  after,
                ] as const)
              return Effect.map(
                Effect.forEach(plan, (p) =>
                  'at' in p
                    ? Effect.succeed(Exit.succeed(views[p.at]!) as AppendExit)
                    : storedView(p.dup, id, views),
                ),
                (exits) => [exits, after] as const,
              )
            }),
        },
      ),
    )
  })

/**
 * `inbox.changed` (reason `message`) at once when the last one went out at least
 * `INBOX_MESSAGES_EVERY_MS` ago; otherwise one at the end of that window, which covers every
 * message committed until then. Real time, not the inbox's clock: this paces events.
 */
const messagesChanged = (c: Conversations.HotRow, hold: InboxHold) =>
  Effect.suspend(() => {
    if (hold.trailing) return Effect.void
    const wait = hold.at + INBOX_MESSAGES_EVERY_MS - performance.now()
    if (wait <= 0) {
      hold.at = performance.now()
      return inboxChanged(c, 'message')
    }
    hold.trailing = true
    const later = Effect.zipRight(
      Effect.sleep(Duration.millis(wait)),
      Effect.suspend(() => {
        hold.trailing = false
        hold.at = performance.now()
        return inboxChanged(c, 'message')
      }),
    )
    return Effect.asVoid(Effect.forkDaemon(later))
  })

/**
 * After a commit: `message.created` for each stored message, `inbox.changed` unless all were
 * notes (paced by `messagesChanged`), `interaction.updated` when the status moved from
 * `before`'s. Answers the messages' views.
 */
const announce = (
  state: ConversationState,
  after: Conversations.HotRow,
  stored: readonly Conversations.MessageRow[],
) => {
  const before = state.row
  const rest = Effect.zipRight(
    stored.some((m) => m.type !== 'note') ? messagesChanged(after, state.inbox) : Effect.void,
    before && after.status !== before.status
      ? publish(topics.conversation(after.id), 'interaction.updated', presentChange(after))
      : Effect.void,
  )
  return Effect.zipLeft(
    Effect.forEach(stored, (message) => publishMessage(after.id, message, 'message.created')),
    rest,
  )
}

/**
 * A resend's answer: the stored message, read already or by its id (a negative id is a sequence
 * written in this very run).
 */
const storedView = (
  known: Messages.MessageView | number,
  conversationId: number,
  run: readonly Messages.MessageView[],
) =>
  Effect.gen(function* () {
    if (typeof known === 'object') return Exit.succeed({ ...known, duplicate: true as const }) as AppendExit
    if (known < 0) {
      const same = run.find((v) => v.seq === -known)
      if (same) return Exit.succeed({ ...same, duplicate: true as const }) as AppendExit
    }
    const view = yield* Messages.view(known)
    return (
      view
        ? Exit.succeed({ ...view, duplicate: true as const })
        : Exit.fail(new ConversationNotFound({ id: conversationId }))
    ) as AppendExit
  })

/** The fallback: one message at a time under the row lock, then the copy read again. */
const appendCarefully = (state: ConversationState, msgs: readonly Conversations.NewMessage[], id: number) =>
  Effect.gen(function* () {
    const now = yield* currentTime
    const exits: AppendExit[] = []
    const added: Array<readonly [string, number]> = []
    for (const m of msgs) {
      const result = yield* Effect.either(
        Conversations.append(id, { ...m, at: m.at ?? now }, fenceOf(state, id)),
      )
      if (result._tag === 'Left') {
        exits.push(result.left._tag === 'ShardLost' ? shardLost(id) : Exit.fail(result.left))
        continue
      }
      const r = result.right
      if (!r) {
        exits.push(Exit.fail(new ConversationNotFound({ id })))
        continue
      }
      if (!r.created || !r.conversation) {
        exits.push(yield* storedView(r.message.id, id, []))
        continue
      }
      const [view] = yield* announce(state, r.conversation, [r.message])
      if (r.message.client_id !== null) added.push([r.message.client_id, r.message.id])
      exits.push(Exit.succeed(view!))
    }
    const row = yield* Conversations.byId(id)
    return [
      exits,
      { ...state, row: row && Conversations.hotRow(row), recent: remember(state.recent, added) },
    ] as const
  })

export const definition = Actor.define({
  name: 'conversation',
  load: (id: number) =>
    Effect.gen(function* () {
      const node = yield* Effect.serviceOption(ClusterNode)
      const stored = yield* Conversations.byId(id)
      const row = stored && Conversations.hotRow(stored)
      const recent = Recent.of(
        row ? yield* Messages.recentClientIds(id, row.last_seq, Recent.RECENT_CLIENT_IDS) : [],
      )
      return {
        row,
        typing: NO_TYPING,
        resending: NOT_RESENDING,
        recent,
        inbox: { at: Number.NEGATIVE_INFINITY, trailing: false },
        node: Option.getOrUndefined(node),
      } satisfies ConversationState as ConversationState
    }),
  // Passivated a minute after its last message (swept every 10 s): a conversation that goes quiet
  // costs nothing after that, and the next message loads it again with two reads by key
  // (docs/decisions.md, "Lean conversation actors").
  idleMs: IDLE_MS,
  sweepMs: 10_000,
  batch: {
    Append: (state, msgs: readonly Conversations.NewMessage[], ctx) => appendRun(state, msgs, ctx.id),
  },
  handlers: {
    /** Appends a message (next sequence number); a resent client id returns the stored one. */
    Append: (state: ConversationState, m: Conversations.NewMessage, ctx) =>
      Effect.flatMap(appendRun(state, [m], ctx.id), ([exits, next]) =>
        Effect.map(exits[0]!, (view) => [view, next] as const),
      ),
    /** Records the channel's answer to a delivery attempt (`sent`, or `failed` with the reason). */
    Delivered: (
      state: ConversationState,
      m: { readonly messageId: number; readonly delivery: Delivery },
      ctx,
    ) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const updated = yield* Messages.setDelivery(
          ctx.id,
          m.messageId,
          m.delivery._tag === 'Sent'
            ? { status: 'sent', error: null, externalId: m.delivery.externalId }
            : { status: 'failed', error: m.delivery.reason, externalId: null },
        )
        if (!updated) return yield* Effect.fail(new MessageNotFound({ id: m.messageId }))
        return [yield* publishMessage(ctx.id, updated, 'message.updated'), state] as const
      }),
    /**
     * Marks a failed message as being sent again; also one stuck in `pending` for a minute (its
     * node went away between storing and delivering).
     */
    Resend: (state: ConversationState, m: { readonly messageId: number }, ctx) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const msg = yield* messageOf(ctx.id, m.messageId)
        const now = yield* currentMillis
        if (!resendable(msg, now)) return [null, state] as const
        const handedOut = state.resending.get(msg.id)
        if (msg.status === 'pending' && handedOut !== undefined && now - handedOut <= DELIVERY_MS)
          return [null, state] as const
        yield* Messages.setDelivery(ctx.id, msg.id, { status: 'pending', error: null, externalId: null })
        const resending = new Map([...state.resending].filter(([, at]) => now - at <= DELIVERY_MS))
        resending.set(msg.id, now)
        return [yield* publishMessage(ctx.id, msg.id, 'message.updated'), { ...state, resending }] as const
      }),
    /** Edits the sender's own text (or note) within 15 minutes of sending. */
    Edit: (
      state: ConversationState,
      m: { readonly messageId: number; readonly body: string; readonly by: Editor },
      ctx,
    ) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const msg = yield* messageOf(ctx.id, m.messageId)
        const now = yield* currentTime
        const own =
          msg.direction === 'out' &&
          (m.by.keyId !== null ? msg.sender.key_id === m.by.keyId : msg.sender.user_id === m.by.userId)
        if (!own) return yield* Effect.fail(new EditRefused({ reason: 'not_own' }))
        if (msg.type !== 'text' && msg.type !== 'note')
          return yield* Effect.fail(new EditRefused({ reason: 'not_text' }))
        if (msg.deleted_at !== null) return yield* Effect.fail(new EditRefused({ reason: 'deleted' }))
        const sentAt = (msg.sent_at ?? msg.created_at).getTime()
        if (now.getTime() - sentAt > EDIT_WINDOW_MS)
          return yield* Effect.fail(new EditRefused({ reason: 'window' }))
        yield* Messages.edit(msg.id, m.body, now)
        return [yield* publishMessage(ctx.id, msg.id, 'message.updated'), state] as const
      }),
    /** Unsends an outgoing message for everyone within 2 days of sending. */
    Unsend: (state: ConversationState, m: { readonly messageId: number }, ctx) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const msg = yield* messageOf(ctx.id, m.messageId)
        const now = yield* currentTime
        if (msg.direction !== 'out') return yield* Effect.fail(new UnsendRefused({ reason: 'incoming' }))
        if (msg.deleted_at !== null) return yield* Effect.fail(new UnsendRefused({ reason: 'deleted' }))
        const sentAt = (msg.sent_at ?? msg.created_at).getTime()
        if (now.getTime() - sentAt > UNSEND_WINDOW_MS) {
          return yield* Effect.fail(new UnsendRefused({ reason: 'window' }))
        }
        yield* Messages.unsend(msg.id, now)
        return [{ view: yield* publishMessage(ctx.id, msg.id, 'message.updated'), was: msg }, state] as const
      }),
    /** Sets (or with an empty emoji removes) the caller's reaction to a message. */
    React: (
      state: ConversationState,
      m: {
        readonly messageId: number
        readonly emoji: string
        readonly userId: number
        readonly name: string
      },
      ctx,
    ) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const msg = yield* messageOf(ctx.id, m.messageId)
        const others = msg.reactions.filter((r) => !(r.from === 'agent' && r.user_id === m.userId))
        const reactions =
          m.emoji === ''
            ? others
            : [...others, { emoji: m.emoji, from: 'agent', user_id: m.userId, name: m.name }]
        yield* Messages.setReactions(msg.id, reactions)
        return [{ view: yield* publishMessage(ctx.id, msg.id, 'message.updated'), was: msg }, state] as const
      }),
    /** Status, team, assignee, category and custom values in one change (PATCH /interactions/{id}). */
    Update: (state: ConversationState, m: { readonly patch: Conversations.ConversationPatch }, ctx) =>
      Effect.gen(function* () {
        const before = yield* existing(state, ctx.id)
        const now = yield* currentTime
        const updated = yield* fenced(state, ctx.id, Conversations.update(ctx.id, m.patch, now))
        // A change that counted on who holds the conversation, and someone else took it first.
        if (!updated && m.patch.ifAssignee !== undefined) {
          const current = yield* changed(yield* Conversations.byId(ctx.id), ctx.id)
          return yield* Effect.fail(new AlreadyPickedUp({ assigneeId: current.assignee_id ?? 0 }))
        }
        const row = yield* changed(updated, ctx.id)
        yield* publish(topics.conversation(row.id), 'interaction.updated', presentChange(row))
        yield* inboxChanged(row, 'updated')
        // Whoever may no longer see it is unsubscribed on every node.
        if (row.team_id !== before.team_id || row.assignee_id !== before.assignee_id) {
          yield* recheckTopic(topics.conversation(row.id))
        }
        return [row, { ...state, row: Conversations.hotRow(row) }] as const
      }),
    /** The live-chat pickup race: the first caller gets the conversation, later ones AlreadyPickedUp. */
    Pickup: (state: ConversationState, m: { readonly userId: number }, ctx) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const now = yield* currentTime
        const row = yield* fenced(state, ctx.id, Conversations.pickUp(ctx.id, m.userId, now))
        if (!row) {
          const current = yield* changed(yield* Conversations.byId(ctx.id), ctx.id)
          if (current.assignee_id === m.userId)
            return [current, { ...state, row: Conversations.hotRow(current) }] as const
          return yield* Effect.fail(new AlreadyPickedUp({ assigneeId: current.assignee_id ?? 0 }))
        }
        yield* publish(topics.conversation(row.id), 'interaction.updated', presentChange(row))
        yield* inboxChanged(row, 'picked_up')
        yield* recheckTopic(topics.conversation(row.id))
        return [row, { ...state, row: Conversations.hotRow(row) }] as const
      }),
    /** Saves the AI summary (spec 2 §4.1 `/summary`); `interaction.updated` says the summary changed. */
    SetSummary: (state: ConversationState, m: { readonly summary: string }, ctx) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const row = yield* changed(
          yield* fenced(state, ctx.id, Conversations.setSummary(ctx.id, m.summary)),
          ctx.id,
        )
        yield* publish(topics.conversation(row.id), 'interaction.updated', {
          ...presentChange(row),
          summary_changed: true,
        })
        return [row, { ...state, row: Conversations.hotRow(row) }] as const
      }),
    MarkRead: (state: ConversationState, _: unknown, ctx) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const row = yield* changed(yield* fenced(state, ctx.id, Conversations.markRead(ctx.id)), ctx.id)
        yield* inboxChanged(row, 'read')
        return [row, { ...state, row: Conversations.hotRow(row) }] as const
      }),
    SetStatus: (state: ConversationState, m: { readonly status: Conversations.ConversationStatus }, ctx) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const row = yield* changed(
          yield* fenced(state, ctx.id, Conversations.setStatus(ctx.id, m.status, yield* currentTime)),
          ctx.id,
        )
        yield* publish(topics.conversation(row.id), 'interaction.updated', presentChange(row))
        yield* inboxChanged(row, 'updated')
        return [row, { ...state, row: Conversations.hotRow(row) }] as const
      }),
    Assign: (
      state: ConversationState,
      m: { readonly teamId: number | null; readonly assigneeId: number | null },
      ctx,
    ) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const row = yield* changed(
          yield* fenced(
            state,
            ctx.id,
            Conversations.assign(ctx.id, m.teamId, m.assigneeId, yield* currentTime),
          ),
          ctx.id,
        )
        yield* publish(topics.conversation(row.id), 'interaction.updated', presentChange(row))
        yield* inboxChanged(row, 'updated')
        // Whoever may no longer see it is unsubscribed on every node.
        yield* recheckTopic(topics.conversation(row.id))
        return [row, { ...state, row: Conversations.hotRow(row) }] as const
      }),
    Typing: (
      state: ConversationState,
      m: {
        readonly userId: number
        readonly name: string
        readonly typing: boolean
        readonly nowMs?: number
      },
      ctx,
    ) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const now = m.nowMs ?? (yield* currentMillis)
        const typing = new Map([...state.typing].filter(([, until]) => until > now))
        const was = typing.has(m.userId)
        if (m.typing) typing.set(m.userId, now + TYPING_TTL_MS)
        else typing.delete(m.userId)
        // Repeated "still typing" calls only extend the expiry; the event goes out on changes.
        if (was !== m.typing) {
          yield* publish(topics.conversation(ctx.id), 'typing', {
            user_id: m.userId,
            name: m.name,
            typing: m.typing,
          })
        }
        return [[...typing.keys()], { ...state, typing }] as const
      }),
    /**
     * What the channel reports about a stored message: a delivery or read receipt (status only
     * moves forward), the service's late refusal of a sent message (failed, so it can be sent
     * again), the customer's edit, unsend or reaction (messaging-app numbers).
     */
    Remote: (
      state: ConversationState,
      m: { readonly messageId: number; readonly change: RemoteChange },
      ctx,
    ) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const msg = yield* messageOf(ctx.id, m.messageId)
        const c = m.change
        if (c.kind === 'status') {
          if ((RECEIPT_RANK[c.status] ?? 0) <= (RECEIPT_RANK[msg.status] ?? 0)) return [null, state] as const
          yield* Messages.setDelivery(ctx.id, msg.id, { status: c.status, error: null, externalId: null })
        } else if (c.kind === 'refused') {
          // Only a sent message that no receipt has moved on (a customer's message is never failed).
          if (msg.direction !== 'out' || msg.status !== 'sent') return [null, state] as const
          yield* Messages.setDelivery(ctx.id, msg.id, { status: 'failed', error: c.reason, externalId: null })
        } else if (c.kind === 'edit') {
          if (msg.deleted_at !== null) return [null, state] as const
          yield* Messages.edit(msg.id, c.body, yield* Effect.flatMap(WallClock, (k) => k.now))
        } else if (c.kind === 'unsend') {
          if (msg.deleted_at !== null) return [null, state] as const
          yield* Messages.unsend(msg.id, yield* Effect.flatMap(WallClock, (k) => k.now))
        } else {
          const others = msg.reactions.filter((r) => !(r.from === 'customer' && r.jid === c.jid))
          const reactions =
            c.emoji === ''
              ? others
              : [...others, { emoji: c.emoji, from: 'customer', jid: c.jid, name: c.name }]
          yield* Messages.setReactions(msg.id, reactions)
        }
        return [yield* publishMessage(ctx.id, msg.id, 'message.updated'), state] as const
      }),
    /** The customer is typing (or stopped); told to the conversation's subscribers, never stored. */
    RemoteTyping: (
      state: ConversationState,
      m: { readonly name: string | null; readonly typing: boolean },
      ctx,
    ) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        yield* publish(topics.conversation(ctx.id), 'typing', {
          user_id: null,
          name: m.name,
          typing: m.typing,
          customer: true,
        })
        return [null, state] as const
      }),
    /**
     * Moves the conversation from one contact to another (a contact merge): serialised with the
     * appends, so a message arriving meanwhile lands before the move or after it, on the target.
     */
    SetContact: (state: ConversationState, m: { readonly from: number; readonly to: number }, ctx) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const row = yield* fenced(state, ctx.id, Conversations.setContact(ctx.id, m.from, m.to))
        if (!row) return [null, state] as const
        yield* inboxChanged(row, 'contact')
        return [row, { ...state, row: Conversations.hotRow(row) }] as const
      }),
    /**
     * Deletes the conversation, its messages and the files only they used (a contact delete);
     * later asks find no conversation. Answers the storage keys of the files, to remove after.
     */
    Remove: (state: ConversationState, _: unknown, ctx) =>
      Effect.gen(function* () {
        const row = yield* existing(state, ctx.id)
        const keys = yield* fenced(state, ctx.id, Conversations.remove(ctx.id))
        if (keys === null) return yield* Effect.fail(new ConversationNotFound({ id: ctx.id }))
        yield* inboxChanged(row, 'deleted')
        yield* recheckTopic(topics.conversation(row.id))
        return [keys, { ...state, row: null }] as const
      }),
    /** Who is typing now (read from memory). */
    WhoIsTyping: (state: ConversationState, m: { readonly nowMs?: number }) => {
      return Effect.map(
        m.nowMs === undefined ? currentMillis : Effect.succeed(m.nowMs),
        (now) => [[...state.typing].filter(([, until]) => until > now).map(([id]) => id), state] as const,
      )
    },
  },
})

export class ConversationActor extends Actor.Tag('kotak/ConversationActor')<
  ConversationActor,
  typeof definition
>() {}

export const layer = Actor.layer(ConversationActor, definition)

/**
 * Runs the active label rules of a conversation's messaging-app number for a label just applied
 * on the phone (spec 2 §4.2); the messaging-app connector calls this when the phone reports it.
 * Each action goes through the usual writer: contact labels in the store, team and status
 * through this actor. Returns the actions applied, in rule order.
 */
export const applyLabelRules = (conversationId: number, labelName: string) =>
  Effect.gen(function* () {
    const c = yield* Conversations.byId(conversationId)
    if (!c || c.channel_id === null) return [] as LabelRules.RuleAction[]
    const rules = yield* LabelRules.matching(c.channel_id, labelName)
    const actor = yield* ConversationActor
    const applied: LabelRules.RuleAction[] = []
    for (const r of rules) {
      if (r.action === 'contact_label') {
        if (c.contact_id === null || r.value === null) continue
        yield* Contacts.addLabel(c.contact_id, r.value)
        yield* publish(topics.workspace(c.workspace_id), 'contacts.changed', {
          contact_id: c.contact_id,
          reason: 'labels',
        })
      } else if (r.action === 'assign_team') {
        if (r.value === null) continue
        // The assignee stays only if they belong to the new team (or are an admin).
        let assigneeId = c.assignee_id
        if (assigneeId !== null) {
          const who = yield* Assignees.assignableOne(c.workspace_id, c.channel_id, assigneeId)
          if (!who || (!who.is_admin && !who.team_ids.includes(r.value))) assigneeId = null
        }
        yield* actor.ask(c.id, { _tag: 'Update', patch: { teamId: r.value, assigneeId } })
      } else {
        yield* actor.ask(c.id, { _tag: 'Update', patch: { status: 'solved' } })
      }
      applied.push(r.action)
    }
    return applied
  })
