import { SqlClient } from '@effect/sql'
import type { Fragment } from '@effect/sql/Statement'
import { Effect } from 'effect'

/**
 * The facts reports are made of (migration 0080, docs/decisions.md "Reports"): append-only rows
 * written in the same statement as the change they record, so a fact exists exactly when its
 * change does. Each writer adds ONE fragment to its statement:
 *
 * - a message (store/conversations `writeAppends`, computed by `ofMessage` from the conversation
 *   the message found): a customer message is an `in` fact, an agent's reply (not a note, not an
 *   automatic reply) an `out` fact carrying the start of the wait it answered and whether it was
 *   the episode's first response;
 * - a change of status, team or assignee (store/conversations `update`, `setStatus`, `assign`,
 *   `pickUp`): `ofChange` — `resolved` when an open conversation is solved or closed, `assigned`
 *   when it enters a team or reaches a person;
 * - a ticket (the tickets domain, in its own transactions): `recordTicketFact` (created),
 *   `recordTicketFirstResponse`, `recordTicketResolution`.
 *
 * The fragments read the conversation's row as it was before the statement (every part of one
 * statement sees the same snapshot) from `conversations`, and as it is after from the `conv`
 * CTE the writer names.
 */

/** An automatic reply (greeting, away message) is the channel's, not an agent's: never a reply. */
export const isAutomatic = (m: {
  readonly payload?: Readonly<Record<string, unknown>> | undefined
  readonly sender: Readonly<Record<string, unknown>>
}) => m.payload?.auto_reply !== undefined || m.sender.auto === true

/** The fact a message adds (`report_facts` less what its conversation row supplies). */
export interface MessageFact {
  readonly kind: 'in' | 'out'
  readonly at: Date
  readonly user_id: number | null
  /** in: the conversation's first customer message (an incoming conversation). */
  readonly opened: boolean
  /** out: the episode's first reply (a first response). */
  readonly first: boolean
  /** out: when the wait it answered began. */
  readonly since: Date | null
}

/**
 * The fact of a message, from its conversation as the message found it (`before`): a customer
 * message is an `in` fact, an agent's reply an `out` fact; nothing for notes and automatic
 * replies. The wait a reply answers only runs while the conversation is open (a solve ends it).
 */
export const ofMessage = (
  before: {
    readonly first_in_at: Date | null
    readonly episode_at: Date | null
    readonly episode_replied_at: Date | null
    readonly waiting_since: Date | null
  },
  m: {
    readonly direction: 'in' | 'out'
    readonly type: string
    readonly sender: Readonly<Record<string, unknown>>
    readonly payload?: Readonly<Record<string, unknown>> | undefined
  },
  at: Date,
): MessageFact | null => {
  if (m.type === 'note' || (m.direction === 'out' && isAutomatic(m))) return null
  if (m.direction === 'in') {
    return { kind: 'in', at, user_id: null, opened: before.first_in_at === null, first: false, since: null }
  }
  return {
    kind: 'out',
    at,
    user_id: typeof m.sender.user_id === 'number' ? m.sender.user_id : null,
    opened: false,
    first: before.episode_at !== null && before.episode_replied_at === null && before.waiting_since !== null,
    since: before.waiting_since,
  }
}

/**
 * What a status change does to the episode (SET items for an UPDATE of `conversations`, where
 * `status` is the value before): solving or closing an open conversation ends its episode and
 * the wait in it; the next customer message starts a new one.
 */
export const endsEpisode = (sql: SqlClient.SqlClient, status: string): Fragment =>
  sql`episode_at = CASE WHEN status = 'open' AND ${status} <> 'open' THEN NULL ELSE episode_at END,
    episode_replied_at = CASE WHEN status = 'open' AND ${status} <> 'open' THEN NULL ELSE episode_replied_at END,
    waiting_since = CASE WHEN status = 'open' AND ${status} <> 'open' THEN NULL ELSE waiting_since END`

/**
 * The facts of a change of status, team or assignee, as a CTE to append after `conv` (the updated
 * conversation): a resolution when an open conversation with a customer episode is solved or
 * closed (measured from the episode's start), an assignment when it enters another team or
 * reaches another person.
 */
export const ofChange = (sql: SqlClient.SqlClient, at: Date): Fragment => sql`, report_fact AS (
  INSERT INTO report_facts (workspace_id, at, kind, conversation_id, channel_id, channel_type, team_id, user_id, since)
  SELECT conv.workspace_id, ${at}::timestamptz, x.kind, conv.id, conv.channel_id,
         (SELECT ch.type FROM channels ch WHERE ch.id = conv.channel_id), conv.team_id, x.user_id, x.since
  FROM conv JOIN conversations o ON o.id = conv.id
  CROSS JOIN LATERAL (VALUES
    ('resolved', conv.assignee_id, o.episode_at,
       o.status = 'open' AND conv.status <> 'open' AND o.episode_at IS NOT NULL),
    ('assigned', NULL::integer, NULL::timestamptz,
       conv.team_id IS NOT NULL AND conv.team_id IS DISTINCT FROM o.team_id),
    ('assigned', conv.assignee_id, NULL::timestamptz,
       conv.assignee_id IS NOT NULL AND conv.assignee_id IS DISTINCT FROM o.assignee_id)
  ) AS x (kind, user_id, since, happened)
  WHERE x.happened)`

export type TicketFactKind = 'ticket_created' | 'ticket_first_response' | 'ticket_resolved'

/**
 * The facts of a ticket (docs/decisions.md, Reports, "Tickets"; the definitions in
 * actors/metrics.ts), each written by the tickets domain inside the transaction of its
 * change, on the locked ticket row:
 *
 * - `ticket_created` (`recordTicketFact`, store/tickets `create`): the creator, the Back Office team;
 * - `ticket_first_response` (`recordTicketFirstResponse`, TicketActor `Post`, `Conclude`): the first
 *   message on the ticket's side of the discussion (a comment or a conclusion) by a member other
 *   than the creator who is in the ticket's team or one of its assignees;
 * - `ticket_resolved` (`recordTicketResolution`, TicketActor `Update`, `Conclude` with `resolve`): the
 *   first time the ticket leaves the active statuses for `resolved` or `closed`; a reopened ticket
 *   finished again records nothing more.
 *
 * `teamId` is the ticket's Back Office team, `userId` who did it, `since` the ticket's creation
 * (business minutes are measured from it in the workspace's hours).
 */
export const recordTicketFact = (f: {
  readonly workspaceId: number
  readonly kind: TicketFactKind
  readonly ticketId: number
  readonly teamId: number | null
  readonly userId: number | null
  readonly at: Date
  readonly since?: Date | null
  readonly conversationId?: number | null
}) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO report_facts (workspace_id, at, kind, ticket_id, conversation_id, team_id, user_id, since)
      VALUES (${f.workspaceId}, ${f.at}, ${f.kind}, ${f.ticketId}, ${f.conversationId ?? null}, ${f.teamId},
              ${f.userId}, ${f.since ?? null})`.pipe(Effect.asVoid),
  )

/**
 * A fact recorded at most once per ticket: only for a ticket whose `ticket_created` fact exists (a
 * ticket from before its facts gets none later) and which has no fact of this kind yet. A ticket's
 * facts lie at the instants of its own messages and log entries, so "yet" is a few probes of the
 * time index, not a scan. Answers whether it was recorded.
 */
const onceForTicket = (
  kind: 'ticket_first_response' | 'ticket_resolved',
  f: { readonly ticketId: number; readonly userId: number | null; readonly at: Date },
  qualifies: (sql: SqlClient.SqlClient) => Fragment,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      INSERT INTO report_facts (workspace_id, at, kind, ticket_id, conversation_id, team_id, user_id, since)
      SELECT t.workspace_id, ${f.at}::timestamptz, ${kind}, t.id, t.interaction_id, t.team_id, ${f.userId}::integer,
             t.created_at
      FROM tickets t
      WHERE t.id = ${f.ticketId} AND ${qualifies(sql)}
        AND EXISTS (SELECT 1 FROM report_facts c WHERE c.workspace_id = t.workspace_id AND c.at = t.created_at
                      AND c.kind = 'ticket_created' AND c.ticket_id = t.id)
        AND NOT EXISTS (
          -- A join on the instants, not "at IN (…)": with the latter the planner scanned every fact
          -- of the kind (30 ms at 200,000 facts against 0.6 ms, measured with EXPLAIN ANALYZE).
          SELECT 1
          FROM (SELECT m.created_at AS at FROM ticket_messages m WHERE m.ticket_id = t.id
                UNION SELECT e.created_at FROM ticket_events e WHERE e.ticket_id = t.id) x
          JOIN report_facts p ON p.workspace_id = t.workspace_id AND p.at = x.at
          WHERE p.kind = ${kind} AND p.ticket_id = t.id)
      RETURNING id::float8 AS id`.pipe(Effect.map((r) => r.length > 0)),
  )

/**
 * After a discussion message on the ticket's side by `userId` (a member; an API key is nobody):
 * the ticket's first response when that member is not its creator and is in its team or one of
 * its assignees, and none was recorded before. Reads the ticket's team as it is now.
 */
export const recordTicketFirstResponse = (f: {
  readonly ticketId: number
  readonly userId: number | null
  readonly at: Date
}) => {
  const userId = f.userId
  if (userId === null) return Effect.succeed(false)
  return onceForTicket(
    'ticket_first_response',
    { ticketId: f.ticketId, userId, at: f.at },
    (sql) => sql`t.created_by IS DISTINCT FROM ${userId}::integer
      AND (EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = t.team_id AND tm.user_id = ${userId}::integer)
           OR EXISTS (SELECT 1 FROM ticket_participants tp WHERE tp.ticket_id = t.id AND tp.user_id = ${userId}::integer
                        AND tp.role = 'assignee'))`,
  )
}

/**
 * After a move of the ticket from an active status into `resolved` or `closed` by `userId` (null:
 * an API key): the ticket's resolution, unless one was recorded before (a reopened ticket counts
 * once, at its first resolution). Reads the ticket's team as it is now.
 */
export const recordTicketResolution = (f: {
  readonly ticketId: number
  readonly userId: number | null
  readonly at: Date
}) => onceForTicket('ticket_resolved', f, (sql) => sql`true`)
