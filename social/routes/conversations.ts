import { Effect, Schema } from 'effect'
import { invalid, notFound } from '../../actors/errors'
import { DateParam, IdParam, PageParam, TypeParam } from '../query'
import { envelope, keyRoute, PAGE_SIZE, pageMeta } from '../route'
import { conversationStatuses } from '../state'
import * as Conversations from '../store/conversations'
import { ticketCode } from '../ticketCode'
import { endOfDay, iso, startOfDay } from '../time'

/** Spec 3 §4: `GET /api/v1/conversations` and `GET /api/v1/conversations/{id}`. */

const ListQuery = Schema.Struct({
  status: Schema.optional(Schema.Literal(...conversationStatuses)),
  channel: Schema.optional(IdParam),
  type: Schema.optional(TypeParam),
  from: Schema.optional(DateParam),
  to: Schema.optional(DateParam),
  page: Schema.optional(PageParam),
})

const ticketBrief = (t: Conversations.TicketBrief) => ({
  number: t.number,
  code: ticketCode(t.number),
  subject: t.subject,
  status: t.status,
  priority: t.priority,
})

export const item = (r: Conversations.ConversationRow) => ({
  id: r.id,
  channel: { id: r.channel_id, username: r.channel_username },
  type: r.type,
  status: r.status,
  contact: { username: r.contact_username },
  category: r.category,
  labels: r.labels,
  tags: r.tags,
  assignee: r.assignee,
  first_response_secs: r.first_response_secs,
  reopened_count: r.reopened_count,
  tickets: r.tickets.map(ticketBrief),
  created_at: iso(r.created_at),
  last_message_at: iso(r.last_message_at),
  solved_at: iso(r.solved_at),
  closed_at: iso(r.closed_at),
})

const message = (m: Conversations.MessageRow) => ({
  id: m.id,
  direction: m.direction,
  author: m.author,
  text: m.text,
  media_type: m.media_type,
  attachments: m.attachments,
  status: m.status,
  permalink: m.permalink,
  posted_at: iso(m.posted_at),
})

const note = (n: Conversations.NoteRow) => ({
  body: n.body,
  author: n.author,
  source: n.source,
  ticket: n.ticket_number === null ? null : { number: n.ticket_number, code: ticketCode(n.ticket_number) },
  created_at: iso(n.created_at),
})

/** A conversation id in the path: a positive integer, else it names nothing (404). */
const idOf = (raw: string | undefined): number | null => {
  if (!raw || !/^[1-9]\d{0,15}$/.test(raw)) return null
  const n = Number(raw)
  return Number.isSafeInteger(n) ? n : null
}

export const routes = [
  keyRoute({
    method: 'GET',
    path: '/api/v1/conversations',
    query: ListQuery,
    handler: (req) =>
      Effect.gen(function* () {
        const q = req.query
        if (q.from && q.to && q.to < q.from) {
          return yield* Effect.fail(invalid({ to: { key: 'social.field.date_order' } }))
        }
        const page = q.page ?? 1
        const { rows, total } = yield* Conversations.list(
          req.workspaceId,
          {
            status: q.status,
            channelId: q.channel,
            type: q.type,
            from: q.from ? startOfDay(q.from) : undefined,
            to: q.to ? endOfDay(q.to) : undefined,
          },
          PAGE_SIZE,
          (page - 1) * PAGE_SIZE,
        )
        return envelope(rows.map(item), pageMeta(page, total))
      }),
  }),
  keyRoute({
    method: 'GET',
    path: '/api/v1/conversations/{id}',
    handler: (req) =>
      Effect.gen(function* () {
        const id = idOf(req.params.id)
        if (id === null) return yield* Effect.fail(notFound())
        const found = yield* Conversations.detail(req.workspaceId, id)
        if (!found) return yield* Effect.fail(notFound())
        const { row, messages, notes } = found
        return envelope({
          ...item(row),
          context: {
            text: row.context_text,
            username: row.context_username,
            permalink: row.context_permalink,
          },
          messages: messages.map(message),
          notes: notes.map(note),
        })
      }),
  }),
]
