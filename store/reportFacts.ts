import { SqlClient } from '@effect/sql'
import type { Fragment } from '@effect/sql/Statement'
import { Effect } from 'effect'

/**
 * The facts reports are made of (migration 0080, docs/decisions.md "Reports"): append-only rows
 * written in the same statement as the change they record, so a fact exists exactly when its
 * change does. Each writer adds ONE fragment to its statement:
 *
 * - a message (store/conversations `append`): `ofMessage` — a customer message is an `in` fact, an
 *   agent's reply (not a note, not an automatic reply) an `out` fact carrying the start of the wait
 *   it answered and whether it was the episode's first response;
 * - a change of status, team or assignee (store/conversations `update`, `setStatus`, `assign`,
 *   `pickUp`): `ofChange` — `resolved` when an open conversation is solved or closed, `assigned`
 *   when it enters a team or reaches a person;
 * - a ticket (the tickets domain, in its own transaction): `recordTicketFact`.
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

/**
 * The fact of a message, as a CTE to append after `conv` (the updated conversation) and `msg` (the
 * inserted message): `, report_fact AS (INSERT …)`; nothing for notes and automatic replies.
 */
export const ofMessage = (
  sql: SqlClient.SqlClient,
  m: {
    readonly direction: 'in' | 'out'
    readonly type: string
    readonly sender: Readonly<Record<string, unknown>>
    readonly payload?: Readonly<Record<string, unknown>> | undefined
  },
): Fragment => {
  if (m.type === 'note' || (m.direction === 'out' && isAutomatic(m))) return sql``
  const userId = typeof m.sender.user_id === 'number' ? m.sender.user_id : null
  if (m.direction === 'in') {
    return sql`, report_fact AS (
      INSERT INTO report_facts (workspace_id, at, kind, conversation_id, channel_id, channel_type, team_id, opened)
      SELECT conv.workspace_id, msg.created_at, 'in', conv.id, conv.channel_id,
             (SELECT ch.type FROM channels ch WHERE ch.id = conv.channel_id), conv.team_id, o.first_in_at IS NULL
      FROM conv JOIN msg ON true JOIN conversations o ON o.id = conv.id)`
  }
  // The wait a reply answers only runs while the conversation is open (a solve ends it).
  return sql`, report_fact AS (
    INSERT INTO report_facts (workspace_id, at, kind, conversation_id, channel_id, channel_type, team_id, user_id,
                              first, since)
    SELECT conv.workspace_id, msg.created_at, 'out', conv.id, conv.channel_id,
           (SELECT ch.type FROM channels ch WHERE ch.id = conv.channel_id), conv.team_id, ${userId}::integer,
           o.episode_at IS NOT NULL AND o.episode_replied_at IS NULL AND o.waiting_since IS NOT NULL,
           o.waiting_since
    FROM conv JOIN msg ON true JOIN conversations o ON o.id = conv.id)`
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
 * For the tickets domain: records a ticket fact, to call inside the transaction that creates the
 * ticket, sends its first reply or resolves it. `teamId` is the ticket's Back Office team, `userId`
 * who did it (the creator, the replier, the resolver), `since` when the ticket was created (for the
 * first response and the resolution; business minutes are measured from it with the workspace's
 * hours). Until tickets exist nothing calls it and ticket figures are 0.
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
