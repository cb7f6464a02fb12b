import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { pgArray } from '../../store/arrays'
import { type ConversationStatus, fold, type TimelineEvent } from '../state'

/**
 * Writes of conversations, messages, status changes, tickets, their discussion and notes, in
 * batches (one statement per batch, rows passed as one JSON parameter). Every row has the source's
 * id (`external_id`, unique per workspace and kind), so writing the same rows again updates them
 * in place: imports and webhook redeliveries are idempotent. Timestamps are ISO 8601 strings.
 * After messages or status changes, `refresh` recomputes the state of the conversations touched.
 */

export interface Written {
  readonly id: number
  readonly external_id: string
  readonly inserted: boolean
}

export interface ConversationInput {
  readonly external_id: string
  readonly channel_id: number
  readonly type: 'reply' | 'mention'
  readonly contact_username: string
  readonly category: string | null
  readonly labels: readonly string[]
  readonly tags: readonly string[]
  readonly assignee: string | null
  readonly context_text: string | null
  readonly context_username: string | null
  readonly context_permalink: string | null
  readonly created_at: string
}

export interface MessageInput {
  readonly external_id: string
  readonly conversation_id: number
  readonly direction: 'in' | 'out'
  readonly author: string
  readonly text: string
  readonly media_type: string
  readonly attachments: readonly unknown[]
  readonly status: string
  readonly permalink: string | null
  readonly posted_at: string
}

export interface StatusChangeInput {
  readonly external_id: string
  readonly conversation_id: number
  readonly status: ConversationStatus
  readonly author: string | null
  readonly changed_at: string
}

export interface TicketInput {
  readonly external_id: string
  readonly number: number
  readonly conversation_id: number
  readonly subject: string
  readonly description: string
  readonly status: string
  readonly priority: string
  readonly assignees: readonly string[]
  readonly due_at: string | null
  readonly created_at: string
  readonly resolved_at: string | null
  readonly closed_at: string | null
}

export interface TicketCommentInput {
  readonly external_id: string
  readonly ticket_id: number
  readonly author: string
  readonly body: string
  readonly created_at: string
}

export interface NoteInput {
  readonly external_id: string
  readonly conversation_id: number
  readonly body: string
  readonly author: string
  readonly source: string
  readonly ticket_id: number | null
  readonly created_at: string
}

const json = (rows: readonly object[]) => JSON.stringify(rows)

export const upsertConversations = (workspaceId: number, rows: readonly ConversationInput[]) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<Written>`
      INSERT INTO social.conversations (workspace_id, channel_id, external_id, type, contact_username, category,
        labels, tags, assignee, context_text, context_username, context_permalink, created_at, last_message_at)
      SELECT ${workspaceId}, x.channel_id, x.external_id, x.type, x.contact_username, x.category,
        x.labels, x.tags, x.assignee, x.context_text, x.context_username, x.context_permalink, x.created_at, x.created_at
      FROM jsonb_to_recordset(${json(rows)}::jsonb) AS x(channel_id integer, external_id text, type text,
        contact_username text, category text, labels text[], tags text[], assignee text, context_text text,
        context_username text, context_permalink text, created_at timestamptz)
      ON CONFLICT (workspace_id, external_id) DO UPDATE SET channel_id = EXCLUDED.channel_id,
        type = EXCLUDED.type, contact_username = EXCLUDED.contact_username, category = EXCLUDED.category,
        labels = EXCLUDED.labels, tags = EXCLUDED.tags, assignee = EXCLUDED.assignee,
        context_text = EXCLUDED.context_text, context_username = EXCLUDED.context_username,
        context_permalink = EXCLUDED.context_permalink, created_at = EXCLUDED.created_at
      RETURNING id, external_id, (xmax = 0) AS inserted`,
  )

/**
 * The conversation a webhook notification belongs to, created on first sight. Seen again, it
 * keeps its attributes; only a missing contact or context is filled in and an earlier message
 * moves its start back (notifications may arrive out of order).
 */
export const ensureConversation = (workspaceId: number, row: ConversationInput) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<Written>`
      INSERT INTO social.conversations (workspace_id, channel_id, external_id, type, contact_username,
        context_text, context_username, context_permalink, created_at, last_message_at)
      VALUES (${workspaceId}, ${row.channel_id}, ${row.external_id}, ${row.type}, ${row.contact_username},
        ${row.context_text}, ${row.context_username}, ${row.context_permalink}, ${row.created_at}, ${row.created_at})
      ON CONFLICT (workspace_id, external_id) DO UPDATE SET
        contact_username = CASE WHEN social.conversations.contact_username = ''
          THEN EXCLUDED.contact_username ELSE social.conversations.contact_username END,
        context_text = COALESCE(social.conversations.context_text, EXCLUDED.context_text),
        context_username = COALESCE(social.conversations.context_username, EXCLUDED.context_username),
        context_permalink = COALESCE(social.conversations.context_permalink, EXCLUDED.context_permalink),
        created_at = CASE WHEN EXCLUDED.contact_username = '' THEN social.conversations.created_at
          ELSE LEAST(social.conversations.created_at, EXCLUDED.created_at) END
      RETURNING id, external_id, (xmax = 0) AS inserted`.pipe(Effect.map((r) => r[0]!)),
  )

/** A message stays in the conversation it was first written to. */
export const upsertMessages = (workspaceId: number, rows: readonly MessageInput[]) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<Written & { conversation_id: number }>`
      INSERT INTO social.messages (workspace_id, conversation_id, external_id, direction, author, text,
        media_type, attachments, status, permalink, posted_at)
      SELECT ${workspaceId}, x.conversation_id, x.external_id, x.direction, x.author, x.text,
        x.media_type, x.attachments, x.status, x.permalink, x.posted_at
      FROM jsonb_to_recordset(${json(rows)}::jsonb) AS x(conversation_id bigint, external_id text,
        direction text, author text, text text, media_type text, attachments jsonb, status text,
        permalink text, posted_at timestamptz)
      ON CONFLICT (workspace_id, external_id) DO UPDATE SET direction = EXCLUDED.direction,
        author = EXCLUDED.author, text = EXCLUDED.text, media_type = EXCLUDED.media_type,
        attachments = EXCLUDED.attachments, status = EXCLUDED.status, permalink = EXCLUDED.permalink,
        posted_at = EXCLUDED.posted_at
      RETURNING id, external_id, conversation_id, (xmax = 0) AS inserted`,
  )

export const upsertStatusChanges = (workspaceId: number, rows: readonly StatusChangeInput[]) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<Written & { conversation_id: number }>`
      INSERT INTO social.status_changes (workspace_id, conversation_id, external_id, status, author, changed_at)
      SELECT ${workspaceId}, x.conversation_id, x.external_id, x.status, x.author, x.changed_at
      FROM jsonb_to_recordset(${json(rows)}::jsonb) AS x(conversation_id bigint, external_id text,
        status text, author text, changed_at timestamptz)
      ON CONFLICT (workspace_id, external_id) DO UPDATE SET status = EXCLUDED.status,
        author = EXCLUDED.author, changed_at = EXCLUDED.changed_at
      RETURNING id, external_id, conversation_id, (xmax = 0) AS inserted`,
  )

export const upsertTickets = (workspaceId: number, rows: readonly TicketInput[]) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<Written>`
      INSERT INTO social.tickets (workspace_id, number, external_id, conversation_id, subject, description,
        status, priority, assignees, due_at, created_at, resolved_at, closed_at)
      SELECT ${workspaceId}, x.number, x.external_id, x.conversation_id, x.subject, x.description,
        x.status, x.priority, x.assignees, x.due_at, x.created_at, x.resolved_at, x.closed_at
      FROM jsonb_to_recordset(${json(rows)}::jsonb) AS x(number integer, external_id text,
        conversation_id bigint, subject text, description text, status text, priority text,
        assignees text[], due_at timestamptz, created_at timestamptz, resolved_at timestamptz,
        closed_at timestamptz)
      ON CONFLICT (workspace_id, external_id) DO UPDATE SET number = EXCLUDED.number,
        conversation_id = EXCLUDED.conversation_id, subject = EXCLUDED.subject,
        description = EXCLUDED.description, status = EXCLUDED.status, priority = EXCLUDED.priority,
        assignees = EXCLUDED.assignees, due_at = EXCLUDED.due_at, created_at = EXCLUDED.created_at,
        resolved_at = EXCLUDED.resolved_at, closed_at = EXCLUDED.closed_at
      RETURNING id, external_id, (xmax = 0) AS inserted`,
  )

export const upsertTicketComments = (workspaceId: number, rows: readonly TicketCommentInput[]) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<Written>`
      INSERT INTO social.ticket_comments (workspace_id, ticket_id, external_id, author, body, created_at)
      SELECT ${workspaceId}, x.ticket_id, x.external_id, x.author, x.body, x.created_at
      FROM jsonb_to_recordset(${json(rows)}::jsonb) AS x(ticket_id bigint, external_id text, author text,
        body text, created_at timestamptz)
      ON CONFLICT (workspace_id, external_id) DO UPDATE SET ticket_id = EXCLUDED.ticket_id,
        author = EXCLUDED.author, body = EXCLUDED.body, created_at = EXCLUDED.created_at
      RETURNING id, external_id, (xmax = 0) AS inserted`,
  )

export const upsertNotes = (workspaceId: number, rows: readonly NoteInput[]) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<Written>`
      INSERT INTO social.notes (workspace_id, conversation_id, external_id, body, author, source, ticket_id,
        created_at)
      SELECT ${workspaceId}, x.conversation_id, x.external_id, x.body, x.author, x.source, x.ticket_id,
        x.created_at
      FROM jsonb_to_recordset(${json(rows)}::jsonb) AS x(conversation_id bigint, external_id text,
        body text, author text, source text, ticket_id bigint, created_at timestamptz)
      ON CONFLICT (workspace_id, external_id) DO UPDATE SET conversation_id = EXCLUDED.conversation_id,
        body = EXCLUDED.body, author = EXCLUDED.author, source = EXCLUDED.source,
        ticket_id = EXCLUDED.ticket_id, created_at = EXCLUDED.created_at
      RETURNING id, external_id, (xmax = 0) AS inserted`,
  )

/** Source id → our id, for the given source ids of one kind. */
export const idsOf = (
  table: 'conversations' | 'tickets',
  workspaceId: number,
  externalIds: readonly string[],
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    externalIds.length === 0
      ? Effect.succeed(new Map<string, number>())
      : sql<{ id: number; external_id: string }>`
          SELECT id, external_id FROM ${sql('social')}.${sql(table)}
          WHERE workspace_id = ${workspaceId} AND external_id = ANY(${pgArray(externalIds)}::text[])`.pipe(
          Effect.map((rows) => new Map(rows.map((r) => [r.external_id, r.id]))),
        ),
  )

/** Ticket numbers in use in a workspace: number → source id. */
export const ticketNumbers = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ number: number; external_id: string }>`
      SELECT number, external_id FROM social.tickets WHERE workspace_id = ${workspaceId}`.pipe(
      Effect.map((rows) => new Map(rows.map((r) => [r.number, r.external_id]))),
    ),
  )

/** Serialises writers of one workspace (ticket numbering) for the rest of the transaction. */
export const lockWorkspace = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(sql`SELECT id FROM social.workspaces WHERE id = ${workspaceId} FOR UPDATE`),
  )

const CHUNK = 500

/** Recomputes status, first response, last message, solved/closed times and reopenings (state.ts). */
export const refresh = (conversationIds: Iterable<number>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const all = [...new Set(conversationIds)]
      for (let i = 0; i < all.length; i += CHUNK) {
        const ids = pgArray(all.slice(i, i + CHUNK))
        // Row locks (in id order) serialise refreshes of one conversation by a webhook and an
        // import running together: the later one waits, then reads the other's messages too.
        const convs = yield* sql<{ id: number; created_at: Date }>`
          SELECT id, created_at FROM social.conversations WHERE id = ANY(${ids}::bigint[])
          ORDER BY id FOR UPDATE`
        const events = new Map<number, TimelineEvent[]>(convs.map((c) => [c.id, []]))
        const messages = yield* sql<{
          conversation_id: number
          direction: string
          status: string
          posted_at: Date
        }>`
          SELECT conversation_id, direction, status, posted_at FROM social.messages
          WHERE conversation_id = ANY(${ids}::bigint[]) ORDER BY id`
        for (const m of messages) {
          events
            .get(m.conversation_id)
            ?.push(
              m.direction === 'in'
                ? { kind: 'in', at: m.posted_at }
                : { kind: 'out', at: m.posted_at, published: m.status === 'published' },
            )
        }
        const changes = yield* sql<{ conversation_id: number; status: ConversationStatus; changed_at: Date }>`
          SELECT conversation_id, status, changed_at FROM social.status_changes
          WHERE conversation_id = ANY(${ids}::bigint[]) ORDER BY id`
        for (const c of changes) {
          events.get(c.conversation_id)?.push({ kind: 'status', at: c.changed_at, to: c.status })
        }
        const states = convs.map((c) => {
          const s = fold(c.created_at, events.get(c.id) ?? [])
          return {
            id: c.id,
            status: s.status,
            first_response_at: s.firstResponseAt,
            last_message_at: s.lastMessageAt,
            solved_at: s.solvedAt,
            closed_at: s.closedAt,
            reopened_count: s.reopenedCount,
          }
        })
        if (states.length === 0) continue
        yield* sql`
          UPDATE social.conversations c SET status = x.status, first_response_at = x.first_response_at,
            last_message_at = x.last_message_at, solved_at = x.solved_at, closed_at = x.closed_at,
            reopened_count = x.reopened_count
          FROM jsonb_to_recordset(${JSON.stringify(states)}::jsonb) AS x(id bigint, status text,
            first_response_at timestamptz, last_message_at timestamptz, solved_at timestamptz,
            closed_at timestamptz, reopened_count integer)
          WHERE c.id = x.id`
      }
    }),
  )
