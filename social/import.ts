import { SqlClient } from '@effect/sql'
import { Effect, Either, ParseResult, Schema } from 'effect'
import { conversationStatuses } from './state'
import * as Channels from './store/channels'
import * as Records from './store/records'
import { priorities, ticketStatuses } from './store/tickets'
import { inRange } from './time'

/**
 * The NDJSON import: one JSON record a line, each with a `kind` and the source's `id`. Records
 * refer to each other by those ids, in any order within a file or to records of earlier imports.
 * Writing is idempotent: a record already imported (same kind and id) is updated in place, so
 * running the same file twice leaves the data as after the first run. Lines that do not decode
 * or refer to something unknown are refused and reported; the rest is written in one transaction.
 * The format is documented in docs/decisions-social.md ("Import").
 */

const Text = (max: number) => Schema.String.pipe(Schema.maxLength(max))
const SourceId = Schema.Union(Schema.String, Schema.Number).pipe(
  Schema.transform(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)), {
    strict: true,
    decode: (v) => String(v),
    encode: (s) => s,
  }),
)
const Timestamp = Schema.String.pipe(
  Schema.filter(
    (s) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/.test(s) &&
      !Number.isNaN(Date.parse(s)),
    { message: () => 'must be an ISO 8601 timestamp with an offset, such as 2026-05-01T09:30:00+07:00' },
  ),
  Schema.filter((s) => inRange(new Date(s)), {
    message: () => 'must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59+07:00',
  }),
)
const Strings = Schema.Array(Text(100))
const opt = Schema.optional

const ChannelRecord = Schema.Struct({
  kind: Schema.Literal('channel'),
  id: SourceId,
  username: Text(100),
  platform: opt(Schema.Literal('instagram')),
})
const ConversationRecord = Schema.Struct({
  kind: Schema.Literal('conversation'),
  id: SourceId,
  channel: SourceId,
  type: Schema.Literal('reply', 'mention'),
  contact: Text(100),
  created_at: Timestamp,
  category: opt(Schema.NullOr(Text(100))),
  labels: opt(Strings),
  tags: opt(Strings),
  assignee: opt(Schema.NullOr(Text(100))),
  context: opt(
    Schema.NullOr(
      Schema.Struct({
        text: opt(Schema.NullOr(Text(10_000))),
        username: opt(Schema.NullOr(Text(100))),
        permalink: opt(Schema.NullOr(Text(2_000))),
      }),
    ),
  ),
})
const MessageRecord = Schema.Struct({
  kind: Schema.Literal('message'),
  id: SourceId,
  conversation: SourceId,
  direction: Schema.Literal('in', 'out'),
  author: Text(100),
  text: opt(Text(10_000)),
  media_type: opt(Text(30)),
  attachments: opt(Schema.Array(Schema.Struct({ type: Text(30), url: Text(2_000) }))),
  status: opt(Schema.Literal('received', 'hidden', 'published', 'pending', 'failed')),
  permalink: opt(Schema.NullOr(Text(2_000))),
  posted_at: Timestamp,
})
const StatusRecord = Schema.Struct({
  kind: Schema.Literal('status_change'),
  id: SourceId,
  conversation: SourceId,
  status: Schema.Literal(...conversationStatuses),
  author: opt(Schema.NullOr(Text(100))),
  changed_at: Timestamp,
})
/** The highest ticket number the column holds (a PostgreSQL `integer`). */
const MAX_TICKET_NUMBER = 2_147_483_647
const TicketRecord = Schema.Struct({
  kind: Schema.Literal('ticket'),
  id: SourceId,
  conversation: SourceId,
  number: opt(Schema.Number.pipe(Schema.int(), Schema.between(1, MAX_TICKET_NUMBER))),
  subject: Text(300),
  description: opt(Text(20_000)),
  status: opt(Schema.Literal(...ticketStatuses)),
  priority: opt(Schema.Literal(...priorities)),
  assignees: opt(Strings),
  due_at: opt(Schema.NullOr(Timestamp)),
  created_at: Timestamp,
  resolved_at: opt(Schema.NullOr(Timestamp)),
  closed_at: opt(Schema.NullOr(Timestamp)),
})
const TicketCommentRecord = Schema.Struct({
  kind: Schema.Literal('ticket_comment'),
  id: SourceId,
  ticket: SourceId,
  author: Text(100),
  body: Text(20_000),
  created_at: Timestamp,
})
const NoteRecord = Schema.Struct({
  kind: Schema.Literal('note'),
  id: SourceId,
  conversation: SourceId,
  body: Text(20_000),
  author: Text(100),
  source: opt(Text(30)),
  ticket: opt(Schema.NullOr(SourceId)),
  created_at: Timestamp,
})

const schemas = {
  channel: ChannelRecord,
  conversation: ConversationRecord,
  message: MessageRecord,
  status_change: StatusRecord,
  ticket: TicketRecord,
  ticket_comment: TicketCommentRecord,
  note: NoteRecord,
} as const

export type Kind = keyof typeof schemas
export const kinds = Object.keys(schemas) as Kind[]

export type ImportRecord = { [K in Kind]: Schema.Schema.Encoded<(typeof schemas)[K]> }[Kind]
type Decoded<K extends Kind> = Schema.Schema.Type<(typeof schemas)[K]>

interface Line<K extends Kind> {
  readonly line: number
  readonly record: Decoded<K>
}

export interface LineError {
  readonly line: number
  readonly message: string
}

export interface ImportReport {
  readonly lines: number
  readonly created: Record<Kind, number>
  readonly updated: Record<Kind, number>
  readonly refused: number
  /** The first refused lines with the reason. */
  readonly errors: readonly LineError[]
}

const MAX_ERRORS = 100
const BATCH = 500

const describe = (e: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(e)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ')

type Parsed = { [K in Kind]: Map<string, Line<K>> }

/** Decodes every non-empty line; a later record with the same kind and id replaces an earlier one. */
export const parse = (text: string): { parsed: Parsed; lines: number; errors: LineError[] } => {
  const parsed = Object.fromEntries(kinds.map((k) => [k, new Map()])) as Parsed
  const errors: LineError[] = []
  const rows = text.split(/\r?\n/)
  let lines = 0
  rows.forEach((raw, i) => {
    const line = i + 1
    if (raw.trim() === '') return
    lines++
    let json: unknown
    try {
      json = JSON.parse(raw)
    } catch {
      errors.push({ line, message: 'not valid JSON' })
      return
    }
    const kind = (json as { kind?: unknown } | null)?.kind
    if (typeof kind !== 'string' || !(kinds as readonly string[]).includes(kind)) {
      errors.push({ line, message: `kind must be one of: ${kinds.join(', ')}` })
      return
    }
    const decoded = Schema.decodeUnknownEither(schemas[kind as Kind] as Schema.Schema<unknown, unknown>)(
      json,
      {
        errors: 'all',
        onExcessProperty: 'ignore',
      },
    )
    if (Either.isLeft(decoded)) {
      errors.push({ line, message: describe(decoded.left) })
      return
    }
    const record = decoded.right as { id: string }
    ;(parsed[kind as Kind] as Map<string, Line<Kind>>).set(record.id, { line, record } as Line<Kind>)
  })
  return { parsed, lines, errors }
}

const chunks = <T>(xs: readonly T[]): T[][] => {
  const out: T[][] = []
  for (let i = 0; i < xs.length; i += BATCH) out.push(xs.slice(i, i + BATCH))
  return out
}

const iso = (s: string | null | undefined): string | null => (s ? new Date(s).toISOString() : null)

/** Imports NDJSON text into a workspace. */
export const importNdjson = (workspaceId: number, text: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const { parsed, lines, errors } = parse(text)
        const created = Object.fromEntries(kinds.map((k) => [k, 0])) as Record<Kind, number>
        const updated = Object.fromEntries(kinds.map((k) => [k, 0])) as Record<Kind, number>
        const count = (kind: Kind, written: readonly Records.Written[]) => {
          for (const w of written) {
            if (w.inserted) created[kind]++
            else updated[kind]++
          }
        }
        const refuse = (line: number, message: string) => errors.push({ line, message })
        yield* Records.lockWorkspace(workspaceId)

        // Channels: the platform account ids of this workspace.
        const channelIds = new Map((yield* Channels.list(workspaceId)).map((c) => [c.external_id, c.id]))
        for (const { line, record } of parsed.channel.values()) {
          const existed = channelIds.has(record.id)
          const row = yield* Channels.upsert(workspaceId, record.id, record.username).pipe(
            Effect.catchTag('AccountTaken', (e) =>
              Effect.sync(() => {
                refuse(line, `account ${record.id} belongs to workspace ${e.workspaceId}`)
                return null
              }),
            ),
          )
          if (!row) continue
          channelIds.set(record.id, row.id)
          if (existed) updated.channel++
          else created.channel++
        }

        // Source ids of conversations and tickets referred to, resolved once.
        const conversationIds = yield* Records.idsOf('conversations', workspaceId, [
          ...new Set(
            [...parsed.message.values(), ...parsed.status_change.values(), ...parsed.note.values()]
              .map((l) => l.record.conversation)
              .concat([...parsed.ticket.values()].map((l) => l.record.conversation)),
          ),
        ])
        const touched = new Set<number>()

        const conversations = [...parsed.conversation.values()].flatMap(({ line, record: r }) => {
          const channel = channelIds.get(r.channel)
          if (channel === undefined) {
            refuse(
              line,
              `channel ${r.channel} is not an account of this workspace (import a channel record first)`,
            )
            return []
          }
          return [
            {
              external_id: r.id,
              channel_id: channel,
              type: r.type,
              contact_username: r.contact,
              category: r.category ?? null,
              labels: r.labels ?? [],
              tags: r.tags ?? [],
              assignee: r.assignee ?? null,
              context_text: r.context?.text ?? null,
              context_username: r.context?.username ?? null,
              context_permalink: r.context?.permalink ?? null,
              created_at: iso(r.created_at)!,
            } satisfies Records.ConversationInput,
          ]
        })
        for (const batch of chunks(conversations)) {
          const written = yield* Records.upsertConversations(workspaceId, batch)
          count('conversation', written)
          for (const w of written) {
            conversationIds.set(w.external_id, w.id)
            touched.add(w.id)
          }
        }

        const conversationOf = (line: number, ref: string): number | null => {
          const id = conversationIds.get(ref)
          if (id === undefined) refuse(line, `unknown conversation ${ref}`)
          return id ?? null
        }

        // Tickets: explicit numbers first, then the next free numbers in file order.
        const numbers = yield* Records.ticketNumbers(workspaceId)
        const numberOf = new Map([...numbers].map(([n, ext]) => [ext, n]))
        // A loop, not Math.max(...numbers): spread as arguments, 120,000 numbers overflow the stack.
        let next = 1
        for (const n of numbers.keys()) if (n >= next) next = n + 1
        const ticketLines = [...parsed.ticket.values()].sort(
          (a, b) =>
            Number(a.record.number === undefined) - Number(b.record.number === undefined) || a.line - b.line,
        )
        const tickets: Records.TicketInput[] = []
        for (const { line, record: r } of ticketLines) {
          const conversation = conversationOf(line, r.conversation)
          if (conversation === null) continue
          let number = r.number ?? numberOf.get(r.id)
          if (number !== undefined && numbers.has(number) && numbers.get(number) !== r.id) {
            refuse(line, `ticket number ${number} is already ticket ${numbers.get(number)}`)
            continue
          }
          if (number === undefined) {
            while (numbers.has(next)) next++
            if (next > MAX_TICKET_NUMBER) {
              refuse(
                line,
                `no ticket number is left after ${MAX_TICKET_NUMBER}: give this ticket a free number`,
              )
              continue
            }
            number = next
          }
          numbers.set(number, r.id)
          numberOf.set(r.id, number)
          tickets.push({
            external_id: r.id,
            number,
            conversation_id: conversation,
            subject: r.subject,
            description: r.description ?? '',
            status: r.status ?? 'open',
            priority: r.priority ?? 'normal',
            assignees: r.assignees ?? [],
            due_at: iso(r.due_at),
            created_at: iso(r.created_at)!,
            resolved_at: iso(r.resolved_at),
            closed_at: iso(r.closed_at),
          })
        }
        const ticketIds = yield* Records.idsOf('tickets', workspaceId, [
          ...new Set(
            [...parsed.ticket_comment.values()]
              .map((l) => l.record.ticket)
              .concat([...parsed.note.values()].flatMap((l) => (l.record.ticket ? [l.record.ticket] : []))),
          ),
        ])
        for (const batch of chunks(tickets)) {
          const written = yield* Records.upsertTickets(workspaceId, batch)
          count('ticket', written)
          for (const w of written) ticketIds.set(w.external_id, w.id)
        }

        const messages = [...parsed.message.values()].flatMap(({ line, record: r }) => {
          const conversation = conversationOf(line, r.conversation)
          if (conversation === null) return []
          const status = r.status ?? (r.direction === 'in' ? 'received' : 'published')
          if ((r.direction === 'in') !== (status === 'received' || status === 'hidden')) {
            refuse(
              line,
              `status ${status} does not fit direction ${r.direction} (in: received, hidden; out: published, pending, failed)`,
            )
            return []
          }
          return [
            {
              external_id: r.id,
              conversation_id: conversation,
              direction: r.direction,
              author: r.author,
              text: r.text ?? '',
              media_type: r.media_type ?? 'text',
              attachments: r.attachments ?? [],
              status,
              permalink: r.permalink ?? null,
              posted_at: iso(r.posted_at)!,
            } satisfies Records.MessageInput,
          ]
        })
        for (const batch of chunks(messages)) {
          const written = yield* Records.upsertMessages(workspaceId, batch)
          count('message', written)
          for (const w of written) touched.add(w.conversation_id)
        }

        const changes = [...parsed.status_change.values()].flatMap(({ line, record: r }) => {
          const conversation = conversationOf(line, r.conversation)
          if (conversation === null) return []
          return [
            {
              external_id: r.id,
              conversation_id: conversation,
              status: r.status,
              author: r.author ?? null,
              changed_at: iso(r.changed_at)!,
            } satisfies Records.StatusChangeInput,
          ]
        })
        for (const batch of chunks(changes)) {
          const written = yield* Records.upsertStatusChanges(workspaceId, batch)
          count('status_change', written)
          for (const w of written) touched.add(w.conversation_id)
        }

        const notes = [...parsed.note.values()].flatMap(({ line, record: r }) => {
          const conversation = conversationOf(line, r.conversation)
          if (conversation === null) return []
          const ticket = r.ticket ? ticketIds.get(r.ticket) : null
          if (ticket === undefined) {
            refuse(line, `unknown ticket ${r.ticket}`)
            return []
          }
          return [
            {
              external_id: r.id,
              conversation_id: conversation,
              body: r.body,
              author: r.author,
              source: r.source ?? 'manual',
              ticket_id: ticket,
              created_at: iso(r.created_at)!,
            } satisfies Records.NoteInput,
          ]
        })
        for (const batch of chunks(notes)) count('note', yield* Records.upsertNotes(workspaceId, batch))

        const comments = [...parsed.ticket_comment.values()].flatMap(({ line, record: r }) => {
          const ticket = ticketIds.get(r.ticket)
          if (ticket === undefined) {
            refuse(line, `unknown ticket ${r.ticket}`)
            return []
          }
          return [
            {
              external_id: r.id,
              ticket_id: ticket,
              author: r.author,
              body: r.body,
              created_at: iso(r.created_at)!,
            } satisfies Records.TicketCommentInput,
          ]
        })
        for (const batch of chunks(comments)) {
          count('ticket_comment', yield* Records.upsertTicketComments(workspaceId, batch))
        }

        yield* Records.refresh(touched)
        const sorted = errors.sort((a, b) => a.line - b.line)
        return {
          lines,
          created,
          updated,
          refused: sorted.length,
          errors: sorted.slice(0, MAX_ERRORS),
        } satisfies ImportReport
      }),
    ),
  )
