import type { SqlClient } from '@effect/sql/SqlClient'
import type { SqlError } from '@effect/sql/SqlError'
import type { Effect } from 'effect'
import { Context, Schema } from 'effect'
import type { WorkspaceRow } from '../../store/workspaces'
import type { Caller } from '../admin/caller'

/**
 * The tickets a conversation shows (spec 2 §2 `tickets`), as a port: the inbox needs them in every
 * conversation detail, the tickets area owns how they are found and presented, and the tickets
 * area already builds on the inbox (raising a ticket cites the conversation's messages). So the
 * inbox declares the shape and the port here, and actors/tickets/conversationSide.ts implements
 * it (provided beside the actors, actors/index.ts): the areas import each other one way only.
 */

const Str = Schema.String
const NStr = Schema.NullOr(Schema.String)
const Num = Schema.Number

export const TicketPersonSchema = Schema.Struct({ id: Num, name: Str, avatar_url: NStr })
export const TicketActorSchema = Schema.Struct({
  name: Str,
  user_id: Schema.NullOr(Num),
  key_id: Schema.NullOr(Num),
})
export const TicketSlaSchema = Schema.NullOr(
  Schema.Struct({
    level: Schema.NullOr(Schema.Literal('warn', 'breach')),
    target_minutes: Num,
    minutes: Num,
    due_at: NStr,
  }),
)
export const TicketUpdateRequestSchema = Schema.NullOr(
  Schema.Struct({ requested_at: NStr, by: Schema.NullOr(TicketActorSchema) }),
)

export const TicketMessageSchema = Schema.Struct({
  id: Num,
  ticket_id: Num,
  seq: Num,
  kind: Schema.Literal('comment', 'conversation', 'update_request', 'conclusion'),
  body: Str,
  sender: Schema.NullOr(TicketActorSchema),
  mentions: Schema.Array(Schema.Struct({ id: Num, name: Str })),
  files: Schema.Array(Schema.Struct({ index: Num, name: Str, mime: Str, size: Num, url: Str })),
  feedback: Schema.NullOr(Schema.Struct({ sent_at: NStr, note_id: Schema.NullOr(Num) })),
  created_at: NStr,
}).annotations({ identifier: 'TicketMessage' })

export const TicketBriefSchema = Schema.Struct({
  id: Num,
  number: Num,
  subject: Str,
  status: Str,
  priority: Str,
  due_date: NStr,
  active: Schema.Boolean,
  can_open: Schema.Boolean,
  assignees: Schema.Array(TicketPersonSchema),
  update_request: TicketUpdateRequestSchema,
  sla: TicketSlaSchema,
  thread: Schema.Struct({
    team: Schema.Struct({ id: Num, name: Str }),
    messages: Schema.Array(TicketMessageSchema),
  }),
  created_at: NStr,
  updated_at: NStr,
}).annotations({ identifier: 'TicketBrief' })

export type TicketBrief = Schema.Schema.Type<typeof TicketBriefSchema>

/** The caller a conversation is shown to (actors/inbox/conversations.ts `Ctx`). */
export interface Ctx {
  readonly caller: Caller
  readonly workspace: WorkspaceRow
}

export interface ConversationTicketsShape {
  /** Every ticket raised in the conversation, as `ctx`'s caller is shown it at `now`. */
  readonly ofConversation: (
    ctx: Ctx,
    conversationId: number,
    now: Date,
  ) => Effect.Effect<ReadonlyArray<TicketBrief>, SqlError, SqlClient>
}

export class ConversationTickets extends Context.Tag('kotak/ConversationTickets')<
  ConversationTickets,
  ConversationTicketsShape
>() {}
