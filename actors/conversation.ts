import { Data, Effect } from 'effect'
import * as Actor from '../engine/actor/Actor'
import { publishEvent, recheckTopic } from '../engine/events'
import { iso } from '../engine/time'
import * as Conversations from '../store/conversations'

/**
 * ConversationActor: the single writer of a conversation. Orders its messages (gap-free
 * sequence), applies status and assignment changes, holds typing in memory, and publishes each
 * change after it is committed. Domain issues add pickup, edit and unsend windows here.
 */
export class ConversationNotFound extends Data.TaggedError('ConversationNotFound')<{ readonly id: number }> {}

/** Typing indicators expire on their own; nothing about typing is ever written to the database. */
export const TYPING_TTL_MS = 6_000

export interface ConversationState {
  readonly row: Conversations.ConversationRow | null
  /** user id → expiry (epoch ms) of their typing indicator. */
  readonly typing: ReadonlyMap<number, number>
}

export const topicOf = (id: number) => `conv:${id}`

/** The message resource of spec 2 §2 (also the payload of `message.created`). */
export const presentMessage = (m: Conversations.MessageRow) => ({
  id: m.id,
  interaction_id: m.conversation_id,
  seq: m.seq,
  direction: m.direction,
  type: m.type,
  body: m.body,
  media: null,
  reply_to: null,
  sender: { name: null, user_id: null, jid: null, ...m.sender },
  status: m.status,
  error: m.error,
  reactions: [],
  sent_at: iso(m.sent_at),
  created_at: iso(m.created_at),
})

const presentConversation = (c: Conversations.ConversationRow) => ({
  id: c.id,
  status: c.status,
  team_id: c.team_id,
  assignee_id: c.assignee_id,
  channel_id: c.channel_id,
  updated_at: iso(c.updated_at),
})

const existing = (state: ConversationState, id: number) =>
  state.row ? Effect.succeed(state.row) : Effect.fail(new ConversationNotFound({ id }))

export const definition = Actor.define({
  name: 'conversation',
  load: (id: number) =>
    Effect.map(Conversations.byId(id), (row): ConversationState => ({ row, typing: new Map() })),
  idleMs: 5 * 60_000,
  handlers: {
    Append: (state: ConversationState, m: Conversations.NewMessage, ctx) =>
      Effect.gen(function* () {
        const row = yield* existing(state, ctx.id)
        const result = yield* Conversations.append(row.id, m)
        if (!result) return yield* Effect.fail(new ConversationNotFound({ id: ctx.id }))
        if (result.created) {
          yield* publishEvent(topicOf(row.id), 'message.created', presentMessage(result.message))
        }
        const next: ConversationState = {
          ...state,
          row: { ...row, last_seq: Math.max(row.last_seq, result.message.seq) },
        }
        return [result.message, next] as const
      }),
    SetStatus: (
      state: ConversationState,
      m: { readonly status: Conversations.ConversationRow['status'] },
      ctx,
    ) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const row = yield* Conversations.setStatus(ctx.id, m.status)
        if (!row) return yield* Effect.fail(new ConversationNotFound({ id: ctx.id }))
        yield* publishEvent(topicOf(row.id), 'interaction.updated', presentConversation(row))
        return [row, { ...state, row }] as const
      }),
    Assign: (
      state: ConversationState,
      m: { readonly teamId: number | null; readonly assigneeId: number | null },
      ctx,
    ) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const row = yield* Conversations.assign(ctx.id, m.teamId, m.assigneeId)
        if (!row) return yield* Effect.fail(new ConversationNotFound({ id: ctx.id }))
        yield* publishEvent(topicOf(row.id), 'interaction.updated', presentConversation(row))
        // Whoever may no longer see it is unsubscribed on every node.
        yield* recheckTopic(topicOf(row.id))
        return [row, { ...state, row }] as const
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
        const now = m.nowMs ?? Date.now()
        const typing = new Map([...state.typing].filter(([, until]) => until > now))
        const was = typing.has(m.userId)
        if (m.typing) typing.set(m.userId, now + TYPING_TTL_MS)
        else typing.delete(m.userId)
        // Repeated "still typing" calls only extend the expiry; the event goes out on changes.
        if (was !== m.typing) {
          yield* publishEvent(topicOf(ctx.id), 'typing', {
            user_id: m.userId,
            name: m.name,
            typing: m.typing,
          })
        }
        return [[...typing.keys()], { ...state, typing }] as const
      }),
    /** Who is typing now (read from memory). */
    WhoIsTyping: (state: ConversationState, m: { readonly nowMs?: number }) => {
      const now = m.nowMs ?? Date.now()
      return Effect.succeed([
        [...state.typing].filter(([, until]) => until > now).map(([id]) => id),
        state,
      ] as const)
    },
  },
})

export class ConversationActor extends Actor.Tag('kotak/ConversationActor')<
  ConversationActor,
  typeof definition
>() {}

export const layer = Actor.layer(ConversationActor, definition)
