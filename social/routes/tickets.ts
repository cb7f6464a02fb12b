import { Effect, Schema } from 'effect'
import { notFound } from '../../actors/errors'
import { PageParam } from '../query'
import { envelope, keyRoute, PAGE_SIZE, pageMeta } from '../route'
import * as Tickets from '../store/tickets'
import { parseTicketRef, ticketCode } from '../ticketCode'
import { iso } from '../time'

/** Spec 3 §4: `GET /api/v1/tickets` and `GET /api/v1/tickets/{number}`. */

const ListQuery = Schema.Struct({
  status: Schema.optional(Schema.Literal(...Tickets.ticketStatuses)),
  page: Schema.optional(PageParam),
})

const item = (t: Tickets.TicketRow) => ({
  number: t.number,
  code: ticketCode(t.number),
  subject: t.subject,
  status: t.status,
  priority: t.priority,
  conversation_id: t.conversation_id,
  assignees: t.assignees,
  due_at: iso(t.due_at),
  created_at: iso(t.created_at),
  resolved_at: iso(t.resolved_at),
  closed_at: iso(t.closed_at),
})

export const routes = [
  keyRoute({
    method: 'GET',
    path: '/api/v1/tickets',
    query: ListQuery,
    handler: (req) =>
      Effect.gen(function* () {
        const page = req.query.page ?? 1
        const { rows, total } = yield* Tickets.list(
          req.workspaceId,
          req.query.status,
          PAGE_SIZE,
          (page - 1) * PAGE_SIZE,
        )
        return envelope(rows.map(item), pageMeta(page, total))
      }),
  }),
  keyRoute({
    method: 'GET',
    path: '/api/v1/tickets/{number}',
    handler: (req) =>
      Effect.gen(function* () {
        const number = parseTicketRef(req.params.number ?? '')
        if (number === null) return yield* Effect.fail(notFound())
        const found = yield* Tickets.detail(req.workspaceId, number)
        if (!found) return yield* Effect.fail(notFound())
        return envelope({
          ...item(found.row),
          description: found.row.description,
          discussion: found.discussion.map((c) => ({
            id: c.id,
            author: c.author,
            body: c.body,
            created_at: iso(c.created_at),
          })),
        })
      }),
  }),
]
