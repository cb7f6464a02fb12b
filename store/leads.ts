import { SqlClient } from '@effect/sql'
import type { Fragment } from '@effect/sql/Statement'
import { Effect } from 'effect'
import { pgArray } from './arrays'

/**
 * Leads (spec 2 §2, §4.7): the one visibility rule (`visibleWhere`, spec 2 §1 rule 5), the list
 * with its filters and totals, the board, numbering (`insert`: a counter row bumped in the same
 * transaction), the row lock every change takes (`lockForChange`) and the change log.
 */
export type LeadStatus = 'open' | 'won' | 'lost'
export type LeadSource = 'app' | 'api' | 'import'

/** A lead with the names its answers show. Amounts as numbers, `expected_close` as `YYYY-MM-DD`. */
export interface LeadView {
  readonly id: number
  readonly workspace_id: number
  readonly number: number
  readonly title: string
  readonly pipeline_id: number
  readonly stage_id: number
  readonly status: LeadStatus
  readonly team_id: number | null
  readonly assignee_id: number | null
  readonly contact_id: number | null
  readonly client_id: number | null
  readonly interaction_id: number | null
  readonly value_estimate: number | null
  readonly value_won: number | null
  readonly budget: number | null
  readonly expected_close: string | null
  readonly followup_at: Date | null
  readonly followup_note: string | null
  readonly lost_reason: string | null
  readonly lost_note: string | null
  readonly note: string | null
  readonly custom: Readonly<Record<string, unknown>>
  readonly source: LeadSource
  readonly created_by: number | null
  readonly closed_at: Date | null
  readonly stage_changed_at: Date
  readonly created_at: Date
  readonly updated_at: Date
  readonly pipeline_name: string
  readonly stage_label: string
  readonly stage_kind: 'new' | 'progress' | 'won' | 'lost'
  readonly stage_color: string
  readonly stage_probability: number
  readonly team_name: string | null
  readonly assignee_name: string | null
  readonly assignee_avatar_url: string | null
  readonly contact_name: string | null
  readonly contact_phone: string | null
  readonly contact_email: string | null
  readonly client_name: string | null
  readonly creator_name: string | null
}

export const VIEW = `SELECT l.id, l.workspace_id, l.number, l.title, l.pipeline_id, l.stage_id, l.status, l.team_id,
  l.assignee_id, l.contact_id, l.client_id, l.interaction_id, l.value_estimate::float8 AS value_estimate,
  l.value_won::float8 AS value_won, l.budget::float8 AS budget,
  to_char(l.expected_close, 'YYYY-MM-DD') AS expected_close, l.followup_at, l.followup_note, l.lost_reason,
  l.lost_note, l.note, l.custom, l.source, l.created_by, l.closed_at, l.stage_changed_at, l.created_at,
  l.updated_at, p.name AS pipeline_name, s.label AS stage_label, s.kind AS stage_kind, s.color AS stage_color,
  s.probability::int AS stage_probability, t.name AS team_name, a.name AS assignee_name,
  a.avatar_url AS assignee_avatar_url, c.name AS contact_name, c.phone AS contact_phone,
  c.email AS contact_email, cl.name AS client_name, cb.name AS creator_name
  FROM leads l JOIN pipelines p ON p.id = l.pipeline_id JOIN pipeline_stages s ON s.id = l.stage_id
  LEFT JOIN teams t ON t.id = l.team_id LEFT JOIN users a ON a.id = l.assignee_id
  LEFT JOIN contacts c ON c.id = l.contact_id LEFT JOIN clients cl ON cl.id = l.client_id
  LEFT JOIN users cb ON cb.id = l.created_by`

/** Who is looking, for spec 2 §1 rule 5. */
export interface LeadViewer {
  readonly workspaceId: number
  readonly userId: number
  /** Owner, admin roles, view-all members, API keys (rule 6). */
  readonly seesAll: boolean
  /** Holds `leads.view` or `leads.manage`. */
  readonly canView: boolean
}

/**
 * The one visibility rule for leads, as SQL over alias `l`, used by the list, the board, the
 * detail and every sub-resource (activities, files, checklist, events, expenses), the contact's
 * and conversation's lead lists and the PATCH answer. Without a leads permission no lead; those
 * who see all data see every lead; otherwise a lead with an owner is the owner's alone, one without an
 * owner its team's, and one with neither team nor owner is seen by whoever sees its workflow.
 */
export const visibleWhere = (sql: SqlClient.SqlClient, v: LeadViewer): Fragment => {
  if (!v.canView) return sql`false`
  if (v.seesAll) return sql`l.workspace_id = ${v.workspaceId}`
  return sql`l.workspace_id = ${v.workspaceId} AND (
    l.assignee_id = ${v.userId}
    OR (l.assignee_id IS NULL AND l.team_id IS NOT NULL AND EXISTS (
      SELECT 1 FROM team_members tm WHERE tm.team_id = l.team_id AND tm.user_id = ${v.userId}))
    OR (l.assignee_id IS NULL AND l.team_id IS NULL AND (
      NOT EXISTS (SELECT 1 FROM pipeline_teams pt WHERE pt.pipeline_id = l.pipeline_id)
      OR EXISTS (SELECT 1 FROM pipeline_teams pt JOIN team_members tm ON tm.team_id = pt.team_id
                 WHERE pt.pipeline_id = l.pipeline_id AND tm.user_id = ${v.userId}))))`
}

export const visibleById = (v: LeadViewer, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<LeadView>`${sql.literal(VIEW)} WHERE l.id = ${id} AND ${visibleWhere(sql, v)}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** Whether the viewer sees the lead (who a mention or a reminder may reach). */
export const sees = (v: LeadViewer, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT 1 FROM leads l WHERE l.id = ${id} AND ${visibleWhere(sql, v)}`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )

// ---- The list --------------------------------------------------------------------------------

export interface ListFilter {
  readonly pipelineId?: number
  readonly stageId?: number
  readonly status?: LeadStatus
  readonly teamId?: number
  readonly assignee?: 'none' | number
  readonly clientId?: number
  readonly contactId?: number
  readonly interactionId?: number
  readonly q?: string
  /** Follow-up due before this instant (overdue), within [from, to) (today, upcoming), or none. */
  readonly followup?:
    | { readonly kind: 'before'; readonly at: Date }
    | { readonly kind: 'between'; readonly from: Date; readonly to: Date | null }
    | { readonly kind: 'none' }
  readonly createdFrom?: Date
  /** Exclusive. */
  readonly createdTo?: Date
}

export const SORTS = ['created', 'updated', 'title', 'number', 'value', 'expected_close', 'followup'] as const
export type Sort = (typeof SORTS)[number]

const sortColumn: Record<Sort, string> = {
  created: 'l.created_at',
  updated: 'l.updated_at',
  title: 'lower(l.title)',
  number: 'l.number',
  value: 'COALESCE(l.value_won, l.value_estimate)',
  expected_close: 'l.expected_close',
  followup: 'l.followup_at',
}

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`

export const whereOf = (sql: SqlClient.SqlClient, v: LeadViewer, f: ListFilter): Fragment => {
  const parts: Fragment[] = [visibleWhere(sql, v)]
  if (f.pipelineId !== undefined) parts.push(sql`l.pipeline_id = ${f.pipelineId}`)
  if (f.stageId !== undefined) parts.push(sql`l.stage_id = ${f.stageId}`)
  if (f.status !== undefined) parts.push(sql`l.status = ${f.status}`)
  if (f.teamId !== undefined) parts.push(sql`l.team_id = ${f.teamId}`)
  if (f.assignee === 'none') parts.push(sql`l.assignee_id IS NULL`)
  else if (f.assignee !== undefined) parts.push(sql`l.assignee_id = ${f.assignee}`)
  if (f.clientId !== undefined) parts.push(sql`l.client_id = ${f.clientId}`)
  if (f.contactId !== undefined) parts.push(sql`l.contact_id = ${f.contactId}`)
  if (f.interactionId !== undefined) parts.push(sql`l.interaction_id = ${f.interactionId}`)
  if (f.q) {
    const p = likePattern(f.q)
    const n = /^(?:lead-)?(\d{1,15})$/i.exec(f.q)?.[1]
    parts.push(sql`(l.title ILIKE ${p}
      OR EXISTS (SELECT 1 FROM contacts c2 WHERE c2.id = l.contact_id AND (c2.name ILIKE ${p} OR c2.phone ILIKE ${p} OR c2.email ILIKE ${p}))
      OR EXISTS (SELECT 1 FROM clients k2 WHERE k2.id = l.client_id AND k2.name ILIKE ${p})
      OR l.number = ${n === undefined ? -1 : Number(n)})`)
  }
  if (f.followup?.kind === 'none') parts.push(sql`l.followup_at IS NULL`)
  if (f.followup?.kind === 'before') parts.push(sql`l.followup_at < ${f.followup.at}`)
  if (f.followup?.kind === 'between') {
    parts.push(sql`l.followup_at >= ${f.followup.from}`)
    if (f.followup.to !== null) parts.push(sql`l.followup_at < ${f.followup.to}`)
  }
  if (f.createdFrom) parts.push(sql`l.created_at >= ${f.createdFrom}`)
  if (f.createdTo) parts.push(sql`l.created_at < ${f.createdTo}`)
  return sql.and(parts)
}

export const list = (
  v: LeadViewer,
  f: ListFilter,
  sort: Sort,
  dir: 'asc' | 'desc',
  page: { readonly limit: number; readonly offset: number },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const d = dir === 'asc' ? 'ASC' : 'DESC'
    const order = sql.literal(`${sortColumn[sort]} ${d} NULLS LAST, l.id ${d}`)
    return sql<LeadView>`${sql.literal(VIEW)} WHERE ${whereOf(sql, v, f)} ORDER BY ${order}
      LIMIT ${page.limit} OFFSET ${page.offset}`
  })

export interface Totals {
  readonly count: number
  readonly value_estimate: number
  readonly value_won: number
}

export const totals = (v: LeadViewer, f: ListFilter) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<Totals>`SELECT count(*)::int AS count, COALESCE(sum(l.value_estimate), 0)::float8 AS value_estimate,
        COALESCE(sum(l.value_won), 0)::float8 AS value_won
      FROM leads l WHERE ${whereOf(sql, v, f)}`.pipe(Effect.map((r) => r[0]!)),
  )

// ---- The board -------------------------------------------------------------------------------

export interface BoardFigures {
  readonly stage_id: number
  readonly count: number
  readonly value: number
}

/**
 * The board's cards: open leads, and leads closed (Won, Lost) since `closedSince`, at most `max`
 * per stage (one more is fetched so `more` is known), most recently moved first.
 */
export const boardCards = (v: LeadViewer, f: ListFilter, closedSince: Date, max: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<LeadView & { readonly rn: number }>`
      SELECT * FROM (
        SELECT b.*, row_number() OVER (PARTITION BY b.stage_id ORDER BY b.stage_changed_at DESC, b.id DESC) AS rn
        FROM (${sql.literal(VIEW)} WHERE ${whereOf(sql, v, f)}
              AND (l.status = 'open' OR l.closed_at >= ${closedSince})) b) x
      WHERE x.rn <= ${max + 1} ORDER BY x.stage_id, x.rn`,
  )

/** Count and value per stage over the same leads as the cards (Won counts its deal value). */
export const boardFigures = (v: LeadViewer, f: ListFilter, closedSince: Date) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<BoardFigures>`
      SELECT l.stage_id, count(*)::int AS count,
             COALESCE(sum(CASE WHEN l.status = 'won' THEN COALESCE(l.value_won, l.value_estimate) ELSE l.value_estimate END), 0)::float8 AS value
      FROM leads l WHERE ${whereOf(sql, v, f)} AND (l.status = 'open' OR l.closed_at >= ${closedSince})
      GROUP BY l.stage_id`,
  )

// ---- Writing ---------------------------------------------------------------------------------

export interface LeadFields {
  readonly title?: string
  readonly pipeline_id?: number
  readonly stage_id?: number
  readonly status?: LeadStatus
  readonly team_id?: number | null
  readonly assignee_id?: number | null
  readonly contact_id?: number | null
  readonly client_id?: number | null
  readonly interaction_id?: number | null
  readonly value_estimate?: number | null
  readonly value_won?: number | null
  readonly budget?: number | null
  readonly expected_close?: string | null
  readonly followup_at?: Date | null
  readonly followup_note?: string | null
  readonly lost_reason?: string | null
  readonly lost_note?: string | null
  readonly note?: string | null
  readonly closed_at?: Date | null
  readonly stage_changed_at?: Date
}

export const COLUMNS = [
  'title',
  'pipeline_id',
  'stage_id',
  'status',
  'team_id',
  'assignee_id',
  'contact_id',
  'client_id',
  'interaction_id',
  'value_estimate',
  'value_won',
  'budget',
  'expected_close',
  'followup_at',
  'followup_note',
  'lost_reason',
  'lost_note',
  'note',
  'closed_at',
  'stage_changed_at',
] as const satisfies ReadonlyArray<keyof LeadFields>

/**
 * A new lead numbered `LEAD-<n>`: the workspace's counter row is bumped in the caller's
 * transaction (the row lock orders concurrent creations; a rollback takes the number back).
 */
export const insert = (
  workspaceId: number,
  l: LeadFields & {
    readonly title: string
    readonly pipeline_id: number
    readonly stage_id: number
    readonly status: LeadStatus
    readonly custom: Readonly<Record<string, unknown>>
    readonly source: LeadSource
    readonly created_by: number
    readonly at: Date
  },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      // The workflow and stage locked to share: a delete or a stage layout change (which lock the
      // workflow for update) waits for this lead, or went first and then the lead is refused here
      // rather than by the foreign key.
      const [target] = yield* sql`
        SELECT 1 FROM pipelines p JOIN pipeline_stages s ON s.pipeline_id = p.id
        WHERE p.id = ${l.pipeline_id} AND s.id = ${l.stage_id} AND p.archived_at IS NULL
        FOR KEY SHARE OF p, s`
      if (!target) return null
      const [n] = yield* sql<{ last_number: number }>`
        INSERT INTO lead_counters AS c (workspace_id, last_number) VALUES (${workspaceId}, 1)
        ON CONFLICT (workspace_id) DO UPDATE SET last_number = c.last_number + 1
        RETURNING last_number`
      const cols: Fragment[] = []
      const vals: Fragment[] = []
      for (const k of COLUMNS) {
        const v = l[k]
        if (v !== undefined) {
          cols.push(sql`${sql(k)}`)
          vals.push(sql`${v}`)
        }
      }
      const [row] = yield* sql<{ id: number }>`
        INSERT INTO leads (workspace_id, number, custom, source, created_by, created_at, updated_at, ${sql.csv(cols)})
        VALUES (${workspaceId}, ${n!.last_number}, ${JSON.stringify(l.custom)}::jsonb, ${l.source}, ${l.created_by},
                ${l.at}, ${l.at}, ${sql.csv(vals)})
        RETURNING id`
      return { id: row!.id, number: n!.last_number }
    }),
  )

/** The lead's row locked for a change (the caller's transaction), or null when it is gone. */
export const lockForChange = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      id: number
      stage_id: number
      pipeline_id: number
      status: LeadStatus
      value_estimate: number | null
      value_won: number | null
    }>`SELECT id, stage_id, pipeline_id, status, value_estimate::float8 AS value_estimate,
        value_won::float8 AS value_won
      FROM leads WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** Only the fields given change; custom values merged and cleared. */
export const update = (
  id: number,
  f: LeadFields & {
    readonly customSet?: Readonly<Record<string, unknown>>
    readonly customClear?: readonly string[]
  },
  at: Date,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const sets: Fragment[] = [sql`updated_at = ${at}`]
    for (const k of COLUMNS) {
      const v = f[k]
      if (v !== undefined) sets.push(sql`${sql(k)} = ${v}`)
    }
    if (f.customSet !== undefined || f.customClear !== undefined)
      sets.push(
        sql`custom = (custom || ${JSON.stringify(f.customSet ?? {})}::jsonb) - ${pgArray(f.customClear ?? [])}::text[]`,
      )
    return sql`UPDATE leads SET ${sql.csv(sets)} WHERE id = ${id}`.pipe(Effect.asVoid)
  })

/** The lead's row as stored (before a change, to log what changed). */
export const rawById = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<LeadView>`${sql.literal(VIEW)} WHERE l.id = ${id} AND l.workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** One entry of the lead's change log (kind `change` on the timeline). */
export const recordChange = (
  workspaceId: number,
  leadId: number,
  data: Readonly<Record<string, unknown>>,
  authorId: number | null,
  at: Date,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO lead_activities (workspace_id, lead_id, kind, happened_at, data, author_id, created_at, updated_at)
      VALUES (${workspaceId}, ${leadId}, 'change', ${at}, ${JSON.stringify(data)}::jsonb, ${authorId}, ${at}, ${at})`.pipe(
      Effect.asVoid,
    ),
  )

/** Deletes the lead and its work; answers the files whose bytes are to be removed after commit. */
export const remove = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const files = yield* sql<{ id: number; storage_key: string }>`
          SELECT f.id, f.storage_key FROM files f WHERE f.id IN (
            SELECT file_id FROM lead_files WHERE lead_id = ${id}
            UNION SELECT receipt_file_id FROM lead_expenses WHERE lead_id = ${id} AND receipt_file_id IS NOT NULL)`
        yield* sql`DELETE FROM leads WHERE id = ${id}`
        if (files.length > 0) yield* sql`DELETE FROM files WHERE id IN ${sql.in(files.map((f) => f.id))}`
        return files
      }),
    ),
  )

/** Open leads of a contact in a workflow (the duplicates check), visible or not. */
export const openOfContact = (workspaceId: number, contactId: number, pipelineId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ id: number }>`SELECT l.id FROM leads l WHERE l.workspace_id = ${workspaceId}
      AND l.contact_id = ${contactId} AND l.pipeline_id = ${pipelineId} AND l.status = 'open'`,
  )

/** Number of leads of a contact the viewer sees (the contact profile's statistics). */
export const countOfContact = (v: LeadViewer, contactId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM leads l WHERE l.contact_id = ${contactId}
      AND ${visibleWhere(sql, v)}`.pipe(Effect.map((r) => r[0]!.n)),
  )

// ---- People ----------------------------------------------------------------------------------

export interface Candidate {
  readonly id: number
  readonly name: string
  readonly email: string
  readonly avatar_url: string | null
  readonly locale: 'en' | 'id'
  readonly is_admin: boolean
  /** Back Office teams. */
  readonly team_ids: readonly number[]
  readonly view_all: boolean
  readonly can_view: boolean
}

const PEOPLE = `
  SELECT u.id, u.name, u.email, u.avatar_url, u.locale, (r.is_admin OR r.is_owner OR w.owner_user_id = u.id) AS is_admin,
         COALESCE(ARRAY(SELECT tm.team_id FROM team_members tm JOIN teams t ON t.id = tm.team_id
                        WHERE tm.user_id = u.id AND t.workspace_id = m.workspace_id AND t.type = 'backoffice'
                        ORDER BY tm.team_id), '{}') AS team_ids,
         m.view_all,
         (r.is_admin OR r.is_owner OR w.owner_user_id = u.id OR 'leads.view' = ANY(r.permissions)
           OR 'leads.manage' = ANY(r.permissions)) AS can_view
  FROM members m JOIN users u ON u.id = m.user_id JOIN roles r ON r.id = m.role_id
  JOIN workspaces w ON w.id = m.workspace_id
  WHERE m.status = 'active'`

/** Active members who may hold leads (a leads permission, or an admin), with their Back Office teams. */
export const candidates = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<Candidate>`SELECT * FROM (${sql.literal(PEOPLE)} AND m.workspace_id = ${workspaceId}) p
      WHERE p.can_view ORDER BY lower(p.name), p.id`,
  )

export const candidate = (workspaceId: number, userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<Candidate>`SELECT * FROM (${sql.literal(PEOPLE)} AND m.workspace_id = ${workspaceId} AND u.id = ${userId}) p
      WHERE p.can_view`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/** A member as a viewer of the lead rule (who a mention or a reminder may reach). */
export const viewerOfCandidate = (workspaceId: number, c: Candidate): LeadViewer => ({
  workspaceId,
  userId: c.id,
  seesAll: c.is_admin || c.view_all,
  canView: c.can_view,
})

/** A live contact with this (normalised) phone or e-mail: how a new lead's `contact` is matched. */
export const liveContactBy = (workspaceId: number, field: 'phone' | 'email', value: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      id: number
    }>`SELECT id FROM contacts WHERE workspace_id = ${workspaceId} AND ${sql(field)} = ${value}
      AND merged_into IS NULL AND deleting_at IS NULL ORDER BY id LIMIT 1`.pipe(
      Effect.map((r) => r[0]?.id ?? null),
    ),
  )

// ---- Imports ---------------------------------------------------------------------------------

/** Leads an earlier import made from rows with these identities (store/migrations/0091). */
export const byImportKeys = (workspaceId: number, keys: readonly string[]) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    keys.length === 0
      ? Effect.succeed([] as ReadonlyArray<LeadView & { import_key: string }>)
      : sql<LeadView & { import_key: string }>`SELECT x.*, l2.import_key FROM (${sql.literal(VIEW)}) x
          JOIN leads l2 ON l2.id = x.id
          WHERE l2.workspace_id = ${workspaceId} AND l2.import_key = ANY(${pgArray(keys)}::text[])`,
  )

export const setImportKey = (id: number, key: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE leads SET import_key = ${key} WHERE id = ${id}`.pipe(Effect.asVoid),
  )

/** Custom values merged into a lead's (an import's update). */
export const mergeCustom = (id: number, values: Readonly<Record<string, unknown>>, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE leads SET custom = custom || ${JSON.stringify(values)}::jsonb, updated_at = ${at} WHERE id = ${id}`.pipe(
      Effect.asVoid,
    ),
  )

/** One import at a time per workspace (the caller's transaction): re-imports see the first's leads. */
export const lockImports = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT pg_advisory_xact_lock(${workspaceId}, hashtext('lead_import'))`.pipe(Effect.asVoid),
  )
