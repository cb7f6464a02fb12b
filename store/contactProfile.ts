import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import type { Viewer } from './conversations'
import { visibleWhere } from './conversations'

/**
 * What a contact's profile and timeline show (spec 2 §4.4): the channel identities it writes
 * from, its messaging-app labels, statistics, 12-month activity, and the timeline across
 * conversations (the viewer's visible ones), notes and recorded changes.
 */
export interface IdentityRow {
  readonly channel_id: number
  readonly channel_type: string
  readonly channel_name: string
  readonly address: string | null
  readonly conversations: number
  readonly last_message_at: Date | null
}

/** One line per channel the contact has conversations on, with the address it writes from. */
export const identities = (contactId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<IdentityRow>`
      SELECT ch.id AS channel_id, ch.type AS channel_type, ch.name AS channel_name,
             CASE ch.type WHEN 'msgapp' THEN ct.phone WHEN 'email' THEN ct.email
               WHEN 'api' THEN (SELECT COALESCE(t.contact->>'phone', t.contact->>'email', t.contact->>'id')
                                FROM channel_api_threads t WHERE t.conversation_id = max(cv.id))
               WHEN 'livechat' THEN (SELECT COALESCE(v.email, v.name) FROM livechat_visitors v
                                     WHERE v.contact_id = ct.id AND v.channel_id = ch.id ORDER BY v.id DESC LIMIT 1)
             END AS address,
             count(*)::int AS conversations, max(cv.last_message_at) AS last_message_at
      FROM conversations cv JOIN channels ch ON ch.id = cv.channel_id JOIN contacts ct ON ct.id = cv.contact_id
      WHERE cv.contact_id = ${contactId}
      GROUP BY ch.id, ch.type, ch.name, ct.id, ct.phone, ct.email
      ORDER BY max(cv.last_message_at) DESC NULLS LAST, ch.id`,
  )

export interface MsgappLabelRow {
  readonly channel_id: number
  readonly label_id: string
  readonly name: string
  readonly color: number
}

export const msgappLabels = (contactId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<MsgappLabelRow>`
      SELECT ml.channel_id, ml.label_id, l.name, l.color FROM contact_msgapp_labels ml
      JOIN msgapp_labels l ON l.channel_id = ml.channel_id AND l.label_id = ml.label_id AND NOT l.deleted
      WHERE ml.contact_id = ${contactId} ORDER BY l.name`,
  )

export interface StatisticsRow {
  readonly conversations: number
  readonly open_conversations: number
  readonly messages_in: number
  readonly messages_out: number
  readonly notes: number
  readonly first_conversation_at: Date | null
  readonly last_message_at: Date | null
}

export const statistics = (contactId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<StatisticsRow>`
      SELECT (SELECT count(*)::int FROM conversations WHERE contact_id = ${contactId}) AS conversations,
             (SELECT count(*)::int FROM conversations WHERE contact_id = ${contactId} AND status = 'open') AS open_conversations,
             (SELECT count(*)::int FROM messages m JOIN conversations cv ON cv.id = m.conversation_id
              WHERE cv.contact_id = ${contactId} AND m.direction = 'in' AND m.type <> 'note') AS messages_in,
             (SELECT count(*)::int FROM messages m JOIN conversations cv ON cv.id = m.conversation_id
              WHERE cv.contact_id = ${contactId} AND m.direction = 'out' AND m.type <> 'note') AS messages_out,
             (SELECT count(*)::int FROM contact_notes WHERE contact_id = ${contactId}) AS notes,
             (SELECT min(created_at) FROM conversations WHERE contact_id = ${contactId}) AS first_conversation_at,
             (SELECT max(last_message_at) FROM conversations WHERE contact_id = ${contactId}) AS last_message_at`.pipe(
      Effect.map((r) => r[0]!),
    ),
  )

export interface MonthRow {
  readonly month: string
  readonly messages_in: number
  readonly messages_out: number
  readonly conversations: number
}

/** The last 12 calendar months in `zone`, oldest first, each with its messages and new conversations. */
export const activity = (contactId: number, zone: string, now: Date) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<MonthRow>`
      WITH months AS (
        SELECT to_char(m, 'YYYY-MM') AS month FROM generate_series(
          date_trunc('month', (${now}::timestamptz AT TIME ZONE ${zone})) - interval '11 months',
          date_trunc('month', (${now}::timestamptz AT TIME ZONE ${zone})), interval '1 month') AS m
      ), msgs AS (
        SELECT to_char(m.created_at AT TIME ZONE ${zone}, 'YYYY-MM') AS month,
               count(*) FILTER (WHERE m.direction = 'in')::int AS messages_in,
               count(*) FILTER (WHERE m.direction = 'out')::int AS messages_out
        FROM messages m JOIN conversations cv ON cv.id = m.conversation_id
        WHERE cv.contact_id = ${contactId} AND m.type <> 'note'
          AND m.created_at >= ${now}::timestamptz - interval '13 months'
        GROUP BY 1
      ), convs AS (
        SELECT to_char(created_at AT TIME ZONE ${zone}, 'YYYY-MM') AS month, count(*)::int AS conversations
        FROM conversations WHERE contact_id = ${contactId} AND created_at >= ${now}::timestamptz - interval '13 months'
        GROUP BY 1
      )
      SELECT months.month, COALESCE(msgs.messages_in, 0) AS messages_in, COALESCE(msgs.messages_out, 0) AS messages_out,
             COALESCE(convs.conversations, 0) AS conversations
      FROM months LEFT JOIN msgs USING (month) LEFT JOIN convs USING (month) ORDER BY months.month`,
  )

// ---- Timeline ---------------------------------------------------------------------------------

export type TimelineKind = 'conversation' | 'note' | 'event'

export interface TimelineRow {
  readonly kind: TimelineKind
  readonly ref_id: number
  readonly at: Date
  readonly data: Readonly<Record<string, unknown>>
}

/** Where a page starts: strictly older than this item. */
export interface TimelineCursor {
  readonly kind: TimelineKind
  readonly refId: number
}

const union = (sql: SqlClient.SqlClient, contactId: number, v: Viewer) => sql`
  SELECT 'conversation'::text AS kind, c.id AS ref_id, c.created_at AS at,
         jsonb_build_object('interaction_id', c.id, 'channel_id', c.channel_id, 'status', c.status,
           'subject', c.subject, 'preview', c.preview, 'last_message_at', c.last_message_at) AS data
  FROM conversations c WHERE c.contact_id = ${contactId} AND ${visibleWhere(sql, v)}
  UNION ALL
  SELECT 'note', n.id, n.created_at,
         jsonb_build_object('note_id', n.id, 'body', n.body, 'author_id', n.author_id, 'author_name', u.name)
  FROM contact_notes n LEFT JOIN users u ON u.id = n.author_id WHERE n.contact_id = ${contactId}
  UNION ALL
  SELECT 'event', e.id, e.created_at,
         jsonb_build_object('kind', e.kind, 'data', e.data, 'user_id', e.user_id, 'user_name', u.name)
  FROM contact_events e LEFT JOIN users u ON u.id = e.user_id WHERE e.contact_id = ${contactId}`

/** Newest first; with `before`, the items older than that one (null when it is not in the timeline). */
export const timeline = (contactId: number, v: Viewer, limit: number, before?: TimelineCursor) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      if (!before)
        return yield* sql<TimelineRow>`SELECT * FROM (${union(sql, contactId, v)}) t
          ORDER BY t.at DESC, t.kind DESC, t.ref_id DESC LIMIT ${limit}`
      const [from] = yield* sql<TimelineRow>`SELECT * FROM (${union(sql, contactId, v)}) t
        WHERE t.kind = ${before.kind} AND t.ref_id = ${before.refId}`
      if (!from) return null
      return yield* sql<TimelineRow>`SELECT * FROM (${union(sql, contactId, v)}) t
        WHERE (t.at, t.kind, t.ref_id) < (${from.at}, ${from.kind}, ${from.ref_id})
        ORDER BY t.at DESC, t.kind DESC, t.ref_id DESC LIMIT ${limit}`
    }),
  )
