import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import * as Pipelines from '../../store/pipelines'
import { createdReply, reply } from '../answer'
import { type FieldMessage, invalid } from '../errors'
import { Id, Text } from '../fields'
import { addMessages } from '../i18n'
import { type Ctx, pipelineOr404, pipelineViewerFor } from './access'
import { pipelineChanged } from './events'
import { checkLayout, DEFAULT_STAGES, defaultProbability, destinationOf } from './layout'
import { presentPipeline } from './presenters'
import { present as presentSettings, settingsOf } from './settings'

/**
 * Workflows (spec 2 §4.7 `/pipelines`): the visible list and one workflow (with lead counts per
 * stage for `pipeline.manage` holders), creation with default stages, changes, the stage layout
 * (`PUT …/stages`, checked by the layout rule; leads of removed stages moved, see layout.ts) and
 * delete-when-empty-else-archive. `meta` carries the settings (lost reasons, expense categories,
 * palette).
 */
addMessages({
  'pipeline.backoffice_teams': {
    en: 'must be Back Office teams of this workspace',
    id: 'harus tim Back Office di workspace ini',
  },
})

export const StageInput = Schema.Struct({
  id: Schema.optional(Id),
  kind: Schema.Literal('new', 'progress', 'won', 'lost'),
  label: Text(1, 60),
  color: Schema.optional(Schema.String.pipe(Schema.maxLength(7))),
  probability: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, 100))),
})
const Stages = Schema.Array(StageInput).pipe(Schema.maxItems(20))
const TeamIds = Schema.Array(Id).pipe(Schema.maxItems(100))
const Description = Schema.NullOr(Schema.String.pipe(Schema.maxLength(2000)))

export const ListQuery = Schema.Struct({
  include_archived: Schema.optional(Schema.Literal('0', '1', 'true', 'false')),
})

export const CreateBody = Schema.Struct({
  name: Text(1, 120),
  description: Schema.optional(Description),
  team_ids: Schema.optional(TeamIds),
  stages: Schema.optional(Stages),
})

export const PatchBody = Schema.Struct({
  name: Schema.optional(Text(1, 120)),
  description: Schema.optional(Description),
  team_ids: Schema.optional(TeamIds),
  position: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, 10_000))),
  archived: Schema.optional(Schema.Boolean),
})

export const StagesBody = Schema.Struct({ stages: Stages })

type ById = { readonly id: number }

const layoutOf = (stages: typeof Stages.Type): Pipelines.LayoutStage[] =>
  stages.map((s) => ({
    ...(s.id !== undefined ? { id: s.id } : {}),
    kind: s.kind,
    label: s.label.trim(),
    color: (
      s.color ?? (s.kind === 'won' ? '#22c55e' : s.kind === 'lost' ? '#ef4444' : '#64748b')
    ).toLowerCase(),
    probability: s.probability ?? defaultProbability(s.kind),
  }))

const checkTeams = (
  workspaceId: number,
  ids: readonly number[] | undefined,
  problems: Record<string, FieldMessage>,
) =>
  Effect.gen(function* () {
    if (ids === undefined) return
    const found = yield* Pipelines.backofficeTeams(workspaceId, ids)
    if (found.length !== new Set(ids).size) problems.team_ids = { key: 'pipeline.backoffice_teams' }
  })

const settingsMeta = (workspaceId: number) => Effect.map(settingsOf(workspaceId), presentSettings)

/** One workflow as answered; counts per stage for `pipeline.manage` holders. */
const presentOne = (ctx: Ctx, id: number) =>
  Effect.gen(function* () {
    const p = yield* pipelineOr404(ctx, id)
    const stages = yield* Pipelines.stagesOf([p.id])
    const counts = ctx.caller.permissions.has('pipeline.manage')
      ? yield* Pipelines.leadCounts(p.id)
      : undefined
    return presentPipeline(p, stages, counts)
  })

export const list = (ctx: Ctx, query: typeof ListQuery.Type) =>
  Effect.gen(function* () {
    const all = query.include_archived === '1' || query.include_archived === 'true'
    const rows = yield* Pipelines.list(pipelineViewerFor(ctx.caller, ctx.workspace), all)
    const stages = yield* Pipelines.stagesOf(rows.map((p) => p.id))
    return reply(
      rows.map((p) => presentPipeline(p, stages)),
      yield* settingsMeta(ctx.workspace.id),
    )
  })

export const detail = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    return reply(yield* presentOne(ctx, params.id), yield* settingsMeta(ctx.workspace.id))
  })

export const create = (ctx: Ctx, body: typeof CreateBody.Type) =>
  Effect.gen(function* () {
    const problems: Record<string, FieldMessage> = {}
    yield* checkTeams(ctx.workspace.id, body.team_ids, problems)
    const layout = body.stages ? layoutOf(body.stages) : DEFAULT_STAGES
    if (body.stages) {
      // A new workflow has no stages yet: every stage is new.
      Object.assign(
        problems,
        checkLayout(
          layout.map((s) => ({ ...s, id: undefined })),
          [],
        ),
      )
      for (const [i, s] of body.stages.entries())
        if (s.id !== undefined) problems[`stages.${i}.id`] = { key: 'stages.unknown' }
    }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    const id = yield* Pipelines.insert(
      ctx.workspace.id,
      {
        name: body.name.trim(),
        description: body.description?.trim() || null,
        teamIds: body.team_ids ?? [],
      },
      layout,
    )
    yield* pipelineChanged(ctx.workspace.id, null, id, 'pipeline_created')
    return createdReply(yield* presentOne(ctx, id), yield* settingsMeta(ctx.workspace.id))
  })

export const update = (ctx: Ctx, params: ById, body: typeof PatchBody.Type) =>
  Effect.gen(function* () {
    const p = yield* pipelineOr404(ctx, params.id)
    const problems: Record<string, FieldMessage> = {}
    yield* checkTeams(ctx.workspace.id, body.team_ids, problems)
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    yield* Pipelines.update(ctx.workspace.id, p.id, {
      ...(body.name !== undefined ? { name: body.name.trim() } : {}),
      ...(body.description !== undefined ? { description: body.description?.trim() || null } : {}),
      ...(body.team_ids !== undefined ? { teamIds: body.team_ids } : {}),
      ...(body.position !== undefined ? { position: body.position } : {}),
      ...(body.archived !== undefined ? { archived: body.archived } : {}),
    })
    yield* pipelineChanged(
      ctx.workspace.id,
      null,
      p.id,
      body.archived === true ? 'pipeline_archived' : 'pipeline_updated',
    )
    return reply(yield* presentOne(ctx, p.id), yield* settingsMeta(ctx.workspace.id))
  })

export const setStages = (ctx: Ctx, params: ById, body: typeof StagesBody.Type) =>
  Effect.gen(function* () {
    const p = yield* pipelineOr404(ctx, params.id)
    const layout = layoutOf(body.stages)
    const problemsWith = (before: readonly Pipelines.StageRow[]) => {
      const problems = checkLayout(layout, before)
      return Object.keys(problems).length > 0 ? problems : null
    }
    // Checked first without a lock (a refused layout takes none), then again under the workflow's
    // lock, against the stages as another layout applied meanwhile may have left them.
    const early = problemsWith(yield* Pipelines.stagesOf([p.id]))
    if (early !== null) return yield* Effect.fail(invalid(early))
    const applied = yield* Pipelines.applyLayout(
      ctx.workspace.id,
      p.id,
      layout,
      problemsWith,
      (removed, before, ids) =>
        destinationOf(
          removed,
          before,
          ids.map((id, i) => ({ id, kind: layout[i]!.kind })),
        ),
      { userId: ctx.caller.user.id, at: yield* currentTime },
    )
    if (applied._tag === 'Refused') return yield* Effect.fail(invalid(applied.problems))
    const { moved } = applied
    yield* pipelineChanged(ctx.workspace.id, null, p.id, 'stages')
    for (const m of moved) yield* pipelineChanged(ctx.workspace.id, m.id, p.id, 'lead_moved')
    return reply(yield* presentOne(ctx, p.id), {
      ...(yield* settingsMeta(ctx.workspace.id)),
      moved_leads: moved.length,
    })
  })

export const remove = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const p = yield* pipelineOr404(ctx, params.id)
    const outcome = yield* Pipelines.deleteOrArchive(p.id)
    if (outcome === 'deleted') {
      yield* pipelineChanged(ctx.workspace.id, null, p.id, 'pipeline_deleted')
      return reply({ id: p.id, deleted: true, archived: false })
    }
    yield* pipelineChanged(ctx.workspace.id, null, p.id, 'pipeline_archived')
    return reply({ id: p.id, deleted: false, archived: true })
  })
