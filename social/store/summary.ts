import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { pgArray } from '../../store/arrays'
import { FIRST_RESPONSE_SECS } from './conversations'

/**
 * The summary figures of spec 3 §2, in one SQL statement. The definitions, in words, are in
 * docs/decisions-social.md ("Summary figures"); keep both in step.
 *
 * - Cohort C: conversations created in [from, to) matching the channel and type filters.
 * - Message counts: messages posted in [from, to) on conversations matching the filters
 *   (whenever those conversations started).
 * - Ticket figures: tickets created in [from, to) whose conversation matches the filters.
 */
export interface SummaryFilter {
  readonly from: Date
  readonly to: Date
  readonly channels: readonly number[] | null
  readonly type: 'reply' | 'mention' | null
}

export interface SummaryRow {
  readonly conversations: number
  readonly messages_in: number
  readonly replies_sent: number
  readonly replied: number
  readonly backlog: number
  readonly solved: number
  readonly closed: number
  readonly escalated: number
  readonly reopened: number
  readonly response_rate: number
  readonly solved_rate: number
  readonly escalation_rate: number
  readonly reopen_rate: number
  readonly avg_frt_seconds: number | null
  readonly median_frt_seconds: number | null
  readonly avg_resolution_seconds: number | null
  readonly median_resolution_seconds: number | null
  readonly tickets_total: number
  readonly tickets_open: number
  readonly tickets_done: number
  readonly tickets_avg_resolve_seconds: number | null
}

/**
 * Seconds between two timestamps, whole (truncated) and never negative. Callers guard NULLs
 * themselves: `GREATEST` skips a NULL argument. `bigint`, as every duration below: years 0001–9999
 * are stored, and 68 years overflow an `integer` (int8 arrives as a number, exact below 2^53).
 */
const secs = (later: string, earlier: string) =>
  `GREATEST(0, floor(extract(epoch FROM ${later} - ${earlier})))::bigint`

export const summary = (workspaceId: number, f: SummaryFilter) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const filters = sql.and([
      sql`c.workspace_id = ${workspaceId}`,
      ...(f.channels ? [sql`c.channel_id = ANY(${pgArray(f.channels)}::integer[])`] : []),
      ...(f.type ? [sql`c.type = ${f.type}`] : []),
    ])
    const rate = (n: string) =>
      sql.unsafe(`CASE WHEN f.conversations = 0 THEN 0
        ELSE round(100.0 * f.${n} / f.conversations, 1)::float8 END`)
    return sql<SummaryRow>`
      WITH cohort AS (
        SELECT c.status, c.reopened_count,
          ${sql.unsafe(FIRST_RESPONSE_SECS)} AS frt,
          CASE WHEN c.status IN ('solved', 'closed') AND COALESCE(c.solved_at, c.closed_at) IS NOT NULL
            THEN ${sql.unsafe(secs('COALESCE(c.solved_at, c.closed_at)', 'c.created_at'))} END AS resolution,
          EXISTS (SELECT 1 FROM social.tickets t WHERE t.conversation_id = c.id) AS escalated
        FROM social.conversations c
        WHERE ${filters} AND c.created_at >= ${f.from} AND c.created_at < ${f.to}
      ), figures AS (
        SELECT count(*)::integer AS conversations,
          count(frt)::integer AS replied,
          (count(*) FILTER (WHERE status IN ('open', 'replied')))::integer AS backlog,
          (count(*) FILTER (WHERE status = 'solved'))::integer AS solved,
          (count(*) FILTER (WHERE status = 'closed'))::integer AS closed,
          (count(*) FILTER (WHERE escalated))::integer AS escalated,
          (count(*) FILTER (WHERE reopened_count > 0))::integer AS reopened,
          round(avg(frt))::bigint AS avg_frt_seconds,
          round((percentile_cont(0.5) WITHIN GROUP (ORDER BY frt))::numeric)::bigint AS median_frt_seconds,
          round(avg(resolution))::bigint AS avg_resolution_seconds,
          round((percentile_cont(0.5) WITHIN GROUP (ORDER BY resolution))::numeric)::bigint
            AS median_resolution_seconds
        FROM cohort
      ), traffic AS (
        SELECT (count(*) FILTER (WHERE m.direction = 'in'))::integer AS messages_in,
          (count(*) FILTER (WHERE m.direction = 'out' AND m.status = 'published'))::integer AS replies_sent
        FROM social.messages m JOIN social.conversations c ON c.id = m.conversation_id
        WHERE ${filters} AND m.workspace_id = ${workspaceId}
          AND m.posted_at >= ${f.from} AND m.posted_at < ${f.to}
      ), tix AS (
        SELECT count(*)::integer AS total,
          (count(*) FILTER (WHERE t.status IN ('open', 'in_progress', 'waiting')))::integer AS open,
          (count(*) FILTER (WHERE t.status IN ('resolved', 'closed')))::integer AS done,
          round(avg(CASE WHEN t.status IN ('resolved', 'closed')
              AND COALESCE(t.resolved_at, t.closed_at) IS NOT NULL
            THEN ${sql.unsafe(secs('COALESCE(t.resolved_at, t.closed_at)', 't.created_at'))} END))::bigint
            AS avg_resolve_seconds
        FROM social.tickets t JOIN social.conversations c ON c.id = t.conversation_id
        WHERE ${filters} AND t.workspace_id = ${workspaceId}
          AND t.created_at >= ${f.from} AND t.created_at < ${f.to}
      )
      SELECT f.conversations, m.messages_in, m.replies_sent, f.replied, f.backlog, f.solved, f.closed,
        f.escalated, f.reopened,
        ${rate('replied')} AS response_rate,
        CASE WHEN f.conversations = 0 THEN 0
          ELSE round(100.0 * (f.solved + f.closed) / f.conversations, 1)::float8 END AS solved_rate,
        ${rate('escalated')} AS escalation_rate,
        ${rate('reopened')} AS reopen_rate,
        f.avg_frt_seconds, f.median_frt_seconds, f.avg_resolution_seconds, f.median_resolution_seconds,
        t.total AS tickets_total, t.open AS tickets_open, t.done AS tickets_done,
        t.avg_resolve_seconds AS tickets_avg_resolve_seconds
      FROM figures f, traffic m, tix t`.pipe(Effect.map((r) => r[0]!))
  })
