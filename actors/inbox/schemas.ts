import { Schema } from 'effect'
import { FieldValueSchema } from '../customValues'
import { TicketBriefSchema } from './conversationTickets'

/**
 * The response schemas of the conversation and message resources, for the OpenAPI document (and
 * through it the app's generated types): what `presentItem` / `presentDetail` (conversations.ts)
 * and `presentMessage` (ConversationActor.ts) return. test/inbox decodes real responses with them,
 * excess properties refused, so a presenter change that is not mirrored here fails there.
 */
const Str = Schema.String
const NStr = Schema.NullOr(Schema.String)
const Num = Schema.Number
const NNum = Schema.NullOr(Schema.Number)
const Named = Schema.Struct({ id: Num, name: Str })

const ItemContact = Schema.Struct({ id: Num, name: Str, avatar_url: NStr })

const itemFields = {
  id: Num,
  kind: Schema.Literal('chat', 'group'),
  status: Schema.Literal('open', 'solved', 'closed'),
  reply_state: Schema.Literal('new', 'waiting', 'replied'),
  sla: Schema.NullOr(Schema.Struct({ level: Schema.Literal('warn', 'breach'), minutes: Num, due_at: Str })),
  subject: NStr,
  preview: NStr,
  unread_count: Num,
  channel: Schema.NullOr(
    Schema.Struct({
      id: Num,
      type: Schema.NullOr(Schema.Literal('msgapp', 'email', 'livechat', 'api')),
      name: Str,
    }),
  ),
  contact: Schema.NullOr(ItemContact),
  group: Schema.NullOr(Named),
  team: Schema.NullOr(Named),
  assignee: Schema.NullOr(Schema.Struct({ id: Num, name: Str, avatar_url: NStr })),
  category: Schema.NullOr(Named),
  picked_up: Schema.Boolean,
  last_message_at: NStr,
  // Stored NOT NULL: `iso` only widens them to null by its signature.
  created_at: Str,
  updated_at: Str,
}

/** A conversation as a list item (`GET /v1/interactions`). */
export const InteractionItemSchema = Schema.Struct({
  ...itemFields,
  /**
   * Only with `q`: the newest message holding the searched words and a plain-text fragment
   * around them; null when the conversation matched by its contact, subject or id instead.
   */
  match: Schema.optional(Schema.NullOr(Schema.Struct({ message_id: Num, snippet: Str }))),
}).annotations({ identifier: 'InteractionItem' })

/** A custom field with its value (actors/customValues `withValues`). */
const CustomFieldValue = FieldValueSchema

/** The detail (`GET /v1/interactions/{id}`): the contact's details only with `contacts.view`. */
export const InteractionSchema = Schema.Struct({
  ...itemFields,
  contact: Schema.NullOr(
    Schema.Struct({
      ...ItemContact.fields,
      details: Schema.optional(
        Schema.Struct({
          phone: NStr,
          email: NStr,
          labels: Schema.Array(Schema.Struct({ id: Num, name: Str, color: Str })),
        }),
      ),
      custom_fields: Schema.optional(Schema.Array(CustomFieldValue)),
    }),
  ),
  response_times: Schema.Struct({
    first_message_at: NStr,
    first_response_at: NStr,
    first_response_seconds: NNum,
    first_response_minutes: NNum,
    waiting_since: NStr,
    last_in_at: NStr,
    last_out_at: NStr,
  }),
  custom_fields: Schema.Array(CustomFieldValue),
  notes_count: Num,
  tickets: Schema.Array(TicketBriefSchema),
  ai_summary: NStr,
  feedback_seen_at: NStr,
  feedback_unseen: Num,
}).annotations({ identifier: 'Interaction' })

/** Payload-derived parts keep whatever the channel stored besides the fields named here. */
const Extra = Schema.Record({ key: Str, value: Schema.Unknown })

/** The message resource (`GET /v1/interactions/{id}/messages`, `message.created` / `message.updated`). */
export const MessageSchema = Schema.Struct({
  id: Num,
  interaction_id: Num,
  seq: Num,
  direction: Schema.Literal('in', 'out'),
  type: Str,
  body: Str,
  media: Schema.NullOr(Schema.Struct({ url: Str, name: NStr, mime: NStr, size: NNum })),
  reply_to: Schema.NullOr(
    Schema.Struct({
      id: Num,
      type: NStr,
      direction: Schema.NullOr(Schema.Literal('in', 'out')),
      body: Str,
      sender: Schema.Struct({ name: NStr }),
    }),
  ),
  location: Schema.NullOr(
    Schema.Struct(
      {
        latitude: Schema.optional(NNum),
        longitude: Schema.optional(NNum),
        name: Schema.optional(NStr),
        address: Schema.optional(NStr),
      },
      Extra,
    ),
  ),
  shared_contact: Schema.NullOr(
    Schema.Struct(
      {
        name: Schema.optional(Str),
        phone: Schema.optional(NStr),
        email: Schema.optional(NStr),
      },
      Extra,
    ),
  ),
  email: Schema.NullOr(
    Schema.Struct({
      subject: NStr,
      html: NStr,
      cc: Schema.Array(Str),
      reply_all: Schema.Boolean,
      attachments: Schema.Array(Schema.Struct({ index: Num, name: Str, mime: NStr, size: Num, url: Str })),
    }),
  ),
  template_id: NNum,
  source: NStr,
  sender: Schema.Struct({ name: NStr, user_id: NNum, jid: NStr }),
  status: Str,
  error: NStr,
  reactions: Schema.Array(
    Schema.Struct({
      emoji: Str,
      from: Str,
      user_id: Schema.optional(Num),
      jid: Schema.optional(NStr),
      name: Schema.optional(NStr),
    }),
  ),
  client_id: NStr,
  edited_at: NStr,
  deleted_at: NStr,
  sent_at: NStr,
  created_at: Str,
}).annotations({ identifier: 'Message' })
