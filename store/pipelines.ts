import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { pgArray } from './arrays'

/**
 * Workflows (pipelines), their stages and Back Office teams, and the workspace's pipeline settings
 * (spec 2 §2, §4.7). Who sees a workflow: `visibleWhere`; the stage layout rule and the choice of
 * where leads of a removed stage go are decided in actors/pipeline and applied here in one
 * transaction (`applyLayout`).
 */
export type StageKind = 'new' | 'progress' | 'won' | 'lost'

export interface PipelineRow {
  readonly id: number
  readonly workspace_id: number
  readonly name: string
  readonly description: string | null
  readonly position: number
  readonly archived_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
  readonly team_ids: readonly number[]
}

export interface StageRow {
  readonly id: number
  readonly pipeline_id: number
  readonly kind: StageKind
  readonly label: string
  readonly color: string
  readonly probability: number
  readonly position: number
}

/** Who is asking, for the workflow rule: those who see all, or members of some teams. */
export interface PipelineViewer {
  readonly workspaceId: number
  readonly seesAll: boolean
  readonly userId: number
}

const SELECT = `SELECT p.*, COALESCE(ARRAY(SELECT pt.team_id FROM pipeline_teams pt WHERE pt.pipeline_id = p.id
  ORDER BY pt.team_id), '{}') AS team_ids FROM pipelines p`

/**
 * The workflow rule (spec 2 §4.7 `GET /pipelines`): admins, view-all, keys and `pipeline.manage`
 * see every workflow; others those of their teams, and those without teams (every team's).
 */
export const visibleWhere = (sql: SqlClient.SqlClient, v: PipelineViewer) =>
  v.seesAll
    ? sql`p.workspace_id = ${v.workspaceId}`
    : sql`p.workspace_id = ${v.workspaceId} AND (
        NOT EXISTS (SELECT 1 FROM pipeline_teams pt WHERE pt.pipeline_id = p.id)
        OR EXISTS (SELECT 1 FROM pipeline_teams pt JOIN team_members tm ON tm.team_id = pt.team_id
                   WHERE pt.pipeline_id = p.id AND tm.user_id = ${v.userId}))`

export const list = (v: PipelineViewer, includeArchived: boolean) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<PipelineRow>`${sql.literal(SELECT)} WHERE ${visibleWhere(sql, v)}
      AND (${includeArchived} OR p.archived_at IS NULL) ORDER BY p.position, p.id`,
  )

export const visibleById = (v: PipelineViewer, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<PipelineRow>`${sql.literal(SELECT)} WHERE p.id = ${id} AND ${visibleWhere(sql, v)}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const byId = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<PipelineRow>`${sql.literal(SELECT)} WHERE p.id = ${id} AND p.workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const stagesOf = (pipelineIds: readonly number[]) =>
  pipelineIds.length === 0
    ? Effect.succeed([] as readonly StageRow[])
    : Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<StageRow>`SELECT id, pipeline_id, kind, label, color, probability, position
          FROM pipeline_stages WHERE pipeline_id IN ${sql.in(pipelineIds)} ORDER BY pipeline_id, position, id`,
      )

export const stageById = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<StageRow>`SELECT id, pipeline_id, kind, label, color, probability, position FROM pipeline_stages
      WHERE id = ${id} AND workspace_id = ${workspaceId}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/** Leads per stage of a workflow (every lead, whoever sees it: `pipeline.manage` holders' figure). */
export const leadCounts = (pipelineId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ stage_id: number; n: number }>`SELECT stage_id, count(*)::int AS n FROM leads
      WHERE pipeline_id = ${pipelineId} GROUP BY stage_id`.pipe(
      Effect.map((rows) => new Map(rows.map((r) => [r.stage_id, r.n]))),
    ),
  )

export const hasLeads = (pipelineId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT 1 FROM leads WHERE pipeline_id = ${pipelineId} LIMIT 1`.pipe(Effect.map((r) => r.length > 0)),
  )

/** Back Office teams of the workspace among `ids`. */
export const backofficeTeams = (workspaceId: number, ids: readonly number[]) =>
  ids.length === 0
    ? Effect.succeed([] as readonly number[])
    : Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ id: number }>`SELECT id FROM teams WHERE workspace_id = ${workspaceId} AND type = 'backoffice'
          AND id IN ${sql.in(ids)}`.pipe(Effect.map((r) => r.map((x) => x.id))),
      )

export interface NewStage {
  readonly kind: StageKind
  readonly label: string
  readonly color: string
  readonly probability: number
}

const setTeams = (sql: SqlClient.SqlClient, pipelineId: number, teamIds: readonly number[]) =>
  Effect.gen(function* () {
    yield* sql`DELETE FROM pipeline_teams WHERE pipeline_id = ${pipelineId}`
    if (teamIds.length > 0)
      yield* sql`INSERT INTO pipeline_teams (pipeline_id, team_id)
        SELECT ${pipelineId}, unnest(${pgArray([...new Set(teamIds)])}::int[])`
  })

/** A workflow at the end of the order, with its teams and stages, in one transaction. */
export const insert = (
  workspaceId: number,
  p: { readonly name: string; readonly description: string | null; readonly teamIds: readonly number[] },
  stages: readonly NewStage[],
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [row] = yield* sql<{ id: number }>`
          INSERT INTO pipelines (workspace_id, name, description, position)
          VALUES (${workspaceId}, ${p.name}, ${p.description},
                  (SELECT COALESCE(max(position) + 1, 0) FROM pipelines WHERE workspace_id = ${workspaceId}))
          RETURNING id`
        yield* setTeams(sql, row!.id, p.teamIds)
        for (const [i, s] of stages.entries())
          yield* sql`INSERT INTO pipeline_stages (workspace_id, pipeline_id, kind, label, color, probability, position)
            VALUES (${workspaceId}, ${row!.id}, ${s.kind}, ${s.label}, ${s.color}, ${s.probability}, ${i})`
        return row!.id
      }),
    ),
  )

export interface PipelinePatch {
  readonly name?: string
  readonly description?: string | null
  readonly teamIds?: readonly number[]
  readonly position?: number
  readonly archived?: boolean
}

export const update = (workspaceId: number, id: number, p: PipelinePatch) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        // A move locks the workspace's workflows (in id order) before changing any, so two moves
        // at once wait for each other instead of deadlocking on each other's row.
        if (p.position !== undefined)
          yield* sql`SELECT id FROM pipelines WHERE workspace_id = ${workspaceId} ORDER BY id FOR UPDATE`
        yield* sql`UPDATE pipelines SET
            name = COALESCE(${p.name ?? null}, name),
            description = CASE WHEN ${p.description !== undefined} THEN ${p.description ?? null} ELSE description END,
            archived_at = CASE WHEN ${p.archived === undefined} THEN archived_at
                               WHEN ${p.archived === true} THEN COALESCE(archived_at, now()) ELSE NULL END,
            updated_at = now()
          WHERE id = ${id}`
        if (p.teamIds !== undefined) yield* setTeams(sql, id, p.teamIds)
        if (p.position !== undefined) {
          const rows = yield* sql<{ id: number }>`
            SELECT id FROM pipelines WHERE workspace_id = ${workspaceId} ORDER BY position, id`
          const ids = rows.map((r) => r.id).filter((x) => x !== id)
          ids.splice(Math.min(p.position, ids.length), 0, id)
          yield* sql`UPDATE pipelines x SET position = o.ord - 1
            FROM unnest(${pgArray(ids)}::int[]) WITH ORDINALITY AS o(id, ord) WHERE x.id = o.id`
        }
      }),
    ),
  )

/**
 * Deletes the workflow if it holds no lead, else archives it; answers which. The row is locked
 * first, so a lead created meanwhile (which locks the workflow's row to share) is seen.
 */
export const deleteOrArchive = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT id FROM pipelines WHERE id = ${id} FOR UPDATE`
        const [used] = yield* sql`SELECT 1 FROM leads WHERE pipeline_id = ${id} LIMIT 1`
        if (used) {
          yield* sql`UPDATE pipelines SET archived_at = COALESCE(archived_at, now()), updated_at = now() WHERE id = ${id}`
          return 'archived' as const
        }
        yield* sql`DELETE FROM pipelines WHERE id = ${id}`
        return 'deleted' as const
      }),
    ),
  )

export interface LayoutStage extends NewStage {
  /** An existing stage of the workflow to keep (and change), or a new one. */
  readonly id?: number
}

/**
 * Replaces a workflow's stages with `layout` (in its order), unless `refuse(stages)` finds a
 * problem with it against the stages as they are under the workflow's lock (another layout may
 * have been applied since the caller read them): then nothing changes and the problems are
 * answered. Leads on a stage not kept move to `destination(removedStage, stagesBefore, newIds)`:
 * the caller's rule, given the ids the kept and new stages ended up with; each moved lead's
 * history records it. Answers the leads moved (id, from, to).
 */
export const applyLayout = <P>(
  workspaceId: number,
  pipelineId: number,
  layout: readonly LayoutStage[],
  refuse: (before: readonly StageRow[]) => P | null,
  destination: (removed: StageRow, before: readonly StageRow[], ids: readonly number[]) => number,
  by: { readonly userId: number; readonly at: Date },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT id FROM pipelines WHERE id = ${pipelineId} FOR UPDATE`
        const before = yield* sql<StageRow>`SELECT id, pipeline_id, kind, label, color, probability, position
          FROM pipeline_stages WHERE pipeline_id = ${pipelineId} ORDER BY position, id`
        const problems = refuse(before)
        if (problems !== null) return { _tag: 'Refused' as const, problems }
        const ids: number[] = []
        for (const [i, s] of layout.entries()) {
          if (s.id !== undefined) {
            yield* sql`UPDATE pipeline_stages SET label = ${s.label}, color = ${s.color},
              probability = ${s.probability}, position = ${i} WHERE id = ${s.id}`
            ids.push(s.id)
          } else {
            const [row] = yield* sql<{ id: number }>`
              INSERT INTO pipeline_stages (workspace_id, pipeline_id, kind, label, color, probability, position)
              VALUES (${workspaceId}, ${pipelineId}, ${s.kind}, ${s.label}, ${s.color}, ${s.probability}, ${i})
              RETURNING id`
            ids.push(row!.id)
          }
        }
        const moved: Array<{ id: number; from: number; to: number }> = []
        for (const gone of before.filter((b) => !ids.includes(b.id))) {
          const to = destination(gone, before, ids)
          const rows = yield* sql<{ id: number }>`
            UPDATE leads SET stage_id = ${to}, stage_changed_at = now(), updated_at = now()
            WHERE stage_id = ${gone.id} RETURNING id`
          for (const r of rows) moved.push({ id: r.id, from: gone.id, to })
          // Each lead's history says why it moved, in the same transaction as the move.
          if (rows.length > 0)
            yield* sql`INSERT INTO lead_activities (workspace_id, lead_id, kind, happened_at, data, author_id)
              SELECT ${workspaceId}, unnest(${pgArray(rows.map((r) => r.id))}::bigint[]), 'change', ${by.at},
                     ${JSON.stringify({ change: 'stage_removed', from_stage: { id: gone.id, label: gone.label }, to_stage_id: to })}::jsonb,
                     ${by.userId}`
          yield* sql`DELETE FROM pipeline_stages WHERE id = ${gone.id}`
        }
        yield* sql`UPDATE pipelines SET updated_at = now() WHERE id = ${pipelineId}`
        return { _tag: 'Applied' as const, moved }
      }),
    ),
  )

// ---- Settings --------------------------------------------------------------------------------

export interface SettingsRow {
  readonly lost_reasons: readonly string[]
  readonly expense_categories: readonly string[]
}

export const settings = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<SettingsRow>`SELECT lost_reasons, expense_categories FROM pipeline_settings
      WHERE workspace_id = ${workspaceId}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

export const saveSettings = (workspaceId: number, s: SettingsRow) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO pipeline_settings (workspace_id, lost_reasons, expense_categories)
      VALUES (${workspaceId}, ${JSON.stringify(s.lost_reasons)}::jsonb, ${JSON.stringify(s.expense_categories)}::jsonb)
      ON CONFLICT (workspace_id) DO UPDATE SET lost_reasons = EXCLUDED.lost_reasons,
        expense_categories = EXCLUDED.expense_categories, updated_at = now()`.pipe(Effect.asVoid),
  )
