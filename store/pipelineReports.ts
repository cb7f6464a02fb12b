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

export interface StageFigures {
  readonly stage_id: number
  readonly count: number
  readonly value: number
}

export interface WeekFigures {
  /** 1..weeks (bucket of `bounds`). */
  readonly bucket: number
  readonly created: number
  readonly won: number
  readonly won_value: number
  readonly lost: number
}

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

export interface DashboardFigures {
  readonly owners: readonly AssigneeFigures[]
  readonly stages: readonly StageFigures[]
  readonly weeks: readonly WeekFigures[]
}

/**
 * The owner, funnel and week figures in one pass over the leads (a materialised CTE scanned once):
 * per owner (null: none) leads created in [start, end), open now (count, prospect value, value
 * weighted by the stage's probability), Won and Lost closed in [start, end); per stage of the
 * funnel's workflow the leads created in the range; per week (buckets of `bounds`, the weeks'
 * starts and the last one's end) created, and Won (value) and Lost by `closed_at`.
 */
export const dashboardFigures = (
  v: LeadViewer,
  f: ListFilter,
  start: Date,
  end: Date,
  funnelPipelineId: number | null,
  bounds: readonly Date[],
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const arr = pgArray(bounds.map((d) => d.toISOString()))
    const first = bounds[0]!
    const last = bounds[bounds.length - 1]!
    const since = first < start ? first : start
    return sql<{
      readonly g: 'a' | 's' | 'c' | 'k'
      readonly k: number | null
      readonly created: number
      readonly open: number
      readonly open_value: number
      readonly weighted_value: number
      readonly won: number
      readonly won_value: number
      readonly lost: number
      readonly lost_value: number
      readonly value: number
    }>`
      WITH b AS MATERIALIZED (
        SELECT l.assignee_id, l.stage_id, l.pipeline_id, l.status, l.value_estimate, l.value_won, s.probability,
               (l.created_at >= ${start} AND l.created_at < ${end}) AS cr,
               (l.closed_at >= ${start} AND l.closed_at < ${end}) AS cl,
               CASE WHEN l.created_at >= ${first} AND l.created_at < ${last} THEN width_bucket(l.created_at, ${arr}::timestamptz[]) END AS cw,
               CASE WHEN l.status <> 'open' AND l.closed_at >= ${first} AND l.closed_at < ${last} THEN width_bucket(l.closed_at, ${arr}::timestamptz[]) END AS kw
        FROM leads l JOIN pipeline_stages s ON s.id = l.stage_id
        WHERE ${whereOf(sql, v, f)} AND (l.status = 'open' OR l.created_at >= ${since} OR l.closed_at >= ${since}))
      SELECT 'a' AS g, assignee_id::bigint AS k,
        count(*) FILTER (WHERE cr)::int AS created,
        count(*) FILTER (WHERE status = 'open')::int AS open,
        COALESCE(sum(value_estimate) FILTER (WHERE status = 'open'), 0)::float8 AS open_value,
        COALESCE(sum(value_estimate * probability / 100.0) FILTER (WHERE status = 'open'), 0)::float8 AS weighted_value,
        count(*) FILTER (WHERE status = 'won' AND cl)::int AS won,
        COALESCE(sum(value_won) FILTER (WHERE status = 'won' AND cl), 0)::float8 AS won_value,
        count(*) FILTER (WHERE status = 'lost' AND cl)::int AS lost,
        COALESCE(sum(value_estimate) FILTER (WHERE status = 'lost' AND cl), 0)::float8 AS lost_value,
        0::float8 AS value
      FROM b GROUP BY assignee_id
      UNION ALL
      SELECT 's', stage_id, count(*)::int, 0, 0, 0, 0, 0, 0, 0,
        COALESCE(sum(CASE WHEN status = 'won' THEN COALESCE(value_won, value_estimate) ELSE value_estimate END), 0)::float8
      FROM b WHERE cr AND pipeline_id = ${funnelPipelineId ?? 0} GROUP BY stage_id
      UNION ALL
      SELECT 'c', cw, count(*)::int, 0, 0, 0, 0, 0, 0, 0, 0 FROM b WHERE cw IS NOT NULL GROUP BY cw
      UNION ALL
      SELECT 'k', kw, 0, 0, 0, 0, count(*) FILTER (WHERE status = 'won')::int,
        COALESCE(sum(value_won) FILTER (WHERE status = 'won'), 0)::float8, count(*) FILTER (WHERE status = 'lost')::int, 0, 0
      FROM b WHERE kw IS NOT NULL GROUP BY kw`.pipe(
      Effect.flatMap((rows) =>
        Effect.map(
          sql<{ id: number; name: string }>`SELECT id, name FROM users WHERE id = ANY(${pgArray(
            rows.filter((r) => r.g === 'a' && r.k !== null).map((r) => Number(r.k)),
          )}::int[])`,
          (users): DashboardFigures => {
            const names = new Map(users.map((u) => [u.id, u.name]))
            const weeks = new Map<number, { created: number; won: number; won_value: number; lost: number }>()
            for (const r of rows) {
              if (r.g !== 'c' && r.g !== 'k') continue
              const w = weeks.get(Number(r.k)) ?? { created: 0, won: 0, won_value: 0, lost: 0 }
              if (r.g === 'c') w.created += r.created
              else {
                w.won += r.won
                w.won_value += r.won_value
                w.lost += r.lost
              }
              weeks.set(Number(r.k), w)
            }
            return {
              owners: rows
                .filter((r) => r.g === 'a')
                .map((r) => ({
                  assignee_id: r.k === null ? null : Number(r.k),
                  assignee_name: r.k === null ? null : (names.get(Number(r.k)) ?? null),
                  created: r.created,
                  open: r.open,
                  open_value: r.open_value,
                  weighted_value: r.weighted_value,
                  won: r.won,
                  won_value: r.won_value,
                  lost: r.lost,
                  lost_value: r.lost_value,
                }))
                .sort(
                  (a, b) =>
                    Number(a.assignee_id === null) - Number(b.assignee_id === null) ||
                    (a.assignee_name ?? '')
                      .toLowerCase()
                      .localeCompare((b.assignee_name ?? '').toLowerCase()) ||
                    (a.assignee_id ?? 0) - (b.assignee_id ?? 0),
                ),
              stages: rows
                .filter((r) => r.g === 's')
                .map((r) => ({ stage_id: Number(r.k), count: r.created, value: r.value })),
              weeks: [...weeks.entries()].map(([bucket, w]) => ({ bucket, ...w })),
            }
          },
        ),
      ),
    )
  })
