import { SqlClient } from '@effect/sql'
import type { Fragment } from '@effect/sql/Statement'
import { Effect } from 'effect'

/**
 * Segments (spec 2 §2, §4.8): saved rule sets over contacts, and the compiler that turns rules into
 * ONE SQL condition over `contacts c` (no contact is ever evaluated in JavaScript). The rules
 * arrive already checked against the field catalogue (actors/broadcasts/segmentFields.ts), as
 * `Cond` values whose dates are resolved to UTC bounds in the workspace zone.
 */
export interface SegmentRow {
  readonly id: number
  readonly workspace_id: number
  readonly name: string
  readonly description: string
  readonly match: 'all' | 'any'
  readonly rules: ReadonlyArray<Readonly<Record<string, unknown>>>
  readonly last_count: number | null
  readonly last_counted_at: Date | null
  readonly created_by: number | null
  readonly created_at: Date
  readonly updated_at: Date
}

export type TextColumn =
  | 'name'
  | 'phone'
  | 'email'
  | 'company'
  | 'job_title'
  | 'address'
  | 'city'
  | 'language'
export type TextOp =
  | 'equals'
  | 'not_equals'
  | 'contains'
  | 'not_contains'
  | 'starts_with'
  | 'is_empty'
  | 'is_not_empty'
export type NumberOp =
  | 'equals'
  | 'not_equals'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'between'
  | 'is_empty'
  | 'is_not_empty'
export type DateColumn = 'created' | 'last_activity' | 'last_inbound'

/** One compiled rule. `range` bounds are UTC instants: `from` inclusive, `to` exclusive. */
export type Cond =
  | { readonly kind: 'text'; readonly column: TextColumn; readonly op: TextOp; readonly value: string }
  | { readonly kind: 'custom_text'; readonly key: string; readonly op: TextOp; readonly value: string }
  | {
      readonly kind: 'custom_number'
      readonly key: string
      readonly op: NumberOp
      readonly value: number
      readonly value2: number
    }
  | {
      readonly kind: 'custom_date'
      readonly key: string
      readonly op: 'range' | 'not_range' | 'is_empty' | 'is_not_empty'
      readonly from: string | null
      readonly to: string | null
    }
  | { readonly kind: 'custom_bool'; readonly key: string; readonly value: boolean }
  | { readonly kind: 'label'; readonly has: boolean; readonly labelId: number }
  | {
      readonly kind: 'msgapp_label'
      readonly has: boolean
      readonly channelId: number
      readonly labelId: string
    }
  | { readonly kind: 'channel'; readonly has: boolean; readonly channelId: number }
  | {
      readonly kind: 'owner'
      readonly op: 'is' | 'is_not' | 'is_empty' | 'is_not_empty'
      readonly userId: number
    }
  | {
      readonly kind: 'date'
      readonly column: DateColumn
      readonly op: 'range' | 'not_range' | 'is_empty' | 'is_not_empty'
      readonly from: Date | null
      readonly to: Date | null
    }
  | { readonly kind: 'opt_out'; readonly value: boolean }

/** Listed and matched contacts only: not on their way out through a merge or a delete. */
export const LIVE = 'c.merged_into IS NULL AND c.deleting_at IS NULL'

const like = (v: string) => v.replace(/[\\%_]/g, (ch) => `\\${ch}`)

const textCond = (sql: SqlClient.SqlClient, expr: Fragment, op: TextOp, value: string): Fragment => {
  const v = value.trim().toLowerCase()
  switch (op) {
    case 'equals':
      return sql`lower(${expr}) = ${v}`
    case 'not_equals':
      return sql`(${expr} IS NULL OR lower(${expr}) <> ${v})`
    case 'contains':
      return sql`${expr} ILIKE ${`%${like(v)}%`}`
    case 'not_contains':
      return sql`(${expr} IS NULL OR ${expr} NOT ILIKE ${`%${like(v)}%`})`
    case 'starts_with':
      return sql`${expr} ILIKE ${`${like(v)}%`}`
    case 'is_empty':
      return sql`COALESCE(${expr}, '') = ''`
    case 'is_not_empty':
      return sql`COALESCE(${expr}, '') <> ''`
  }
}

/** A custom value as a number, or null when it is not one (never an error in the query). */
const customNumber = (sql: SqlClient.SqlClient, key: string) =>
  sql`(CASE WHEN jsonb_typeof(c.custom -> ${key}) = 'number' THEN (c.custom ->> ${key})::numeric
    WHEN c.custom ->> ${key} ~ '^-?[0-9]+(\\.[0-9]+)?$' THEN (c.custom ->> ${key})::numeric END)`

/** A custom date value (`YYYY-MM-DD`), or null when it is not one. */
const customDate = (sql: SqlClient.SqlClient, key: string) =>
  sql`(CASE WHEN c.custom ->> ${key} ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' THEN c.custom ->> ${key} END)`

const DATE_EXPR: Readonly<Record<DateColumn, string>> = {
  created: 'c.created_at',
  last_activity: `(SELECT max(cv.last_message_at) FROM conversations cv WHERE cv.contact_id = c.id)`,
  last_inbound: `(SELECT max(m.created_at) FROM conversations cv JOIN messages m ON m.conversation_id = cv.id
    WHERE cv.contact_id = c.id AND m.direction = 'in')`,
}

const rangeOf = (
  sql: SqlClient.SqlClient,
  expr: Fragment,
  op: 'range' | 'not_range' | 'is_empty' | 'is_not_empty',
  from: Date | string | null,
  to: Date | string | null,
): Fragment => {
  if (op === 'is_empty') return sql`${expr} IS NULL`
  if (op === 'is_not_empty') return sql`${expr} IS NOT NULL`
  const parts: Fragment[] = [sql`${expr} IS NOT NULL`]
  if (from !== null) parts.push(sql`${expr} >= ${from}`)
  if (to !== null) parts.push(sql`${expr} < ${to}`)
  const inside = sql.and(parts)
  return op === 'range' ? inside : sql`NOT COALESCE(${inside}, false)`
}

const condOf = (sql: SqlClient.SqlClient, c: Cond): Fragment => {
  switch (c.kind) {
    case 'text':
      return textCond(sql, sql`c.${sql(c.column)}`, c.op, c.value)
    case 'custom_text':
      return textCond(sql, sql`(c.custom ->> ${c.key})`, c.op, c.value)
    case 'custom_number': {
      const n = customNumber(sql, c.key)
      switch (c.op) {
        case 'equals':
          return sql`${n} = ${c.value}`
        case 'not_equals':
          return sql`(${n} IS NULL OR ${n} <> ${c.value})`
        case 'gt':
          return sql`${n} > ${c.value}`
        case 'gte':
          return sql`${n} >= ${c.value}`
        case 'lt':
          return sql`${n} < ${c.value}`
        case 'lte':
          return sql`${n} <= ${c.value}`
        case 'between':
          return sql`${n} BETWEEN ${c.value} AND ${c.value2}`
        case 'is_empty':
          return sql`${n} IS NULL`
        case 'is_not_empty':
          return sql`${n} IS NOT NULL`
      }
      return sql`false`
    }
    case 'custom_date':
      return rangeOf(sql, customDate(sql, c.key), c.op, c.from, c.to)
    case 'custom_bool':
      return c.value
        ? sql`c.custom -> ${c.key} = 'true'::jsonb`
        : sql`COALESCE(c.custom -> ${c.key}, 'false'::jsonb) <> 'true'::jsonb`
    case 'label': {
      const e = sql`EXISTS (SELECT 1 FROM contact_labels cl WHERE cl.contact_id = c.id AND cl.label_id = ${c.labelId})`
      return c.has ? e : sql`NOT ${e}`
    }
    case 'msgapp_label': {
      const e = sql`EXISTS (SELECT 1 FROM contact_msgapp_labels ml WHERE ml.contact_id = c.id
        AND ml.channel_id = ${c.channelId} AND ml.label_id = ${c.labelId})`
      return c.has ? e : sql`NOT ${e}`
    }
    case 'channel': {
      const e = sql`EXISTS (SELECT 1 FROM conversations cv WHERE cv.contact_id = c.id AND cv.channel_id = ${c.channelId})`
      return c.has ? e : sql`NOT ${e}`
    }
    case 'owner':
      switch (c.op) {
        case 'is':
          return sql`c.owner_id = ${c.userId}`
        case 'is_not':
          return sql`c.owner_id IS DISTINCT FROM ${c.userId}`
        case 'is_empty':
          return sql`c.owner_id IS NULL`
        case 'is_not_empty':
          return sql`c.owner_id IS NOT NULL`
      }
      return sql`false`
    case 'date':
      return rangeOf(sql, sql.literal(DATE_EXPR[c.column]), c.op, c.from, c.to)
    case 'opt_out':
      return c.value ? sql`c.broadcast_opt_out` : sql`NOT c.broadcast_opt_out`
  }
}

/** The segment as one condition over `contacts c` (live contacts of the workspace). */
export const whereOf = (
  sql: SqlClient.SqlClient,
  workspaceId: number,
  match: 'all' | 'any',
  conds: readonly Cond[],
): Fragment => {
  const base = sql.and([sql`c.workspace_id = ${workspaceId}`, sql.literal(LIVE)])
  if (conds.length === 0) return base
  const rules = conds.map((c) => sql`(${condOf(sql, c)})`)
  return sql.and([base, match === 'all' ? sql.and(rules) : sql.or(rules)])
}

export interface Sample {
  readonly id: number
  readonly name: string
  readonly phone: string | null
  readonly email: string | null
}

/** Count, with a phone, opted out, and the first `samples` members (by name). */
export const preview = (workspaceId: number, match: 'all' | 'any', conds: readonly Cond[], samples: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const where = whereOf(sql, workspaceId, match, conds)
      const [counts] = yield* sql<{ count: number; with_phone: number; unsubscribed: number }>`
        SELECT count(*)::int AS count,
               count(*) FILTER (WHERE COALESCE(c.phone, '') <> '')::int AS with_phone,
               count(*) FILTER (WHERE c.broadcast_opt_out)::int AS unsubscribed
        FROM contacts c WHERE ${where}`
      const rows = yield* sql<Sample>`
        SELECT c.id, c.name, c.phone, c.email FROM contacts c WHERE ${where}
        ORDER BY lower(c.name), c.id LIMIT ${samples}`
      return {
        count: counts?.count ?? 0,
        with_phone: counts?.with_phone ?? 0,
        unsubscribed: counts?.unsubscribed ?? 0,
        samples: rows,
      }
    }),
  )

export interface MemberRow extends Sample {
  readonly company: string | null
  readonly city: string | null
  readonly broadcast_opt_out: boolean
  readonly created_at: Date
}

/** Members in id order after `afterId`, `limit` at a time (the CSV export's pages). */
export const members = (
  workspaceId: number,
  match: 'all' | 'any',
  conds: readonly Cond[],
  afterId: number,
  limit: number,
) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<MemberRow>`
      SELECT c.id, c.name, c.phone, c.email, c.company, c.city, c.broadcast_opt_out, c.created_at
      FROM contacts c WHERE ${whereOf(sql, workspaceId, match, conds)} AND c.id > ${afterId}
      ORDER BY c.id LIMIT ${limit}`,
  )

// ---- Saved segments ---------------------------------------------------------------------------

export interface SegmentView extends SegmentRow {
  /** Broadcasts whose audience names the segment. */
  readonly broadcasts_count: number
}

const VIEW = `SELECT s.*, (SELECT count(*)::int FROM broadcasts b WHERE b.workspace_id = s.workspace_id
  AND b.audience -> 'segment_ids' @> to_jsonb(s.id)) AS broadcasts_count FROM segments s`

export const list = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<SegmentView>`${sql.literal(VIEW)} WHERE s.workspace_id = ${workspaceId} ORDER BY lower(s.name), s.id`,
  )

export const byId = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<SegmentView>`${sql.literal(VIEW)} WHERE s.workspace_id = ${workspaceId} AND s.id = ${id}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const byIds = (workspaceId: number, ids: readonly number[]) =>
  ids.length === 0
    ? Effect.succeed([] as readonly SegmentRow[])
    : Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<SegmentRow>`SELECT * FROM segments WHERE workspace_id = ${workspaceId} AND id IN ${sql.in(ids)}`,
      )

/**
 * The segment locked until the transaction ends: a change reads, checks and rewrites the whole
 * row, so two changes at once take turns and the second starts from the first's result.
 */
export const lockById = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<SegmentRow>`SELECT * FROM segments WHERE workspace_id = ${workspaceId} AND id = ${id} FOR UPDATE`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const nameTaken = (workspaceId: number, name: string, except: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`SELECT id FROM segments WHERE workspace_id = ${workspaceId}
      AND lower(name) = lower(${name}) AND id <> ${except}`.pipe(Effect.map((r) => r.length > 0)),
  )

export interface SegmentFields {
  readonly name: string
  readonly description: string
  readonly match: 'all' | 'any'
  readonly rules: ReadonlyArray<Readonly<Record<string, unknown>>>
}

/** A new segment, or null when the name is taken (unique index, case-insensitive). */
export const insert = (
  workspaceId: number,
  f: SegmentFields,
  count: number,
  at: Date,
  userId: number | null,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      INSERT INTO segments (workspace_id, name, description, match, rules, last_count, last_counted_at, created_by)
      VALUES (${workspaceId}, ${f.name}, ${f.description}, ${f.match}, ${JSON.stringify(f.rules)}::jsonb,
              ${count}, ${at}, ${userId})
      ON CONFLICT DO NOTHING RETURNING id`.pipe(Effect.map((r) => r[0]?.id ?? null)),
  )

/** Rewrites a segment; false when the name is taken. */
export const update = (id: number, f: SegmentFields, count: number, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE segments SET name = ${f.name}, description = ${f.description}, match = ${f.match},
          rules = ${JSON.stringify(f.rules)}::jsonb, last_count = ${count}, last_counted_at = ${at},
          updated_at = now()
        WHERE id = ${id}`.pipe(
      Effect.as(true),
      Effect.catchTag('SqlError', (e) =>
        String(e.cause).includes('segments_name_key') ? Effect.succeed(false) : Effect.fail(e),
      ),
    ),
  )

export const setCount = (id: number, count: number, at: Date) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`UPDATE segments SET last_count = ${count}, last_counted_at = ${at} WHERE id = ${id}`,
  )

/**
 * Deletes a segment unless a scheduled, running or paused broadcast uses it: the check and the
 * delete run under a lock on the segment row, and locking a broadcast's list takes the same lock.
 */
export const removeUnlessUsed = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [row] = yield* sql<{ id: number }>`
          SELECT id FROM segments WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`
        if (!row) return 'missing' as const
        const [used] = yield* sql<{ id: number }>`
          SELECT id FROM broadcasts WHERE workspace_id = ${workspaceId}
            AND status IN ('scheduled', 'running', 'paused') AND audience -> 'segment_ids' @> to_jsonb(${id}::int)
          LIMIT 1`
        if (used) return 'used' as const
        yield* sql`DELETE FROM segments WHERE id = ${id}`
        return 'deleted' as const
      }),
    ),
  )
