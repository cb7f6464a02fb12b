import { SqlClient } from '@effect/sql'
import type { Fragment } from '@effect/sql/Statement'
import { Effect } from 'effect'
import { pgArray } from './arrays'
import { recordTicketFact } from './reportFacts'

/**
 * Tickets (spec 2 §2, §4.3): the ticket, its participants, discussion, attachments and change
 * log. Writes are called by the TicketActor (and the create operation); every counter that must
 * stay gap-free is bumped in the statement that inserts (migration 0070).
 */
export type TicketStatus = 'open' | 'in_progress' | 'waiting' | 'resolved' | 'closed'
export type TicketPriority = 'low' | 'normal' | 'high' | 'urgent'
export type ParticipantRole = 'assignee' | 'creator' | 'mentioned'
export type MessageKind = 'comment' | 'conversation' | 'update_request' | 'conclusion'

/** Who did something: a member (`user_id`), or an API key (its name and `key_id`). */
export interface Actor {
  readonly name: string
  readonly user_id: number | null
  readonly key_id?: number | null
}

export interface TicketRow {
  readonly id: number
  readonly workspace_id: number
  readonly number: number
  readonly subject: string
  readonly description: string
  readonly status: TicketStatus
  readonly priority: TicketPriority
  /** `YYYY-MM-DD`. */
  readonly due_date: string | null
  readonly team_id: number
  readonly created_by: number | null
  readonly creator: Actor
  readonly interaction_id: number | null
  readonly contact_id: number | null
  readonly custom: Readonly<Record<string, unknown>>
  readonly last_message_seq: number
  readonly last_event_seq: number
  readonly last_message_at: Date | null
  readonly update_requested_at: Date | null
  readonly update_requested_by: Actor | null
  readonly last_update_request_at: Date | null
  readonly resolved_at: Date | null
  readonly closed_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

const COLUMNS = `t.id, t.workspace_id, t.number, t.subject, t.description, t.status, t.priority,
  t.due_date::text AS due_date, t.team_id, t.created_by, t.creator, t.interaction_id, t.contact_id, t.custom,
  t.last_message_seq, t.last_event_seq, t.last_message_at, t.update_requested_at, t.update_requested_by,
  t.last_update_request_at, t.resolved_at, t.closed_at, t.created_at, t.updated_at`

/**
 * Who is looking, for spec 2 §1 rule 3. `seesAll` = Owner, admin role, `view_all` or an API key;
 * `canView` = holds `tickets.view` (admins do).
 */
export interface Viewer {
  readonly workspaceId: number
  readonly userId: number
  readonly seesAll: boolean
  readonly canView: boolean
}

/**
 * The one visibility rule for tickets (spec 2 §1 rule 3), as SQL over alias `t`, shared by the
 * list, counts, detail, every sub-route, files, the contact's tickets, the conversation's
 * `can_open` and the `ticket:` subscription:
 * - without `tickets.view` (Owner, admins and keys hold it) no ticket, even with view-all;
 * - those who see all data see every ticket of the workspace;
 * - otherwise a ticket is visible to its participants (assignees, creator, people mentioned)
 *   and, while nobody is assigned, to its Back Office team's members.
 */
export const visibleWhere = (sql: SqlClient.SqlClient, v: Viewer): Fragment => {
  if (!v.canView) return sql`false`
  if (v.seesAll) return sql`t.workspace_id = ${v.workspaceId}`
  return sql`t.workspace_id = ${v.workspaceId} AND (
    EXISTS (SELECT 1 FROM ticket_participants p WHERE p.ticket_id = t.id AND p.user_id = ${v.userId})
    OR (NOT EXISTS (SELECT 1 FROM ticket_participants p WHERE p.ticket_id = t.id AND p.role = 'assignee')
        AND EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = t.team_id AND tm.user_id = ${v.userId})))`
}

export const visibleById = (v: Viewer, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<TicketRow>`SELECT ${sql.literal(COLUMNS)} FROM tickets t WHERE t.id = ${id} AND ${visibleWhere(sql, v)}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** Which of these tickets the viewer may open. */
export const visibleIds = (v: Viewer, ids: readonly number[]) =>
  ids.length === 0
    ? Effect.succeed(new Set<number>())
    : Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ id: number }>`SELECT t.id FROM tickets t
          WHERE t.id = ANY(${pgArray(ids)}::bigint[]) AND ${visibleWhere(sql, v)}`.pipe(
          Effect.map((r) => new Set(r.map((x) => x.id))),
        ),
      )

export const byId = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<TicketRow>`SELECT ${sql.literal(COLUMNS)} FROM tickets t WHERE t.id = ${id}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** A ticket of the workspace, whoever may see it (the conversation side needs no ticket access). */
export const inWorkspace = (workspaceId: number, id: number) =>
  Effect.map(byId(id), (t) => (t && t.workspace_id === workspaceId ? t : null))

// ---------------------------------------------------------------------------------------------
// Create
// ---------------------------------------------------------------------------------------------

export interface NewTicket {
  readonly workspaceId: number
  readonly subject: string
  readonly description: string
  readonly priority: TicketPriority
  readonly dueDate: string | null
  readonly teamId: number
  readonly creator: Actor
  readonly interactionId: number | null
  readonly contactId: number | null
  readonly custom: Readonly<Record<string, unknown>>
  readonly assigneeIds: readonly number[]
  readonly at: Date
}

/**
 * Inserts a ticket with the workspace's next number (the counter row bumped in this
 * transaction), its creator and assignees as participants and the `created` log entry.
 */
export const create = (t: NewTicket) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [counter] = yield* sql<{ last_number: number }>`
          INSERT INTO ticket_counters AS c (workspace_id, last_number) VALUES (${t.workspaceId}, 1)
          ON CONFLICT (workspace_id) DO UPDATE SET last_number = c.last_number + 1
          RETURNING last_number`
        const [row] = yield* sql<{ id: number }>`
          INSERT INTO tickets (workspace_id, number, subject, description, priority, due_date, team_id, created_by,
                               creator, interaction_id, contact_id, custom, created_at, updated_at)
          VALUES (${t.workspaceId}, ${counter!.last_number}, ${t.subject}, ${t.description}, ${t.priority},
                  ${t.dueDate}::date, ${t.teamId}, ${t.creator.user_id}, ${JSON.stringify(t.creator)}::jsonb,
                  ${t.interactionId}::bigint, ${t.contactId}::bigint, ${JSON.stringify(t.custom)}::jsonb, ${t.at}, ${t.at})
          RETURNING id`
        const id = row!.id
        if (t.creator.user_id !== null && !t.assigneeIds.includes(t.creator.user_id))
          yield* sql`INSERT INTO ticket_participants (ticket_id, user_id, role, added_at)
            VALUES (${id}, ${t.creator.user_id}, 'creator', ${t.at})`
        for (const u of t.assigneeIds)
          yield* sql`INSERT INTO ticket_participants (ticket_id, user_id, role, added_at)
            VALUES (${id}, ${u}, 'assignee', ${t.at})`
        yield* appendEvents(
          id,
          [{ kind: 'created', field: null, old: null, new: { number: counter!.last_number } }],
          t.creator,
          t.at,
        )
        // The report fact (store/reportFacts.ts) exists exactly when the ticket does.
        yield* recordTicketFact({
          workspaceId: t.workspaceId,
          kind: 'ticket_created',
          ticketId: id,
          teamId: t.teamId,
          userId: t.creator.user_id,
          at: t.at,
          conversationId: t.interactionId,
        })
        return (yield* byId(id))!
      }),
    ),
  )

// ---------------------------------------------------------------------------------------------
// Updates (called by the TicketActor)
// ---------------------------------------------------------------------------------------------

export interface NewEvent {
  readonly kind: string
  readonly field: string | null
  readonly old: unknown
  readonly new: unknown
}

export interface EventRow {
  readonly id: number
  readonly ticket_id: number
  readonly seq: number
  readonly kind: string
  readonly field: string | null
  readonly old_value: unknown
  readonly new_value: unknown
  readonly actor: Actor
  readonly created_at: Date
}

const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v))

/** Appends log entries, each with the next sequence number (bumped in the same statement). */
export const appendEvents = (ticketId: number, events: readonly NewEvent[], actor: Actor, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(events, (e) =>
      sql<EventRow>`
        WITH t AS (UPDATE tickets SET last_event_seq = last_event_seq + 1 WHERE id = ${ticketId} RETURNING last_event_seq)
        INSERT INTO ticket_events (ticket_id, seq, kind, field, old_value, new_value, actor, created_at)
        SELECT ${ticketId}, t.last_event_seq, ${e.kind}, ${e.field}, ${json(e.old)}::jsonb, ${json(e.new)}::jsonb,
               ${JSON.stringify(actor)}::jsonb, ${at}
        FROM t RETURNING *`.pipe(Effect.map((r) => r[0]!)),
    ),
  )

export interface FieldsUpdate {
  readonly subject?: string
  readonly description?: string
  readonly status?: TicketStatus
  readonly priority?: TicketPriority
  readonly due_date?: string | null
  readonly team_id?: number
  readonly custom?: Readonly<Record<string, unknown>>
}

/** Writes changed fields; a status move sets or clears `resolved_at`/`closed_at`. */
export const updateFields = (id: number, f: FieldsUpdate, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const sets: Fragment[] = [sql`updated_at = ${at}`]
    if (f.subject !== undefined) sets.push(sql`subject = ${f.subject}`)
    if (f.description !== undefined) sets.push(sql`description = ${f.description}`)
    if (f.priority !== undefined) sets.push(sql`priority = ${f.priority}`)
    if (f.due_date !== undefined) sets.push(sql`due_date = ${f.due_date}::date`)
    if (f.team_id !== undefined) sets.push(sql`team_id = ${f.team_id}`)
    if (f.custom !== undefined) sets.push(sql`custom = ${JSON.stringify(f.custom)}::jsonb`)
    if (f.status !== undefined) {
      sets.push(sql`status = ${f.status}`)
      sets.push(
        sql`resolved_at = ${f.status === 'resolved' ? sql`COALESCE(resolved_at, ${at})` : f.status === 'closed' ? sql`resolved_at` : sql`NULL`}`,
      )
      sets.push(sql`closed_at = ${f.status === 'closed' ? sql`${at}` : sql`NULL`}`)
      // A finished ticket has no pending update request.
      if (f.status === 'resolved' || f.status === 'closed')
        sets.push(sql`update_requested_at = NULL, update_requested_by = NULL`)
    }
    return sql`UPDATE tickets SET ${sql.csv(sets)} WHERE id = ${id}`.pipe(Effect.asVoid)
  })

export const touch = (id: number, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE tickets SET updated_at = ${at} WHERE id = ${id}`.pipe(Effect.asVoid),
  )

/** Records an update request: pending (shown) and the window's start. */
export const requestUpdate = (id: number, by: Actor, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE tickets SET update_requested_at = ${at}, update_requested_by = ${JSON.stringify(by)}::jsonb,
          last_update_request_at = ${at}, updated_at = ${at} WHERE id = ${id}`.pipe(Effect.asVoid),
  )

/** Clears the pending update request; true when one was pending. */
export const clearUpdateRequest = (id: number, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      id: number
    }>`UPDATE tickets SET update_requested_at = NULL, update_requested_by = NULL, updated_at = ${at}
      WHERE id = ${id} AND update_requested_at IS NOT NULL RETURNING id`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )

// ---------------------------------------------------------------------------------------------
// Participants
// ---------------------------------------------------------------------------------------------

export interface ParticipantRow {
  readonly ticket_id: number
  readonly user_id: number
  readonly role: ParticipantRole
  readonly name: string
  readonly avatar_url: string | null
  readonly added_at: Date
}

export const participants = (ticketIds: readonly number[]) =>
  ticketIds.length === 0
    ? Effect.succeed([] as readonly ParticipantRow[])
    : Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<ParticipantRow>`
          SELECT p.ticket_id, p.user_id, p.role, u.name, u.avatar_url, p.added_at
          FROM ticket_participants p JOIN users u ON u.id = p.user_id
          WHERE p.ticket_id = ANY(${pgArray(ticketIds)}::bigint[])
          ORDER BY p.added_at, p.user_id`,
      )

/**
 * Makes someone a participant in a role; an assignee stays an assignee, and a creator is not
 * made a mere mention. Returns the role before (null: they were not one).
 */
export const setParticipant = (ticketId: number, userId: number, role: ParticipantRole, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const [before] = yield* sql<{ role: ParticipantRole }>`
        SELECT role FROM ticket_participants WHERE ticket_id = ${ticketId} AND user_id = ${userId} FOR UPDATE`
      if (!before) {
        yield* sql`INSERT INTO ticket_participants (ticket_id, user_id, role, added_at)
          VALUES (${ticketId}, ${userId}, ${role}, ${at}) ON CONFLICT DO NOTHING`
        return null
      }
      const rank: Record<ParticipantRole, number> = { mentioned: 0, creator: 1, assignee: 2 }
      if (rank[role] > rank[before.role])
        yield* sql`UPDATE ticket_participants SET role = ${role} WHERE ticket_id = ${ticketId} AND user_id = ${userId}`
      return before.role
    }),
  )

/** Removes a participant; returns the role they had, or null when they were none. */
export const removeParticipant = (ticketId: number, userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      role: ParticipantRole
    }>`DELETE FROM ticket_participants WHERE ticket_id = ${ticketId} AND user_id = ${userId}
      RETURNING role`.pipe(Effect.map((r) => r[0]?.role ?? null)),
  )

/** Assignees who are neither members of `teamId` nor admins (released when the team changes). */
export const assigneesOutside = (ticketId: number, workspaceId: number, teamId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ user_id: number; name: string }>`
      SELECT p.user_id, u.name FROM ticket_participants p JOIN users u ON u.id = p.user_id
      WHERE p.ticket_id = ${ticketId} AND p.role = 'assignee'
        AND NOT EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = ${teamId} AND tm.user_id = p.user_id)
        AND NOT EXISTS (SELECT 1 FROM members m JOIN roles r ON r.id = m.role_id JOIN workspaces w ON w.id = m.workspace_id
                        WHERE m.workspace_id = ${workspaceId} AND m.user_id = p.user_id
                          AND (r.is_admin OR r.is_owner OR w.owner_user_id = p.user_id))`,
  )

// ---------------------------------------------------------------------------------------------
// Discussion
// ---------------------------------------------------------------------------------------------

export interface MessageRow {
  readonly id: number
  readonly workspace_id: number
  readonly ticket_id: number
  readonly seq: number
  readonly kind: MessageKind
  readonly body: string
  readonly sender: Actor
  readonly mention_ids: readonly number[]
  readonly feedback_at: Date | null
  readonly feedback_note_id: number | null
  readonly created_at: Date
}

export interface MessageFile {
  readonly idx: number
  readonly file_id: number
  readonly name: string
  readonly mime: string
  readonly size: number
}

/** A message with its files and the names of the people it mentions. */
export interface MessageView extends MessageRow {
  readonly files: readonly MessageFile[]
  readonly mentions: ReadonlyArray<{ readonly id: number; readonly name: string }>
}

const MESSAGE_VIEW = `SELECT m.*,
  COALESCE((SELECT json_agg(json_build_object('idx', f.idx, 'file_id', f.file_id, 'name', x.name, 'mime', x.mime,
                                              'size', x.size) ORDER BY f.idx)
            FROM ticket_message_files f JOIN files x ON x.id = f.file_id WHERE f.message_id = m.id), '[]'::json) AS files,
  COALESCE((SELECT json_agg(json_build_object('id', u.id, 'name', u.name) ORDER BY u.id)
            FROM users u WHERE u.id = ANY(m.mention_ids)), '[]'::json) AS mentions
  FROM ticket_messages m`

export interface NewMessage {
  readonly kind: MessageKind
  readonly body: string
  readonly sender: Actor
  readonly mentionIds: readonly number[]
  readonly fileIds: readonly number[]
  readonly at: Date
}

/** Appends a discussion message with the next sequence number (bumped in the same statement). */
export const appendMessage = (ticketId: number, m: NewMessage) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const [row] = yield* sql<{ id: number }>`
        WITH t AS (UPDATE tickets SET last_message_seq = last_message_seq + 1, last_message_at = ${m.at}, updated_at = ${m.at}
                   WHERE id = ${ticketId} RETURNING workspace_id, last_message_seq)
        INSERT INTO ticket_messages (workspace_id, ticket_id, seq, kind, body, sender, mention_ids, created_at)
        SELECT t.workspace_id, ${ticketId}, t.last_message_seq, ${m.kind}, ${m.body}, ${JSON.stringify(m.sender)}::jsonb,
               ${pgArray(m.mentionIds)}::int[], ${m.at}
        FROM t RETURNING id`
      for (const [idx, fileId] of m.fileIds.entries())
        yield* sql`INSERT INTO ticket_message_files (message_id, idx, file_id) VALUES (${row!.id}, ${idx}, ${fileId})`
      return row!.id
    }),
  )

export const messageView = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<MessageView>`${sql.literal(MESSAGE_VIEW)} WHERE m.id = ${id}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

export const messageOf = (ticketId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<MessageView>`${sql.literal(MESSAGE_VIEW)} WHERE m.id = ${id} AND m.ticket_id = ${ticketId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** Spec 2 §4.3: the whole discussion, or only what came after a message id. */
export const MESSAGES_LIMIT = 500

export const messages = (ticketId: number, after?: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<MessageView>`${sql.literal(MESSAGE_VIEW)}
      WHERE m.ticket_id = ${ticketId} AND m.id > ${after ?? 0} ORDER BY m.seq LIMIT ${MESSAGES_LIMIT}`,
  )

/** What the conversation side sees of tickets: its own posts, requests, feedback and conclusions. */
export const threadOf = (ticketIds: readonly number[], perTicket: number) =>
  ticketIds.length === 0
    ? Effect.succeed([] as readonly MessageView[])
    : Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<MessageView>`SELECT * FROM (
            SELECT x.*, row_number() OVER (PARTITION BY x.ticket_id ORDER BY x.seq DESC) AS rn
            FROM (${sql.literal(MESSAGE_VIEW)}
                  WHERE m.ticket_id = ANY(${pgArray(ticketIds)}::bigint[])
                    AND (m.kind IN ('conversation', 'update_request', 'conclusion') OR m.feedback_at IS NOT NULL)) x
          ) y WHERE y.rn <= ${perTicket} ORDER BY y.ticket_id, y.seq`,
      )

/** Marks a message as being sent as feedback (its note not written yet). */
export const claimFeedback = (messageId: number, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE ticket_messages SET feedback_at = ${at} WHERE id = ${messageId} AND feedback_at IS NULL`.pipe(
      Effect.asVoid,
    ),
  )

/** Gives back a claim whose note could not be written. */
export const releaseFeedback = (ticketId: number, messageId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE ticket_messages SET feedback_at = NULL
      WHERE id = ${messageId} AND ticket_id = ${ticketId} AND feedback_note_id IS NULL`.pipe(Effect.asVoid),
  )

export const markFeedback = (messageId: number, noteId: number, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE ticket_messages SET feedback_at = ${at}, feedback_note_id = ${noteId} WHERE id = ${messageId}`.pipe(
      Effect.asVoid,
    ),
  )

export const events = (ticketIds: readonly number[], after?: number) =>
  ticketIds.length === 0
    ? Effect.succeed([] as readonly EventRow[])
    : Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<EventRow>`SELECT * FROM ticket_events
          WHERE ticket_id = ANY(${pgArray(ticketIds)}::bigint[]) AND id > ${after ?? 0}
          ORDER BY ticket_id, seq`,
      )

/** The status moves of tickets (a contact's tickets "with status log"). */
export const statusLog = (ticketIds: readonly number[]) =>
  ticketIds.length === 0
    ? Effect.succeed([] as readonly EventRow[])
    : Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<EventRow>`SELECT * FROM ticket_events
          WHERE ticket_id = ANY(${pgArray(ticketIds)}::bigint[]) AND (kind = 'created' OR field = 'status')
          ORDER BY ticket_id, seq`,
      )

export const fileOf = (messageId: number, idx: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      file_id: number
    }>`SELECT file_id FROM ticket_message_files WHERE message_id = ${messageId} AND idx = ${idx}`.pipe(
      Effect.map((r) => r[0]?.file_id ?? null),
    ),
  )

export const messageById = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<MessageRow>`SELECT * FROM ticket_messages WHERE id = ${id}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

// ---------------------------------------------------------------------------------------------
// The list (GET /tickets), the conversation's and the contact's tickets
// ---------------------------------------------------------------------------------------------

export interface ListFilter {
  /** A status, or `active` (open, in progress, waiting). */
  readonly status?: TicketStatus | 'active'
  readonly priority?: TicketPriority
  readonly assignee?: 'me' | 'none' | number
  readonly team?: 'mine' | number
  readonly q?: string
  readonly contactId?: number
  readonly interactionId?: number
  /** Active tickets whose due date is before this local date (`YYYY-MM-DD`). */
  readonly overdueBefore?: string
}

/** A ticket with its team's name, for lists. */
export interface TicketView extends TicketRow {
  readonly team_name: string
  readonly contact_name: string | null
}

const VIEW = `${COLUMNS}, (SELECT x.name FROM teams x WHERE x.id = t.team_id) AS team_name,
  (SELECT x.name FROM contacts x WHERE x.id = t.contact_id) AS contact_name`

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`

const ACTIVE_SQL = `t.status IN ('open', 'in_progress', 'waiting')`

const filterWhere = (sql: SqlClient.SqlClient, v: Viewer, f: ListFilter, withStatus: boolean): Fragment => {
  const parts: Fragment[] = [visibleWhere(sql, v)]
  if (withStatus && f.status === 'active') parts.push(sql.literal(ACTIVE_SQL))
  else if (withStatus && f.status !== undefined) parts.push(sql`t.status = ${f.status}`)
  if (f.priority !== undefined) parts.push(sql`t.priority = ${f.priority}`)
  const assigned = (u: number) =>
    sql`EXISTS (SELECT 1 FROM ticket_participants p WHERE p.ticket_id = t.id AND p.role = 'assignee' AND p.user_id = ${u})`
  if (f.assignee === 'me') parts.push(assigned(v.userId))
  else if (f.assignee === 'none')
    parts.push(
      sql`NOT EXISTS (SELECT 1 FROM ticket_participants p WHERE p.ticket_id = t.id AND p.role = 'assignee')`,
    )
  else if (f.assignee !== undefined) parts.push(assigned(f.assignee))
  if (f.team === 'mine')
    parts.push(sql`t.team_id IN (SELECT tm.team_id FROM team_members tm WHERE tm.user_id = ${v.userId})`)
  else if (f.team !== undefined) parts.push(sql`t.team_id = ${f.team}`)
  if (f.contactId !== undefined) parts.push(sql`t.contact_id = ${f.contactId}`)
  if (f.interactionId !== undefined) parts.push(sql`t.interaction_id = ${f.interactionId}`)
  if (f.overdueBefore !== undefined)
    parts.push(sql`${sql.literal(ACTIVE_SQL)} AND t.due_date < ${f.overdueBefore}::date`)
  if (f.q !== undefined && f.q !== '') {
    const p = likePattern(f.q)
    const n = /^#?\d{1,9}$/.test(f.q) ? Number(f.q.replace('#', '')) : -1
    parts.push(sql`(t.subject ILIKE ${p} OR t.description ILIKE ${p} OR t.number = ${n})`)
  }
  return sql.and(parts)
}

export const list = (v: Viewer, f: ListFilter, page: { readonly limit: number; readonly offset: number }) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<TicketView>`SELECT ${sql.literal(VIEW)} FROM tickets t
      WHERE ${filterWhere(sql, v, f, true)} ORDER BY t.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
  )

export type StatusCounts = Readonly<Record<TicketStatus | 'active' | 'all', number>>

/** Visible tickets per status under every filter but `status` (`meta.counts`). */
export const counts = (v: Viewer, f: ListFilter) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<StatusCounts>`
      SELECT count(*) FILTER (WHERE t.status = 'open')::int AS open,
             count(*) FILTER (WHERE t.status = 'in_progress')::int AS in_progress,
             count(*) FILTER (WHERE t.status = 'waiting')::int AS waiting,
             count(*) FILTER (WHERE t.status = 'resolved')::int AS resolved,
             count(*) FILTER (WHERE t.status = 'closed')::int AS closed,
             count(*) FILTER (WHERE ${sql.literal(ACTIVE_SQL)})::int AS active,
             count(*)::int AS all
      FROM tickets t WHERE ${filterWhere(sql, v, f, false)}`.pipe(Effect.map((r) => r[0]!)),
  )

/** Every ticket raised from a conversation (its detail shows them all, visible or not). */
export const ofConversation = (conversationId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<TicketView>`SELECT ${sql.literal(VIEW)} FROM tickets t
      WHERE t.interaction_id = ${conversationId} ORDER BY t.id`,
  )

/** The contact's tickets the viewer may see, newest first. */
export const ofContact = (v: Viewer, contactId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<TicketView>`SELECT ${sql.literal(VIEW)} FROM tickets t
      WHERE t.contact_id = ${contactId} AND ${visibleWhere(sql, v)} ORDER BY t.id DESC LIMIT 200`,
  )

// ---------------------------------------------------------------------------------------------
// People and teams
// ---------------------------------------------------------------------------------------------

export interface BackofficeTeam {
  readonly id: number
  readonly name: string
  readonly member_ids: readonly number[]
}

export const backofficeTeams = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<BackofficeTeam>`
      SELECT t.id, t.name,
             COALESCE(ARRAY(SELECT tm.user_id FROM team_members tm WHERE tm.team_id = t.id ORDER BY tm.user_id), '{}') AS member_ids
      FROM teams t WHERE t.workspace_id = ${workspaceId} AND t.type = 'backoffice' ORDER BY lower(t.name), t.id`,
  )

export interface Candidate {
  readonly id: number
  readonly name: string
  readonly email: string
  readonly avatar_url: string | null
  readonly is_admin: boolean
  readonly can_view: boolean
  readonly team_ids: readonly number[]
}

/**
 * Active members with their Back Office teams: who may be assigned (a member of the ticket's team,
 * or an admin) or mentioned (`can_view`: holds `tickets.view`, so the mention lets them open it).
 */
export const candidates = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<Candidate>`
      SELECT u.id, u.name, u.email, u.avatar_url,
             (r.is_admin OR r.is_owner OR w.owner_user_id = u.id) AS is_admin,
             (r.is_admin OR r.is_owner OR w.owner_user_id = u.id OR 'tickets.view' = ANY(r.permissions)) AS can_view,
             COALESCE(ARRAY(SELECT tm.team_id FROM team_members tm JOIN teams x ON x.id = tm.team_id
                            WHERE tm.user_id = u.id AND x.workspace_id = m.workspace_id AND x.type = 'backoffice'
                            ORDER BY tm.team_id), '{}') AS team_ids
      FROM members m JOIN users u ON u.id = m.user_id JOIN roles r ON r.id = m.role_id
      JOIN workspaces w ON w.id = m.workspace_id
      WHERE m.workspace_id = ${workspaceId} AND m.status = 'active'
      ORDER BY lower(u.name), u.id`,
  )

/** Ticket feedback and conclusions noted in a conversation after `since` (every one when null). */
export const feedbackNotesSince = (conversationId: number, since: Date | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM messages
      WHERE conversation_id = ${conversationId} AND type = 'note'
        AND payload->>'source' IN ('ticket_feedback', 'ticket_conclusion')
        AND (${since}::timestamptz IS NULL OR created_at > ${since}::timestamptz)`.pipe(
      Effect.map((r) => r[0]?.n ?? 0),
    ),
  )
