import { SqlClient, type SqlError } from '@effect/sql'
import type { Fragment } from '@effect/sql/Statement'
import { Context, Effect, Layer } from 'effect'
import * as Memo from '../engine/memo'
import { pgArray } from './arrays'

/**
 * The SQL of reports and KPIs (spec 2 §4.6): the roll-up of facts into `report_days` (workspace
 * zone, by channel, team and person) and `report_hours` (UTC hours, by channel and team), the
 * reads over them, and KPI targets. The facts themselves are written by store/reportFacts.ts; the
 * definitions are in actors/metrics.ts.
 *
 * Both the incremental roll-up and the rebuild add facts up with the ONE aggregation below
 * (`aggregate`), so a rebuild gives the figures the roll-up gave.
 */

export const MEASURES = [
  'conversations',
  'assigned',
  'taken',
  'messages_in',
  'messages_out',
  'replies',
  'reply_minutes',
  'replies_met',
  'first_responses',
  'first_minutes',
  'first_met',
  'resolutions',
  'resolution_minutes',
  'resolutions_met',
  'tickets_created',
  'ticket_first_responses',
  'ticket_first_minutes',
  'ticket_first_met',
  'tickets_resolved',
  'ticket_minutes',
  'tickets_met',
] as const
export type Measure = (typeof MEASURES)[number]
export type Measures = Readonly<Record<Measure, number>>

/** Each measure as a sum over facts (alias-free columns of `report_facts`). */
const MEASURE_SQL: Readonly<Record<Measure, string>> = {
  conversations: `count(*) FILTER (WHERE kind = 'in' AND opened)`,
  assigned: `count(*) FILTER (WHERE kind = 'assigned' AND user_id IS NULL)`,
  taken: `count(*) FILTER (WHERE kind = 'assigned' AND user_id IS NOT NULL)`,
  messages_in: `count(*) FILTER (WHERE kind = 'in')`,
  messages_out: `count(*) FILTER (WHERE kind = 'out')`,
  replies: `count(*) FILTER (WHERE kind = 'out' AND since IS NOT NULL)`,
  reply_minutes: `COALESCE(sum(minutes) FILTER (WHERE kind = 'out' AND since IS NOT NULL), 0)`,
  replies_met: `count(*) FILTER (WHERE kind = 'out' AND since IS NOT NULL AND met)`,
  first_responses: `count(*) FILTER (WHERE kind = 'out' AND first)`,
  first_minutes: `COALESCE(sum(minutes) FILTER (WHERE kind = 'out' AND first), 0)`,
  first_met: `count(*) FILTER (WHERE kind = 'out' AND first AND met)`,
  resolutions: `count(*) FILTER (WHERE kind = 'resolved')`,
  resolution_minutes: `COALESCE(sum(minutes) FILTER (WHERE kind = 'resolved'), 0)`,
  resolutions_met: `count(*) FILTER (WHERE kind = 'resolved' AND met)`,
  tickets_created: `count(*) FILTER (WHERE kind = 'ticket_created')`,
  ticket_first_responses: `count(*) FILTER (WHERE kind = 'ticket_first_response')`,
  ticket_first_minutes: `COALESCE(sum(minutes) FILTER (WHERE kind = 'ticket_first_response'), 0)`,
  ticket_first_met: `count(*) FILTER (WHERE kind = 'ticket_first_response' AND met)`,
  tickets_resolved: `count(*) FILTER (WHERE kind = 'ticket_resolved')`,
  ticket_minutes: `COALESCE(sum(minutes) FILTER (WHERE kind = 'ticket_resolved'), 0)`,
  tickets_met: `count(*) FILTER (WHERE kind = 'ticket_resolved' AND met)`,
}

const COLS = MEASURES.join(', ')
const AGG = MEASURES.map((m) => MEASURE_SQL[m]).join(',\n  ')
const ADD = (table: string) => MEASURES.map((m) => `${m} = ${table}.${m} + EXCLUDED.${m}`).join(', ')

/**
 * The roll-up rows of some facts, for both tables: `source` is what follows FROM, rows with
 * `report_facts`' columns (the table with a WHERE, or a CTE of facts just updated).
 */
const aggregate = (sql: SqlClient.SqlClient, zone: string, source: Fragment) => ({
  days: sql`
    INSERT INTO report_days (workspace_id, day, channel_id, team_id, user_id, ${sql.literal(COLS)})
    SELECT workspace_id, (at AT TIME ZONE ${zone})::date, COALESCE(channel_id, 0), COALESCE(team_id, 0),
           COALESCE(user_id, 0), ${sql.literal(AGG)}
    FROM ${source}
    GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (workspace_id, day, channel_id, team_id, user_id) DO UPDATE SET ${sql.literal(ADD('report_days'))}`,
  hours: sql`
    INSERT INTO report_hours (workspace_id, hour, channel_id, team_id, ${sql.literal(COLS)})
    SELECT workspace_id, date_trunc('hour', at), COALESCE(channel_id, 0), COALESCE(team_id, 0), ${sql.literal(AGG)}
    FROM ${source}
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (workspace_id, hour, channel_id, team_id) DO UPDATE SET ${sql.literal(ADD('report_hours'))}`,
})

// ---------------------------------------------------------------------------------------------
// The roll-up
// ---------------------------------------------------------------------------------------------

export interface PendingFact {
  readonly id: number
  readonly at: Date
  readonly kind: string
  readonly channel_id: number | null
  readonly channel_type: string | null
  readonly team_id: number | null
  readonly user_id: number | null
  readonly first: boolean
  readonly since: Date | null
}

/**
 * Workspaces with facts not rolled up yet: one probe of the pending index per workspace, walked in
 * its order (each step the next workspace above the last), whatever the statistics say. Every node
 * asks every few seconds; `SELECT DISTINCT` was planned as a parallel scan of the whole fact table
 * while the statistics still counted the facts of a bulk roll-up as pending (65–70 ms over 900,000
 * facts, against 5 ms for this walk before the index was vacuumed).
 */
export const pendingWorkspaces = (limit = 1000) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ workspace_id: number }>`
      WITH RECURSIVE w AS (
        (SELECT workspace_id FROM report_facts WHERE NOT rolled ORDER BY workspace_id LIMIT 1)
        UNION ALL
        SELECT (SELECT f.workspace_id FROM report_facts f
                WHERE NOT f.rolled AND f.workspace_id > w.workspace_id ORDER BY f.workspace_id LIMIT 1)
        FROM w WHERE w.workspace_id IS NOT NULL
      )
      SELECT workspace_id FROM w WHERE workspace_id IS NOT NULL LIMIT ${limit}`.pipe(
      Effect.map((r) => r.map((x) => x.workspace_id)),
    ),
  )

export const hasPending = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    // In the pending index's order, so the answer is one probe of it whatever the statistics say
    // (after a bulk roll-up they can still count a million pending facts, and pick a full scan).
    sql<{ x: number }>`
      SELECT 1 AS x FROM report_facts WHERE workspace_id = ${workspaceId} AND NOT rolled
      ORDER BY workspace_id, id LIMIT 1`.pipe(Effect.map((r) => r.length > 0)),
  )

/** One roll-up of a workspace at a time (transaction-level lock; every node may try). */
export const lockWorkspace = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT pg_advisory_xact_lock(${workspaceId}, hashtext('reports:rollup'))`.pipe(Effect.asVoid),
  )

/**
 * The next batch of a workspace's pending facts, in the pending index's order: how many, the
 * lowest and highest id, and those with something to measure (a `since`), which alone travel to
 * Node. The others (an inbound message, an assignment, a new ticket: most of a busy inbox's facts)
 * have no minutes and no target, as `measure` says, and are left to `roll` by id range. `after`,
 * the last id of the batch before in the same catch-up, keeps a planner that walks the primary key
 * (its statistics can still count a bulk roll-up's facts as pending) from walking what that rolled.
 */
export const take = (workspaceId: number, limit: number, after = 0) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      taken: number
      first: number | null
      last: number | null
      measure: ReadonlyArray<FactTuple> | null
    }>`
      WITH picked AS (
        SELECT id, at, kind, channel_id, channel_type, team_id, user_id, first, since
        FROM report_facts WHERE workspace_id = ${workspaceId} AND NOT rolled AND id > ${after}
        -- The order of the pending index (the primary key's order would walk every rolled fact).
        ORDER BY workspace_id, id LIMIT ${limit}
      )
      SELECT count(*)::int AS taken, min(id)::float8 AS first, max(id)::float8 AS last,
             json_agg(json_build_array(id, extract(epoch FROM at) * 1000, kind, channel_id, channel_type,
                      team_id, user_id, first, extract(epoch FROM since) * 1000) ORDER BY id)
               FILTER (WHERE since IS NOT NULL) AS measure
      FROM picked`.pipe(
      Effect.map(([r]) => ({
        taken: r?.taken ?? 0,
        first: r?.first ?? 0,
        last: r?.last ?? 0,
        measure: (r?.measure ?? []).map(
          ([id, at, kind, channel_id, channel_type, team_id, user_id, first, since]): PendingFact => ({
            id,
            at: new Date(at),
            kind,
            channel_id,
            channel_type,
            team_id,
            user_id,
            first,
            since: since === null ? null : new Date(since),
          }),
        ),
      })),
    ),
  )

/** A fact to measure as `take` sends it: PendingFact's fields in order, times in epoch ms. */
type FactTuple = readonly [
  number,
  number,
  string,
  number | null,
  string | null,
  number | null,
  number | null,
  boolean,
  number | null,
]

/**
 * Rolls up a workspace's pending facts with ids from `first` to `last` (`take`'s batch) in one
 * statement: marks them rolled, records the measures of those measured (business minutes, target
 * met; the others keep null), and adds them to the days (in `zone`, the workspace's) and hours from
 * the UPDATE's own rows, so nothing is read again by id. Both bounds, so that whichever index the
 * planner walks, it walks the batch, not every fact rolled before it. A fact with a `since` that
 * committed after `take` (an id inside the batch's range taken late) is not measured yet and stays
 * pending until the next catch-up (the next batch of this one starts above `last`).
 */
export const roll = (
  workspaceId: number,
  zone: string,
  first: number,
  last: number,
  measured: ReadonlyArray<{
    readonly id: number
    readonly minutes: number | null
    readonly met: boolean | null
  }>,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    // Measures by id: a jsonb object is looked up per row without a join back to the facts.
    const m: Record<string, readonly [number | null, boolean | null]> = {}
    for (const f of measured) m[f.id] = [f.minutes, f.met]
    const q = aggregate(sql, zone, sql`done`)
    return sql`
      WITH v AS (SELECT ${JSON.stringify(m)}::jsonb AS m), done AS (
        UPDATE report_facts f SET rolled = true,
          minutes = (v.m -> f.id::text ->> 0)::int, met = (v.m -> f.id::text ->> 1)::boolean
        FROM v
        WHERE f.workspace_id = ${workspaceId} AND NOT f.rolled AND f.id BETWEEN ${first} AND ${last}
          AND (f.since IS NULL OR v.m ? f.id::text)
        RETURNING f.*
      ), days AS (${q.days}), hours AS (${q.hours})
      SELECT count(*)::int AS n FROM done`.pipe(Effect.asVoid)
  })

/** The zone `report_days` of a workspace were added up in (null: none yet). */
export const rollupZone = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ timezone: string; report_zone: string | null }>`
      SELECT timezone, report_zone FROM workspaces WHERE id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/**
 * Recomputes a workspace's roll-ups from its rolled facts (the measures stored with them), days
 * in `zone`; facts still pending are left to the roll-up.
 */
export const rebuild = (workspaceId: number, zone: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      yield* sql`DELETE FROM report_days WHERE workspace_id = ${workspaceId}`
      yield* sql`DELETE FROM report_hours WHERE workspace_id = ${workspaceId}`
      const q = aggregate(sql, zone, sql`report_facts WHERE workspace_id = ${workspaceId} AND rolled`)
      yield* q.days
      yield* q.hours
      yield* sql`UPDATE workspaces SET report_zone = ${zone} WHERE id = ${workspaceId}`
    }),
  )

/**
 * After a bulk roll-up: fresh statistics (the planner's view of what is pending) and a vacuumed
 * fact table (the roll-up rewrote every row; index-only reads need the visibility map back).
 * Outside any transaction.
 */
export const tidy = () =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.zipRight(sql`VACUUM (ANALYZE) report_facts`, sql`ANALYZE report_days, report_hours`).pipe(
      Effect.asVoid,
    ),
  )

export const setRollupZone = (workspaceId: number, zone: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE workspaces SET report_zone = ${zone} WHERE id = ${workspaceId}`.pipe(Effect.asVoid),
  )

export const workspaceIds = () =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`SELECT id FROM workspaces ORDER BY id`.pipe(Effect.map((r) => r.map((x) => x.id))),
  )

// ---------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------

/**
 * What a report reads: a workspace, a time range [start, end), the channels it may count (null =
 * all), an optional team and person, and where the days come from: the workspace zone's
 * `report_days` (`days` set: the inclusive local dates) or UTC `report_hours` read in `zone`.
 */
export interface Scope {
  readonly workspaceId: number
  readonly start: Date
  readonly end: Date
  readonly zone: string
  readonly days: { readonly from: string; readonly to: string } | null
  readonly channelIds: readonly number[] | null
  readonly teamId: number | null
  readonly userId?: number | null
  readonly channelType?: string | null
}

export type GroupBy = 'none' | 'date' | 'hour' | 'channel' | 'team' | 'user'

export type Row = Measures & { readonly k: string | null }

const SUMS = MEASURES.map((m) => `COALESCE(sum(${m}), 0)::float8 AS ${m}`).join(', ')

/** The scope's workspace, channels, channel type and team over a roll-up table aliased `r`. */
const rollupScope = (sql: SqlClient.SqlClient, s: Scope): Fragment[] => {
  const parts: Fragment[] = [sql`r.workspace_id = ${s.workspaceId}`]
  if (s.channelIds !== null) {
    // Facts without a channel (tickets) are not limited by channel.
    parts.push(sql`(r.channel_id = ANY(${pgArray(s.channelIds)}::int[]) OR r.channel_id = 0)`)
  }
  if (s.channelType) {
    parts.push(sql`r.channel_id IN (SELECT id FROM channels WHERE workspace_id = ${s.workspaceId}
      AND type = ${s.channelType})`)
  }
  if (s.teamId !== null) parts.push(sql`r.team_id = ${s.teamId}`)
  return parts
}

/**
 * Sums of the roll-ups over the scope, grouped. `hour` and any read in a zone other than the
 * workspace's use `report_hours`; `user` needs `report_days` (people are kept per workspace day).
 */
export const sums = (s: Scope, by: GroupBy) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const useDays = (s.days !== null && by !== 'hour') || by === 'user' || s.userId != null
    const parts = rollupScope(sql, s)
    if (s.userId != null) parts.push(sql`r.user_id = ${s.userId}`)
    let from: Fragment
    let key: Fragment
    if (useDays) {
      const days = s.days ?? { from: '0001-01-01', to: '0001-01-01' }
      from = sql`report_days r`
      parts.push(sql`r.day BETWEEN ${days.from}::date AND ${days.to}::date`)
      key =
        by === 'date'
          ? sql`to_char(r.day, 'YYYY-MM-DD')`
          : by === 'channel'
            ? sql`r.channel_id::text`
            : by === 'team'
              ? sql`r.team_id::text`
              : by === 'user'
                ? sql`r.user_id::text`
                : sql`NULL::text`
    } else {
      from = sql`report_hours r`
      parts.push(sql`r.hour >= ${s.start} AND r.hour < ${s.end}`)
      key =
        by === 'date'
          ? sql`to_char(r.hour AT TIME ZONE ${s.zone}, 'YYYY-MM-DD')`
          : by === 'hour'
            ? sql`extract(hour FROM r.hour AT TIME ZONE ${s.zone})::int::text`
            : by === 'channel'
              ? sql`r.channel_id::text`
              : by === 'team'
                ? sql`r.team_id::text`
                : sql`NULL::text`
    }
    return sql<Row>`SELECT ${key} AS k, ${sql.literal(SUMS)} FROM ${from} WHERE ${sql.and(parts)} GROUP BY 1`
  })

/**
 * Messages in per hour of the day in the scope's zone (the hourly report), from `report_hours`.
 * Only the one measure, summed per stored hour before the zone's arithmetic: over a year the
 * general `sums` added 21 measures over ~175,000 rows (~200 ms); this reads migration 0112's
 * index alone and converts 8,760 hours. A person's scope has no hours (people are kept per day):
 * it goes through `sums` as before.
 */
export const inByHourOfDay = (s: Scope) =>
  s.userId != null
    ? sums(s, 'hour')
    : Effect.flatMap(SqlClient.SqlClient, (sql) => {
        const parts = [...rollupScope(sql, s), sql`r.hour >= ${s.start} AND r.hour < ${s.end}`]
        return sql<{ readonly k: string; readonly messages_in: number }>`
          SELECT extract(hour FROM x.hour AT TIME ZONE ${s.zone})::int::text AS k, sum(x.n)::float8 AS messages_in
          FROM (SELECT r.hour, sum(r.messages_in) AS n FROM report_hours r WHERE ${sql.and(parts)} GROUP BY r.hour) x
          GROUP BY 1`
      })

/** Per person and channel type, from `report_days` (the KPI cards). */
export const sumsByPersonAndType = (s: Scope) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const days = s.days ?? { from: '0001-01-01', to: '0001-01-01' }
    const parts: Fragment[] = [
      sql`r.workspace_id = ${s.workspaceId}`,
      sql`r.day BETWEEN ${days.from}::date AND ${days.to}::date`,
      sql`r.user_id <> 0`,
    ]
    if (s.channelIds !== null) {
      // Facts without a channel (tickets) are not limited by channel.
      parts.push(sql`(r.channel_id = ANY(${pgArray(s.channelIds)}::int[]) OR r.channel_id = 0)`)
    }
    if (s.teamId !== null) parts.push(sql`r.team_id = ${s.teamId}`)
    if (s.userId != null) parts.push(sql`r.user_id = ${s.userId}`)
    if (s.channelType) parts.push(sql`ch.type = ${s.channelType}`)
    return sql<Row & { readonly user_id: number; readonly channel_type: string | null }>`
      SELECT r.user_id, ch.type AS channel_type, NULL::text AS k, ${sql.literal(SUMS.replaceAll('sum(', 'sum(r.'))}
      FROM report_days r LEFT JOIN channels ch ON ch.id = r.channel_id
      WHERE ${sql.and(parts)} GROUP BY 1, 2`
  })

/** Per day of the workspace zone for one person (the KPI daily rows). */
export const personDaily = (s: Scope, userId: number) => sums({ ...s, userId }, 'date')

const factScope = (sql: SqlClient.SqlClient, s: Scope): Fragment[] => {
  const parts: Fragment[] = [
    sql`f.workspace_id = ${s.workspaceId}`,
    sql`f.at >= ${s.start} AND f.at < ${s.end}`,
  ]
  if (s.channelIds !== null) {
    // Facts without a channel (tickets) are not limited by channel, as in the roll-ups.
    parts.push(sql`(f.channel_id = ANY(${pgArray(s.channelIds)}::int[]) OR f.channel_id IS NULL)`)
  }
  if (s.teamId !== null) parts.push(sql`f.team_id = ${s.teamId}`)
  if (s.userId != null) parts.push(sql`f.user_id = ${s.userId}`)
  if (s.channelType) parts.push(sql`f.channel_type = ${s.channelType}`)
  return parts
}

/** The median first response (business minutes) over the scope, from the first-response facts. */
export const medianFirstResponse = (s: Scope) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ m: number | null }>`
      SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY f.minutes) AS m FROM report_facts f
      WHERE kind = 'out' AND first AND rolled AND ${sql.and(factScope(sql, s))}`.pipe(
      Effect.map((r) => (r[0]?.m === null || r[0]?.m === undefined ? null : Number(r[0].m))),
    ),
  )

/** Open conversations waiting for a reply now (new or waiting), under the scope's channels and team. */
export const unrepliedNow = (
  s: Pick<Scope, 'workspaceId' | 'channelIds' | 'teamId'> & { assigneeId?: number },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const parts: Fragment[] = [
      sql`workspace_id = ${s.workspaceId}`,
      sql`status = 'open'`,
      sql`reply_state IN ('new', 'waiting')`,
    ]
    if (s.channelIds !== null) parts.push(sql`channel_id = ANY(${pgArray(s.channelIds)}::int[])`)
    if (s.teamId !== null) parts.push(sql`team_id = ${s.teamId}`)
    if (s.assigneeId !== undefined) parts.push(sql`assignee_id = ${s.assigneeId}`)
    return sql<{ n: number }>`SELECT count(*)::int AS n FROM conversations WHERE ${sql.and(parts)}`.pipe(
      Effect.map((r) => r[0]?.n ?? 0),
    )
  })

const conversationScope = (sql: SqlClient.SqlClient, s: Scope): Fragment[] => {
  const parts: Fragment[] = [
    sql`c.workspace_id = ${s.workspaceId}`,
    sql`c.first_in_at >= ${s.start} AND c.first_in_at < ${s.end}`,
  ]
  if (s.channelIds !== null) parts.push(sql`c.channel_id = ANY(${pgArray(s.channelIds)}::int[])`)
  if (s.teamId !== null) parts.push(sql`c.team_id = ${s.teamId}`)
  return parts
}

/** Incoming conversations of the range by their category now (null = none). */
export const conversationsByCategory = (s: Scope) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ category_id: number | null; n: number }>`
      SELECT c.category_id, count(*)::int AS n FROM conversations c
      WHERE ${sql.and(conversationScope(sql, s))} GROUP BY 1`,
  )

/** Incoming conversations of the range by the labels their contact has now. */
export const conversationsByLabel = (s: Scope) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ label_id: number; n: number }>`
      SELECT cl.label_id, count(*)::int AS n FROM conversations c
      JOIN contact_labels cl ON cl.contact_id = c.contact_id
      WHERE ${sql.and(conversationScope(sql, s))} GROUP BY 1`,
  )

export interface FactRow {
  readonly id: number
  readonly at: Date
  readonly kind: string
  readonly conversation_id: number | null
  readonly ticket_id: number | null
  readonly channel_id: number | null
  readonly channel_type: string | null
  readonly team_id: number | null
  readonly team_name: string | null
  readonly user_id: number | null
  readonly user_name: string | null
  readonly first: boolean
  readonly since: Date | null
  readonly minutes: number | null
  readonly met: boolean | null
}

export type FactKinds = 'replies' | 'conversations' | 'tickets' | 'breaches'

const kindWhere = (sql: SqlClient.SqlClient, kinds: FactKinds): Fragment => {
  switch (kinds) {
    case 'replies':
      return sql`f.kind = 'out'`
    case 'conversations':
      return sql`f.kind = 'resolved'`
    case 'tickets':
      return sql`f.kind IN ('ticket_created', 'ticket_first_response', 'ticket_resolved')`
    case 'breaches':
      return sql`f.rolled AND f.met = false`
  }
}

/** A page of raw facts in time order after the keyset `after` (the KPI export and breaches). */
export const facts = (
  s: Scope,
  kinds: FactKinds,
  page: { readonly limit: number; readonly after?: { readonly at: Date; readonly id: number } },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const parts = [...factScope(sql, s), kindWhere(sql, kinds)]
    if (page.after) parts.push(sql`(f.at, f.id) > (${page.after.at}, ${page.after.id})`)
    return sql<FactRow>`
      SELECT f.id::float8 AS id, f.at, f.kind, f.conversation_id::float8 AS conversation_id,
             f.ticket_id::float8 AS ticket_id, f.channel_id, f.channel_type, f.team_id,
             (SELECT t.name FROM teams t WHERE t.id = f.team_id) AS team_name, f.user_id,
             (SELECT u.name FROM users u WHERE u.id = f.user_id) AS user_name, f.first, f.since, f.minutes, f.met
      FROM report_facts f WHERE ${sql.and(parts)}
      ORDER BY f.at, f.id LIMIT ${page.limit}`
  })

// ---------------------------------------------------------------------------------------------
// KPI targets
// ---------------------------------------------------------------------------------------------

export interface TargetRow {
  readonly scope: 'workspace' | 'team' | 'user'
  readonly scope_id: number
  readonly metric: string
  readonly value: number
}

export const targets = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<TargetRow>`
      SELECT scope, scope_id, metric, value FROM kpi_targets WHERE workspace_id = ${workspaceId}
      ORDER BY scope, scope_id, metric`,
  )

/**
 * Saves targets: each workspace metric given is set (null removes it, back to the default); when
 * `overrides` is given it replaces every team and personal override.
 */
export const saveTargets = (
  workspaceId: number,
  workspaceTargets: Readonly<Record<string, number | null>> | undefined,
  overrides: ReadonlyArray<Omit<TargetRow, 'scope'> & { readonly scope: 'team' | 'user' }> | undefined,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        for (const [metric, value] of Object.entries(workspaceTargets ?? {})) {
          if (value === null) {
            yield* sql`DELETE FROM kpi_targets WHERE workspace_id = ${workspaceId} AND scope = 'workspace'
              AND metric = ${metric}`
          } else {
            yield* sql`INSERT INTO kpi_targets (workspace_id, scope, scope_id, metric, value)
              VALUES (${workspaceId}, 'workspace', 0, ${metric}, ${value})
              ON CONFLICT (workspace_id, scope, scope_id, metric) DO UPDATE SET value = EXCLUDED.value`
          }
        }
        if (overrides !== undefined) {
          yield* sql`DELETE FROM kpi_targets WHERE workspace_id = ${workspaceId} AND scope <> 'workspace'`
          for (const o of overrides) {
            yield* sql`INSERT INTO kpi_targets (workspace_id, scope, scope_id, metric, value)
              VALUES (${workspaceId}, ${o.scope}, ${o.scope_id}, ${o.metric}, ${o.value})
              ON CONFLICT (workspace_id, scope, scope_id, metric) DO UPDATE SET value = EXCLUDED.value`
          }
        }
      }),
    ),
  )

/** Channels of a workspace with their own hours (`settings.hours`), type and name. */
export const channels = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{
      id: number
      type: 'msgapp' | 'email' | 'livechat' | 'api'
      name: string
      hours: unknown
      archived_at: Date | null
    }>`
      SELECT id, type, name, settings->'hours' AS hours, archived_at FROM channels
      WHERE workspace_id = ${workspaceId} ORDER BY id`,
  )

type ReportChannel = Effect.Effect.Success<ReturnType<typeof channels>>[number]

/** What a workspace's SLA levels are computed from: its channels' hours and its KPI targets. */
export interface SlaInputs {
  readonly channels: readonly ReportChannel[]
  readonly targets: readonly TargetRow[]
}

/**
 * The inbox list shows each row's SLA level, and agents' apps reload the list on every change: two
 * reads of settings that change a few times a year, on every list request (a third of its
 * statements). Kept per node for `SLA_INPUTS_TTL_MS`, then answered while one refresh runs behind
 * (engine/memo): a change of hours or targets shows in the list's levels within about two TTLs.
 * Reports and KPI screens read them fresh.
 */
export const SLA_INPUTS_TTL_MS = 2_000
export class SlaInputsMemo extends Context.Tag('kotak/SlaInputsMemo')<
  SlaInputsMemo,
  Memo.Memo<SlaInputs, SqlError.SqlError>
>() {}

export const slaInputsMemoLayer: Layer.Layer<SlaInputsMemo> = Layer.sync(SlaInputsMemo, () =>
  Memo.make<SlaInputs, SqlError.SqlError>(SLA_INPUTS_TTL_MS),
)

/** A workspace's SLA inputs, read fresh. */
export const slaInputs = (workspaceId: number) =>
  Effect.map(
    Effect.all([channels(workspaceId), targets(workspaceId)], { concurrency: 'unbounded' }),
    ([c, t]): SlaInputs => ({ channels: c, targets: t }),
  )

/** A workspace's SLA inputs as this node kept them (at most about two TTLs old). */
export const slaInputsKept = (workspaceId: number) =>
  Effect.flatMap(SlaInputsMemo, (memo) => memo.get(String(workspaceId), '', slaInputs(workspaceId)))

/** Teams of a person in a workspace (for team overrides of their targets). */
export const teamsOf = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ user_id: number; team_id: number; type: 'frontline' | 'backoffice' }>`
      SELECT tm.user_id, tm.team_id, t.type FROM team_members tm JOIN teams t ON t.id = tm.team_id
      WHERE t.workspace_id = ${workspaceId} ORDER BY tm.team_id`,
  )

/** Active members with their names (rows of the agents report and KPI cards). */
export const activePeople = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ id: number; name: string; email: string; avatar_url: string | null }>`
      SELECT u.id, u.name, u.email, u.avatar_url FROM members m JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = ${workspaceId} AND m.status = 'active' ORDER BY lower(u.name), u.id`,
  )

/** The workspace's contact labels in their order (rows of the label breakdown). */
export const labels = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ id: number; name: string; color: string }>`
      SELECT id, name, color FROM labels WHERE workspace_id = ${workspaceId} ORDER BY position, lower(name), id`,
  )
