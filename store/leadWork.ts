import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

/**
 * The work on a lead (spec 2 §2, §4.7): its timeline of activities and changes, files, checklist,
 * calendar events with their reminders, and expenses with receipts. Every row names its lead;
 * who may see it is the lead's rule (store/leads `visibleWhere`), checked by the caller first.
 */

// ---- Activities ------------------------------------------------------------------------------

export const ACTIVITY_KINDS = ['call', 'chat', 'email', 'meeting', 'visit', 'note', 'other'] as const
export type ActivityKind = (typeof ACTIVITY_KINDS)[number]

export interface ActivityRow {
  readonly id: number
  readonly workspace_id: number
  readonly lead_id: number
  readonly kind: ActivityKind | 'change'
  readonly body: string
  readonly happened_at: Date
  readonly duration_minutes: number | null
  readonly data: Readonly<Record<string, unknown>>
  readonly author_id: number | null
  readonly author_name: string | null
  readonly created_at: Date
  readonly updated_at: Date
}

const ACTIVITY = `SELECT a.*, u.name AS author_name FROM lead_activities a LEFT JOIN users u ON u.id = a.author_id`

/** Newest first; `before` = an id (older ones); `notes` = notes only. */
export const activities = (leadId: number, o: { before?: number; notes?: boolean; limit: number }) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<ActivityRow>`${sql.literal(ACTIVITY)} WHERE a.lead_id = ${leadId}
      AND (${o.before === undefined} OR a.id < ${o.before ?? 0})
      AND (${!o.notes} OR a.kind = 'note')
      ORDER BY a.id DESC LIMIT ${o.limit}`,
  )

export const activityById = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ActivityRow>`${sql.literal(ACTIVITY)} WHERE a.id = ${id} AND a.workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export interface ActivityFields {
  readonly kind: ActivityKind
  readonly body: string
  readonly happened_at: Date
  readonly duration_minutes: number | null
}

export const insertActivity = (
  workspaceId: number,
  leadId: number,
  a: ActivityFields,
  authorId: number,
  data: Readonly<Record<string, unknown>>,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      id: number
    }>`INSERT INTO lead_activities (workspace_id, lead_id, kind, body, happened_at, duration_minutes, data, author_id)
      VALUES (${workspaceId}, ${leadId}, ${a.kind}, ${a.body}, ${a.happened_at}, ${a.duration_minutes},
              ${JSON.stringify(data)}::jsonb, ${authorId})
      RETURNING id`.pipe(Effect.map((r) => r[0]!.id)),
  )

export const updateActivity = (
  id: number,
  a: Partial<ActivityFields>,
  data?: Readonly<Record<string, unknown>>,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE lead_activities SET
        kind = COALESCE(${a.kind ?? null}, kind),
        body = COALESCE(${a.body ?? null}, body),
        happened_at = COALESCE(${a.happened_at ?? null}, happened_at),
        duration_minutes = CASE WHEN ${a.duration_minutes !== undefined} THEN ${a.duration_minutes ?? null}::int ELSE duration_minutes END,
        data = CASE WHEN ${data !== undefined} THEN ${JSON.stringify(data ?? {})}::jsonb ELSE data END,
        updated_at = now()
      WHERE id = ${id}`.pipe(Effect.asVoid),
  )

export const removeActivity = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DELETE FROM lead_activities WHERE id = ${id}`.pipe(Effect.asVoid),
  )

// ---- Files -----------------------------------------------------------------------------------

export interface LeadFileRow {
  readonly id: number
  readonly workspace_id: number
  readonly lead_id: number
  readonly file_id: number
  readonly uploaded_by: number | null
  readonly uploader_name: string | null
  readonly name: string
  readonly mime: string
  readonly size: number
  readonly created_at: Date
}

const FILE = `SELECT lf.id, lf.workspace_id, lf.lead_id, lf.file_id, lf.uploaded_by, u.name AS uploader_name,
  f.name, f.mime, f.size, lf.created_at
  FROM lead_files lf JOIN files f ON f.id = lf.file_id LEFT JOIN users u ON u.id = lf.uploaded_by`

export const files = (leadId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<LeadFileRow>`${sql.literal(FILE)} WHERE lf.lead_id = ${leadId} ORDER BY lf.id`,
  )

export const fileById = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<LeadFileRow>`${sql.literal(FILE)} WHERE lf.id = ${id} AND lf.workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const insertFile = (workspaceId: number, leadId: number, fileId: number, by: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`INSERT INTO lead_files (workspace_id, lead_id, file_id, uploaded_by)
      VALUES (${workspaceId}, ${leadId}, ${fileId}, ${by}) RETURNING id`.pipe(Effect.map((r) => r[0]!.id)),
  )

/** A file's record (its bytes are removed by the caller once this commits). */
export const removeFileRow = (fileId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DELETE FROM files WHERE id = ${fileId}`.pipe(Effect.asVoid),
  )

export const removeFileLink = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DELETE FROM lead_files WHERE id = ${id}`.pipe(Effect.asVoid),
  )

// ---- Checklist -------------------------------------------------------------------------------

export interface ChecklistRow {
  readonly id: number
  readonly workspace_id: number
  readonly lead_id: number
  readonly text: string
  readonly done: boolean
  readonly done_at: Date | null
  readonly done_by: number | null
  readonly position: number
  readonly created_by: number | null
  readonly created_at: Date
  readonly updated_at: Date
}

export const checklist = (leadId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<ChecklistRow>`SELECT * FROM lead_checklist WHERE lead_id = ${leadId} ORDER BY position, id`,
  )

export const checklistItem = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ChecklistRow>`SELECT * FROM lead_checklist WHERE id = ${id} AND workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const insertChecklist = (workspaceId: number, leadId: number, text: string, by: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`INSERT INTO lead_checklist (workspace_id, lead_id, text, position, created_by)
      VALUES (${workspaceId}, ${leadId}, ${text},
              (SELECT COALESCE(max(position) + 1, 0) FROM lead_checklist WHERE lead_id = ${leadId}), ${by})
      RETURNING id`.pipe(Effect.map((r) => r[0]!.id)),
  )

/**
 * Text and done flag; a new `position` moves the item and renumbers the lead's others. A move
 * locks all the lead's items (in id order, before changing any) so that two moves at once wait
 * for each other instead of each holding its item while waiting for the other's (a deadlock).
 */
export const updateChecklist = (
  item: ChecklistRow,
  c: { readonly text?: string; readonly done?: boolean; readonly position?: number },
  by: number,
  at: Date,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        if (c.position !== undefined)
          yield* sql`SELECT id FROM lead_checklist WHERE lead_id = ${item.lead_id} ORDER BY id FOR UPDATE`
        yield* sql`UPDATE lead_checklist SET text = COALESCE(${c.text ?? null}, text),
            done = COALESCE(${c.done ?? null}, done),
            done_at = CASE WHEN ${c.done === true} AND NOT done THEN ${at}
                           WHEN ${c.done === false} THEN NULL ELSE done_at END,
            done_by = CASE WHEN ${c.done === true} AND NOT done THEN ${by}
                           WHEN ${c.done === false} THEN NULL ELSE done_by END,
            updated_at = ${at}
          WHERE id = ${item.id}`
        if (c.position !== undefined) {
          const rows = yield* sql<{ id: number }>`
            SELECT id FROM lead_checklist WHERE lead_id = ${item.lead_id} ORDER BY position, id`
          const ids = rows.map((r) => r.id).filter((x) => x !== item.id)
          ids.splice(Math.min(c.position, ids.length), 0, item.id)
          yield* sql`UPDATE lead_checklist x SET position = o.ord - 1
            FROM unnest(${`{${ids.join(',')}}`}::bigint[]) WITH ORDINALITY AS o(id, ord) WHERE x.id = o.id`
        }
      }),
    ),
  )

export const removeChecklist = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DELETE FROM lead_checklist WHERE id = ${id}`.pipe(Effect.asVoid),
  )

// ---- Events and their reminders --------------------------------------------------------------

export interface EventRow {
  readonly id: number
  readonly workspace_id: number
  readonly lead_id: number
  readonly kind: string
  readonly title: string
  readonly starts_at: Date
  readonly ends_at: Date | null
  readonly location: string | null
  readonly notes: string | null
  readonly remind_minutes: number | null
  readonly remind_at: Date | null
  readonly reminded_at: Date | null
  readonly created_by: number | null
  readonly created_at: Date
  readonly updated_at: Date
}

export const events = (leadId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<EventRow>`SELECT * FROM lead_events WHERE lead_id = ${leadId} ORDER BY starts_at, id`,
  )

export const eventById = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<EventRow>`SELECT * FROM lead_events WHERE id = ${id} AND workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export interface EventFields {
  readonly kind: string
  readonly title: string
  readonly starts_at: Date
  readonly ends_at: Date | null
  readonly location: string | null
  readonly notes: string | null
  readonly remind_minutes: number | null
}

const remindAt = (e: Pick<EventFields, 'starts_at' | 'remind_minutes'>) =>
  e.remind_minutes === null ? null : new Date(e.starts_at.getTime() - e.remind_minutes * 60_000)

export const insertEvent = (workspaceId: number, leadId: number, e: EventFields, by: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      id: number
    }>`INSERT INTO lead_events (workspace_id, lead_id, kind, title, starts_at, ends_at, location, notes,
        remind_minutes, remind_at, created_by)
      VALUES (${workspaceId}, ${leadId}, ${e.kind}, ${e.title}, ${e.starts_at}, ${e.ends_at}, ${e.location}, ${e.notes},
              ${e.remind_minutes}, ${remindAt(e)}, ${by})
      RETURNING id`.pipe(Effect.map((r) => r[0]!.id)),
  )

/**
 * Writes the event's fields as they now are. A changed start or reminder lead time re-arms the
 * reminder (`reminded_at` cleared), so it fires once for the new time.
 */
export const updateEvent = (before: EventRow, e: EventFields) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const rearm =
      e.starts_at.getTime() !== before.starts_at.getTime() || e.remind_minutes !== before.remind_minutes
    return sql`UPDATE lead_events SET kind = ${e.kind}, title = ${e.title}, starts_at = ${e.starts_at},
        ends_at = ${e.ends_at}, location = ${e.location}, notes = ${e.notes}, remind_minutes = ${e.remind_minutes},
        remind_at = ${remindAt(e)}, reminded_at = CASE WHEN ${rearm} THEN NULL ELSE reminded_at END,
        updated_at = now()
      WHERE id = ${before.id}`.pipe(Effect.asVoid)
  })

export const removeEvent = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DELETE FROM lead_events WHERE id = ${id}`.pipe(Effect.asVoid),
  )

export interface DueReminder extends EventRow {
  readonly lead_number: number
  readonly lead_title: string
  readonly lead_assignee_id: number | null
}

/**
 * Whether any reminder is due at `now`: one index probe, outside any transaction, so a sweep
 * that finds nothing (nearly every sweep) opens none (on the embedded database's one connection
 * an idle-looking transaction every two seconds is what its guard watches for).
 */
export const anyDue = (now: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ one: number }>`
      SELECT 1 AS one FROM lead_events WHERE remind_at IS NOT NULL AND reminded_at IS NULL AND remind_at <= ${now}
      LIMIT 1`.pipe(Effect.map((r) => r.length > 0)),
  )

/**
 * Claims reminders due at `now` (at most `max`): marks them reminded and answers them, in the
 * caller's transaction. Rows another node is claiming are skipped (`SKIP LOCKED`), and a claimed
 * row is never due again, so each reminder is handed out once across nodes and restarts.
 */
export const claimDue = (now: Date, max: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<DueReminder>`
      WITH due AS (
        SELECT id FROM lead_events WHERE remind_at IS NOT NULL AND reminded_at IS NULL AND remind_at <= ${now}
        ORDER BY remind_at LIMIT ${max} FOR UPDATE SKIP LOCKED)
      UPDATE lead_events e SET reminded_at = ${now} FROM due, leads l
      WHERE e.id = due.id AND l.id = e.lead_id
      RETURNING e.*, l.number AS lead_number, l.title AS lead_title, l.assignee_id AS lead_assignee_id`,
  )

// ---- Expenses --------------------------------------------------------------------------------

export interface ExpenseRow {
  readonly id: number
  readonly workspace_id: number
  readonly lead_id: number
  readonly spent_on: string
  readonly category: string
  readonly amount: number
  readonly note: string | null
  readonly spent_by: number | null
  readonly spent_by_name: string | null
  readonly recorded_by: number | null
  readonly recorded_by_name: string | null
  readonly receipt_file_id: number | null
  readonly receipt_name: string | null
  readonly receipt_mime: string | null
  readonly receipt_size: number | null
  readonly created_at: Date
  readonly updated_at: Date
}

const EXPENSE = `SELECT x.id, x.workspace_id, x.lead_id, to_char(x.spent_on, 'YYYY-MM-DD') AS spent_on, x.category,
  x.amount::float8 AS amount, x.note, x.spent_by, sb.name AS spent_by_name, x.recorded_by,
  rb.name AS recorded_by_name, x.receipt_file_id, f.name AS receipt_name, f.mime AS receipt_mime,
  f.size AS receipt_size, x.created_at, x.updated_at
  FROM lead_expenses x LEFT JOIN users sb ON sb.id = x.spent_by LEFT JOIN users rb ON rb.id = x.recorded_by
  LEFT JOIN files f ON f.id = x.receipt_file_id`

export const expenses = (leadId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<ExpenseRow>`${sql.literal(EXPENSE)} WHERE x.lead_id = ${leadId} ORDER BY x.spent_on DESC, x.id DESC`,
  )

export const expenseById = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ExpenseRow>`${sql.literal(EXPENSE)} WHERE x.id = ${id} AND x.workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export interface ExpenseFields {
  readonly spent_on: string
  readonly category: string
  readonly amount: number
  readonly note: string | null
  readonly spent_by: number | null
}

export const insertExpense = (
  workspaceId: number,
  leadId: number,
  x: ExpenseFields,
  receiptFileId: number | null,
  by: number,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      id: number
    }>`INSERT INTO lead_expenses (workspace_id, lead_id, spent_on, category, amount, note, spent_by,
        recorded_by, receipt_file_id)
      VALUES (${workspaceId}, ${leadId}, ${x.spent_on}::date, ${x.category}, ${x.amount}, ${x.note}, ${x.spent_by},
              ${by}, ${receiptFileId})
      RETURNING id`.pipe(Effect.map((r) => r[0]!.id)),
  )

export const updateExpense = (id: number, x: ExpenseFields) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE lead_expenses SET spent_on = ${x.spent_on}::date, category = ${x.category}, amount = ${x.amount},
        note = ${x.note}, spent_by = ${x.spent_by}, updated_at = now()
      WHERE id = ${id}`.pipe(Effect.asVoid),
  )

export const removeExpense = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DELETE FROM lead_expenses WHERE id = ${id}`.pipe(Effect.asVoid),
  )

/** Sum of a lead's expenses. */
export const expenseTotal = (leadId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ total: number }>`SELECT COALESCE(sum(amount), 0)::float8 AS total FROM lead_expenses
      WHERE lead_id = ${leadId}`.pipe(Effect.map((r) => r[0]!.total)),
  )
