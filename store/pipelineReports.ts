import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { pgArray } from './arrays'
import { type LeadView, type LeadViewer, type ListFilter, VIEW, whereOf } from './leads'

/**
 * Reading the pipeline in bulk (spec 2 §4.7): the CSV exports (leads, activities, expenses) page
 * by keyset over the leads the viewer may see, and the dashboard's aggregates. Every query goes
 * through the one lead rule (`visibleWhere` / `whereOf` of store/leads.ts).
 */

// ---- Exports ---------------------------------------------------------------------------------

export const exportLeads = (v: LeadViewer, f: ListFilter, afterId: number, limit: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<LeadView>`${sql.literal(VIEW)} WHERE ${whereOf(sql, v, f)} AND l.id > ${afterId}
      ORDER BY l.id LIMIT ${limit}`,
  )

export interface ActivityExportRow {
  readonly id: number
  readonly lead_number: number
  readonly lead_title: string
  readonly kind: string
  readonly body: string
  readonly happened_at: Date
  readonly duration_minutes: number | null
  readonly author_name: string | null
}

/** Activities people logged (not the change log) of visible leads, `happened_at` in [from, to). */
export const exportActivities = (
  v: LeadViewer,
  f: ListFilter,
  range: { readonly from?: Date; readonly to?: Date },
  afterId: number,
  limit: number,
) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (
      sql,
    ) => sql<ActivityExportRow>`SELECT a.id, l.number AS lead_number, l.title AS lead_title, a.kind, a.body,
        a.happened_at, a.duration_minutes, u.name AS author_name
      FROM lead_activities a JOIN leads l ON l.id = a.lead_id LEFT JOIN users u ON u.id = a.author_id
      WHERE ${whereOf(sql, v, f)} AND a.kind <> 'change' AND a.id > ${afterId}
        AND (${range.from === undefined} OR a.happened_at >= ${range.from ?? new Date(0)})
        AND (${range.to === undefined} OR a.happened_at < ${range.to ?? new Date(0)})
      ORDER BY a.id LIMIT ${limit}`,
  )

export interface ExpenseExportRow {
  readonly id: number
  readonly lead_number: number
  readonly lead_title: string
  readonly spent_on: string
  readonly category: string
  readonly amount: number
  readonly note: string | null
  readonly spent_by_name: string | null
}

/** Expenses of visible leads, `spent_on` within [from, to] (dates). */
export const exportExpenses = (
  v: LeadViewer,
  f: ListFilter,
  range: { readonly from?: string; readonly to?: string },
  afterId: number,
  limit: number,
) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<ExpenseExportRow>`SELECT x.id, l.number AS lead_number, l.title AS lead_title,
        to_char(x.spent_on, 'YYYY-MM-DD') AS spent_on, x.category, x.amount::float8 AS amount, x.note,
        u.name AS spent_by_name
      FROM lead_expenses x JOIN leads l ON l.id = x.lead_id LEFT JOIN users u ON u.id = x.spent_by
      WHERE ${whereOf(sql, v, f)} AND x.id > ${afterId}
        AND (${range.from === undefined} OR x.spent_on >= ${range.from ?? '1970-01-01'}::date)
        AND (${range.to === undefined} OR x.spent_on <= ${range.to ?? '1970-01-01'}::date)
      ORDER BY x.id LIMIT ${limit}`,
  )

// ---- The dashboard ---------------------------------------------------------------------------

export interface AssigneeFigures {
  readonly assignee_id: number | null
  readonly assignee_name: string | null
  readonly created: number
  readonly open: number
  readonly open_value: number
  readonly weighted_value: number
  readonly won: number
  readonly won_value: number
  readonly lost: number
  readonly lost_value: number
}

/**
 * Per owner (null: none): leads created in [start, end), open now (count, prospect value, value
 * weighted by the stage's probability), Won and Lost with `closed_at` in [start, end).
 */
export const byAssignee = (v: LeadViewer, f: ListFilter, start: Date, end: Date) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<AssigneeFigures>`SELECT g.*, u.name AS assignee_name FROM (
        SELECT l.assignee_id,
          count(*) FILTER (WHERE l.created_at >= ${start} AND l.created_at < ${end})::int AS created,
          count(*) FILTER (WHERE l.status = 'open')::int AS open,
          COALESCE(sum(l.value_estimate) FILTER (WHERE l.status = 'open'), 0)::float8 AS open_value,
          COALESCE(sum(l.value_estimate * s.probability / 100.0) FILTER (WHERE l.status = 'open'), 0)::float8 AS weighted_value,
          count(*) FILTER (WHERE l.status = 'won' AND l.closed_at >= ${start} AND l.closed_at < ${end})::int AS won,
          COALESCE(sum(l.value_won) FILTER (WHERE l.status = 'won' AND l.closed_at >= ${start} AND l.closed_at < ${end}), 0)::float8 AS won_value,
          count(*) FILTER (WHERE l.status = 'lost' AND l.closed_at >= ${start} AND l.closed_at < ${end})::int AS lost,
          COALESCE(sum(l.value_estimate) FILTER (WHERE l.status = 'lost' AND l.closed_at >= ${start} AND l.closed_at < ${end}), 0)::float8 AS lost_value
        FROM leads l JOIN pipeline_stages s ON s.id = l.stage_id
        WHERE ${whereOf(sql, v, f)}
          AND (l.status = 'open' OR l.created_at >= ${start} OR l.closed_at >= ${start})
        GROUP BY l.assignee_id) g
      LEFT JOIN users u ON u.id = g.assignee_id
      ORDER BY g.assignee_id IS NULL, lower(u.name), g.assignee_id`,
  )

export interface StageFigures {
  readonly stage_id: number
  readonly count: number
  readonly value: number
}

/** Leads created in [start, end) per stage they are at now (the funnel's raw figures). */
export const byStage = (v: LeadViewer, f: ListFilter, start: Date, end: Date) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<StageFigures>`SELECT l.stage_id, count(*)::int AS count,
        COALESCE(sum(CASE WHEN l.status = 'won' THEN COALESCE(l.value_won, l.value_estimate) ELSE l.value_estimate END), 0)::float8 AS value
      FROM leads l WHERE ${whereOf(sql, v, f)} AND l.created_at >= ${start} AND l.created_at < ${end}
      GROUP BY l.stage_id`,
  )

export interface WeekFigures {
  /** 1..weeks (bucket of `bounds`). */
  readonly bucket: number
  readonly created: number
  readonly won: number
  readonly won_value: number
  readonly lost: number
}

/** Created, Won and Lost per week; `bounds` = the weeks' starts and the last week's end. */
export const weekly = (v: LeadViewer, f: ListFilter, bounds: readonly Date[]) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    // Instants as epoch seconds: the end of the last week may be past year 9999, which has no
    // ISO text PostgreSQL reads (`+010000-01-01T…`).
    const secs = bounds.map((d) => d.getTime() / 1000)
    const arr = sql`ARRAY(SELECT to_timestamp(x) FROM unnest(${pgArray(secs)}::float8[]) x)`
    const first = sql`to_timestamp(${secs[0]!}::float8)`
    const last = sql`to_timestamp(${secs[secs.length - 1]!}::float8)`
    return sql<WeekFigures>`
      SELECT b.bucket, sum(b.created)::int AS created, sum(b.won)::int AS won,
             sum(b.won_value)::float8 AS won_value, sum(b.lost)::int AS lost
      FROM (
        SELECT width_bucket(l.created_at, ${arr}) AS bucket, 1 AS created, 0 AS won,
               0::numeric AS won_value, 0 AS lost
        FROM leads l WHERE ${whereOf(sql, v, f)} AND l.created_at >= ${first} AND l.created_at < ${last}
        UNION ALL
        SELECT width_bucket(l.closed_at, ${arr}), 0, (l.status = 'won')::int,
               CASE WHEN l.status = 'won' THEN COALESCE(l.value_won, 0) ELSE 0 END, (l.status = 'lost')::int
        FROM leads l WHERE ${whereOf(sql, v, f)} AND l.status <> 'open'
          AND l.closed_at >= ${first} AND l.closed_at < ${last}) b
      GROUP BY b.bucket ORDER BY b.bucket`
  })

export interface ExpenseFigures {
  readonly category: string
  readonly count: number
  readonly amount: number
}

export const expensesByCategory = (v: LeadViewer, f: ListFilter, from: string, to: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<ExpenseFigures>`SELECT x.category, count(*)::int AS count, sum(x.amount)::float8 AS amount
      FROM lead_expenses x JOIN leads l ON l.id = x.lead_id
      WHERE ${whereOf(sql, v, f)} AND x.workspace_id = ${v.workspaceId}
        AND x.spent_on >= ${from}::date AND x.spent_on <= ${to}::date
      GROUP BY x.category ORDER BY sum(x.amount) DESC, x.category`,
  )

export interface AgendaItem {
  readonly kind: 'event' | 'followup'
  readonly id: number
  readonly lead_id: number
  readonly lead_number: number
  readonly lead_title: string
  readonly title: string | null
  readonly at: Date
  readonly assignee_id: number | null
}

/** Events and follow-ups of visible open leads in [from, to), soonest first, at most `limit`. */
export const agenda = (v: LeadViewer, f: ListFilter, from: Date, to: Date, limit: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<AgendaItem>`SELECT * FROM (
        SELECT 'event' AS kind, e.id, l.id AS lead_id, l.number AS lead_number, l.title AS lead_title,
               e.title, e.starts_at AS at, l.assignee_id
        FROM lead_events e JOIN leads l ON l.id = e.lead_id
        WHERE ${whereOf(sql, v, f)} AND e.workspace_id = ${v.workspaceId} AND e.starts_at >= ${from} AND e.starts_at < ${to}
        UNION ALL
        SELECT 'followup', l.id, l.id, l.number, l.title, l.followup_note, l.followup_at, l.assignee_id
        FROM leads l WHERE ${whereOf(sql, v, f)} AND l.status = 'open'
          AND l.followup_at >= ${from} AND l.followup_at < ${to}) a
      ORDER BY a.at, a.kind, a.id LIMIT ${limit}`,
  )

/** Open visible leads whose follow-up is past. */
export const overdueFollowups = (v: LeadViewer, f: ListFilter, now: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM leads l WHERE ${whereOf(sql, v, f)}
      AND l.status = 'open' AND l.followup_at < ${now}`.pipe(Effect.map((r) => r[0]!.n)),
  )
