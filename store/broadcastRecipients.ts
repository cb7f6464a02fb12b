import { SqlClient } from '@effect/sql'
import type { Fragment } from '@effect/sql/Statement'
import { Effect } from 'effect'
import { pgArray } from './arrays'
import { accessWhere, STATUS_EXPR } from './broadcasts'

/**
 * A broadcast's recipients: the sender's durable progress (claim, handed to the number, outcome;
 * every step a conditional update, so a second owner of the same broadcast cannot move a row the
 * first one holds), the recipients list with its cumulative status, and the dashboard's figures.
 */
export type State = 'queued' | 'sending' | 'sent' | 'failed' | 'skipped'

export interface RecipientRow {
  readonly id: number
  readonly broadcast_id: number
  readonly position: number
  readonly contact_id: number | null
  readonly name: string
  readonly phone: string | null
  readonly variant: number
  readonly attempt: number
  readonly state: State
  readonly reason: string | null
  readonly body: string | null
  readonly conversation_id: number | null
  readonly message_id: number | null
  readonly external_id: string | null
  readonly handed_at: Date | null
  readonly sent_at: Date | null
  readonly failed_at: Date | null
}

const sqlOf = <A>(
  f: (sql: SqlClient.SqlClient) => Effect.Effect<A, import('@effect/sql/SqlError').SqlError>,
) => Effect.flatMap(SqlClient.SqlClient, f)
const first = <A>(rows: readonly A[]) => rows[0] ?? null

// ---- The sender's steps ------------------------------------------------------------------------

/** The next recipient to send to, in list order. */
export const nextQueued = (broadcastId: number) =>
  sqlOf((sql) =>
    sql<RecipientRow>`SELECT * FROM broadcast_recipients WHERE broadcast_id = ${broadcastId} AND state = 'queued'
      ORDER BY position LIMIT 1`.pipe(Effect.map(first)),
  )

/**
 * Claims a queued recipient (queued → sending) while its broadcast is running; null when it was not
 * queued any more or the broadcast stopped. The broadcast's row is share-locked for the claim, so a
 * pause or a cancel (which update that row) comes wholly before it, and no claim is taken after
 * one has answered, or wholly after it, and then finds the claim (store/broadcasts.ts `halt`).
 */
export const claim = (broadcastId: number, id: number) =>
  sqlOf((sql) =>
    sql<RecipientRow>`WITH b AS (
        SELECT id FROM broadcasts WHERE id = ${broadcastId} AND status = 'running' FOR SHARE)
      UPDATE broadcast_recipients r SET state = 'sending' FROM b
      WHERE r.id = ${id} AND r.broadcast_id = b.id AND r.state = 'queued' RETURNING r.*`.pipe(
      Effect.map(first),
    ),
  )

/** Recipients claimed but not finished (a sender stopped between the steps). */
export const sending = (broadcastId: number) =>
  sqlOf(
    (sql) => sql<RecipientRow>`SELECT * FROM broadcast_recipients WHERE broadcast_id = ${broadcastId}
      AND state = 'sending' ORDER BY position`,
  )

/** The stored message a claimed recipient gets, and its final text. */
export const setMessage = (id: number, conversationId: number, messageId: number, body: string) =>
  sqlOf((sql) =>
    sql<{
      id: number
    }>`UPDATE broadcast_recipients SET conversation_id = ${conversationId}, message_id = ${messageId},
      body = ${body} WHERE id = ${id} AND state = 'sending' RETURNING id`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )

/** A recipient's state now (the sender looks when a pause or a cancel took its claim back). */
export const stateOf = (id: number) =>
  sqlOf((sql) =>
    sql<{ state: State }>`SELECT state FROM broadcast_recipients WHERE id = ${id}`.pipe(
      Effect.map((r) => r[0]?.state ?? null),
    ),
  )

/**
 * Written just before the message is handed to the number: from here on, without a recorded
 * outcome, nobody can know whether it left, so it is never handed over again by itself.
 */
export const markHanded = (id: number, at: Date) =>
  sqlOf((sql) =>
    sql<{ id: number }>`UPDATE broadcast_recipients SET handed_at = ${at}
      WHERE id = ${id} AND state = 'sending' AND handed_at IS NULL RETURNING id`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )

export type Outcome =
  | { readonly _tag: 'Sent'; readonly externalId: string | null; readonly at: Date }
  | { readonly _tag: 'Failed'; readonly reason: string; readonly at: Date }
  /** Not sent, on purpose: the contact opted out after the broadcast was scheduled. */
  | { readonly _tag: 'Skipped'; readonly reason: 'opted_out' }

export const finish = (id: number, o: Outcome) =>
  sqlOf((sql) =>
    o._tag === 'Sent'
      ? sql`UPDATE broadcast_recipients SET state = 'sent', external_id = ${o.externalId}, sent_at = ${o.at},
          reason = NULL WHERE id = ${id} AND state = 'sending'`
      : o._tag === 'Skipped'
        ? sql`UPDATE broadcast_recipients SET state = 'skipped', reason = ${o.reason}
            WHERE id = ${id} AND state = 'sending'`
        : sql`UPDATE broadcast_recipients SET state = 'failed', reason = ${o.reason}, failed_at = ${o.at}
            WHERE id = ${id} AND state = 'sending'`,
  )

/**
 * The service refused a recipient's message after it was sent (the message is now failed): the
 * recipient is failed too, so the figures say it never arrived and `/retry` sends it again.
 */
export const failLate = (messageId: number, reason: string, at: Date) =>
  sqlOf(
    (sql) => sql<{ broadcast_id: number; workspace_id: number }>`
      UPDATE broadcast_recipients r SET state = 'failed', reason = ${reason}, failed_at = ${at}
      FROM broadcasts b, messages m
      WHERE r.message_id = ${messageId} AND r.state = 'sent' AND b.id = r.broadcast_id
        AND m.id = r.message_id AND m.status = 'failed'
      RETURNING r.broadcast_id, b.workspace_id`,
  )

/** A claimed recipient given back (its message was never handed to the number). */
export const release = (id: number) =>
  sqlOf(
    (sql) =>
      sql`UPDATE broadcast_recipients SET state = 'queued' WHERE id = ${id} AND state = 'sending' AND handed_at IS NULL`,
  )

/** What the number's send log says of a message: the last attempt's result, or null (none). */
export const sendLogOf = (channelId: number, messageId: number) =>
  sqlOf((sql) =>
    sql<{ ok: boolean; error: string | null }>`SELECT ok, error FROM msgapp_send_log
      WHERE channel_id = ${channelId} AND message_id = ${messageId} ORDER BY id DESC LIMIT 1`.pipe(
      Effect.map(first),
    ),
  )

export const messageState = (messageId: number) =>
  sqlOf((sql) =>
    sql<{ status: string; error: string | null; external_id: string | null }>`
      SELECT status, error, external_id FROM messages WHERE id = ${messageId}`.pipe(Effect.map(first)),
  )

/**
 * Sent by this broadcast since `since` (its daily cap), and when its last message went out (or
 * failed): the pace runs from there, not from the hand-over, which may wait in the number's own
 * pacing (a first message right after a test send waited there, and the next one, paced from the
 * hand-over, followed it too soon: issue 50 item 7).
 */
export const sentSince = (broadcastId: number, since: Date) =>
  sqlOf((sql) =>
    sql<{ n: number; last: Date | null }>`SELECT count(*) FILTER (WHERE sent_at >= ${since})::int AS n,
        max(COALESCE(sent_at, failed_at, handed_at)) AS last
      FROM broadcast_recipients WHERE broadcast_id = ${broadcastId} AND state IN ('sent', 'failed')`.pipe(
      Effect.map((r) => ({ n: r[0]?.n ?? 0, last: r[0]?.last ?? null })),
    ),
  )

/** Recipients still to send (queued or claimed). */
export const pending = (broadcastId: number) =>
  sqlOf((sql) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM broadcast_recipients WHERE broadcast_id = ${broadcastId}
      AND state IN ('queued', 'sending')`.pipe(Effect.map((r) => r[0]?.n ?? 0)),
  )

// ---- The list ----------------------------------------------------------------------------------

export type ListStatus = 'queued' | 'sent' | 'delivered' | 'read' | 'replied' | 'failed' | 'skipped'

/** Cumulative: asking for `delivered` also lists the read and replied ones. */
const INCLUDES: Readonly<Record<ListStatus, readonly string[]>> = {
  queued: ['queued'],
  sent: ['sent', 'delivered', 'read', 'replied'],
  delivered: ['delivered', 'read', 'replied'],
  read: ['read', 'replied'],
  replied: ['replied'],
  failed: ['failed'],
  skipped: ['skipped'],
}

export interface RecipientView extends RecipientRow {
  readonly status: string
  readonly message_status: string | null
  readonly replied_at: Date | null
}

const listWhere = (
  sql: SqlClient.SqlClient,
  broadcastId: number,
  status: ListStatus | undefined,
  q: string | undefined,
) => {
  const parts: Fragment[] = [sql`r.broadcast_id = ${broadcastId}`]
  if (status) parts.push(sql`(${sql.literal(STATUS_EXPR)}) = ANY(${pgArray(INCLUDES[status])}::text[])`)
  if (q) {
    const p = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
    parts.push(sql`(r.name ILIKE ${p} OR r.phone ILIKE ${p})`)
  }
  return sql.and(parts)
}

export const list = (
  broadcastId: number,
  status: ListStatus | undefined,
  q: string | undefined,
  limit: number,
  offset: number,
) =>
  sqlOf(
    (sql) => sql<RecipientView>`
      SELECT r.*, ${sql.literal(STATUS_EXPR)} AS status, m.status AS message_status,
        (SELECT min(mi.created_at) FROM messages mi WHERE mi.conversation_id = r.conversation_id
          AND mi.direction = 'in' AND mi.id > r.message_id) AS replied_at
      FROM broadcast_recipients r LEFT JOIN messages m ON m.id = r.message_id
      WHERE ${listWhere(sql, broadcastId, status, q)}
      ORDER BY r.position LIMIT ${limit} OFFSET ${offset}`,
  )

export const count = (broadcastId: number, status: ListStatus | undefined, q: string | undefined) =>
  sqlOf((sql) =>
    sql<{
      n: number
    }>`SELECT count(*)::int AS n FROM broadcast_recipients r LEFT JOIN messages m ON m.id = r.message_id
      WHERE ${listWhere(sql, broadcastId, status, q)}`.pipe(Effect.map((r) => r[0]?.n ?? 0)),
  )

/** Contact ids of the first `limit` queued recipients (previews of a locked list). */
export const sampleContacts = (broadcastId: number, limit: number) =>
  sqlOf(
    (sql) => sql<{
      id: number
    }>`SELECT contact_id AS id FROM broadcast_recipients WHERE broadcast_id = ${broadcastId}
      AND state <> 'skipped' AND contact_id IS NOT NULL ORDER BY position LIMIT ${limit}`,
  )

// ---- The dashboard ------------------------------------------------------------------------------

export interface Scope {
  readonly workspaceId: number
  readonly from: Date
  readonly to: Date
  readonly channelId?: number | undefined
  /** The caller's channel access (null = every channel). */
  readonly channelIds: readonly number[] | null
  readonly zone: string
}

/** Recipients of broadcasts started in the range (and on the number, if given). */
const scopeWhere = (sql: SqlClient.SqlClient, s: Scope) =>
  sql.and([
    sql`b.workspace_id = ${s.workspaceId}`,
    sql`b.started_at >= ${s.from} AND b.started_at < ${s.to}`,
    ...(s.channelId !== undefined ? [sql`b.channel_id = ${s.channelId}`] : []),
    ...(s.channelIds ? [accessWhere(sql, s.channelIds)] : []),
  ])

export const funnel = (s: Scope) =>
  sqlOf(
    (sql) => sql<{ status: string; n: number }>`
      SELECT ${sql.literal(STATUS_EXPR)} AS status, count(*)::int AS n
      FROM broadcast_recipients r JOIN broadcasts b ON b.id = r.broadcast_id LEFT JOIN messages m ON m.id = r.message_id
      WHERE ${scopeWhere(sql, s)} GROUP BY 1`,
  )

export const reasons = (s: Scope) =>
  sqlOf(
    (sql) => sql<{ state: string; reason: string; n: number }>`
      SELECT r.state, r.reason, count(*)::int AS n
      FROM broadcast_recipients r JOIN broadcasts b ON b.id = r.broadcast_id
      WHERE ${scopeWhere(sql, s)} AND r.state IN ('failed', 'skipped') AND r.reason IS NOT NULL
      GROUP BY 1, 2 ORDER BY n DESC, r.reason LIMIT 50`,
  )

/** Sends per local day and per local hour of the workspace zone, with the replies among them. */
export const timeline = (s: Scope) =>
  sqlOf(
    (sql) => sql<{ day: string; hour: number; sent: number; failed: number; replied: number }>`
      SELECT to_char(COALESCE(r.sent_at, r.failed_at) AT TIME ZONE ${s.zone}, 'YYYY-MM-DD') AS day,
             extract(hour FROM COALESCE(r.sent_at, r.failed_at) AT TIME ZONE ${s.zone})::int AS hour,
             count(*) FILTER (WHERE r.state = 'sent')::int AS sent,
             count(*) FILTER (WHERE r.state = 'failed')::int AS failed,
             count(*) FILTER (WHERE (${sql.literal(STATUS_EXPR)}) = 'replied')::int AS replied
      FROM broadcast_recipients r JOIN broadcasts b ON b.id = r.broadcast_id LEFT JOIN messages m ON m.id = r.message_id
      WHERE ${scopeWhere(sql, s)} AND r.state IN ('sent', 'failed')
      GROUP BY 1, 2`,
  )

/** Broadcast sends per number since `since` (number usage today). */
export const sentPerNumber = (workspaceId: number, since: Date) =>
  sqlOf(
    (sql) => sql<{ channel_id: number; n: number }>`
      SELECT b.channel_id, count(*)::int AS n FROM broadcast_recipients r JOIN broadcasts b ON b.id = r.broadcast_id
      WHERE b.workspace_id = ${workspaceId} AND r.state = 'sent' AND r.sent_at >= ${since} AND b.channel_id IS NOT NULL
      GROUP BY 1`,
  )

/** Successful sends of the number (all kinds) since `since`, from its send log. */
export const numberSentSince = (channelId: number, since: Date) =>
  sqlOf((sql) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM msgapp_send_log WHERE channel_id = ${channelId} AND ok
      AND at >= ${since}`.pipe(Effect.map((r) => r[0]?.n ?? 0)),
  )

/** Broadcasts started in the range, for `latest` and `best`. */
export const startedIn = (s: Scope) =>
  sqlOf(
    (sql) => sql<{
      id: number
    }>`SELECT b.id FROM broadcasts b WHERE ${scopeWhere(sql, s)} ORDER BY b.started_at DESC, b.id DESC
      LIMIT 200`,
  )
