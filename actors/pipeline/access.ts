import { Effect } from 'effect'
import * as Leads from '../../store/leads'
import type { PipelineViewer } from '../../store/pipelines'
import * as Pipelines from '../../store/pipelines'
import type { WorkspaceRow } from '../../store/workspaces'
import { type Caller, isAdminCaller } from '../admin/caller'
import { notFound } from '../errors'

/**
 * The caller as a viewer of the pipeline's rules: the lead rule of spec 2 §1 (rule 5, with rule 6
 * for those who see everything) and the workflow rule of §4.7. Every lead operation, file and
 * sub-resource finds its lead through `leadOr404`, so what the caller may not see is 404.
 */
export interface Ctx {
  readonly caller: Caller
  readonly workspace: WorkspaceRow
}

/** Owner, admin roles, members with view-all, API keys (spec 2 §1 rule 6). */
export const seesAllData = (caller: Caller) => isAdminCaller(caller) || caller.member?.view_all === true

export const leadViewerFor = (caller: Caller, workspace: WorkspaceRow): Leads.LeadViewer => ({
  workspaceId: workspace.id,
  userId: caller.user.id,
  seesAll: seesAllData(caller),
  canView: caller.permissions.has('leads.view') || caller.permissions.has('leads.manage'),
})

/** Admins, view-all, keys and `pipeline.manage` see every workflow; others their teams'. */
export const pipelineViewerFor = (caller: Caller, workspace: WorkspaceRow): PipelineViewer => ({
  workspaceId: workspace.id,
  userId: caller.user.id,
  seesAll: seesAllData(caller) || caller.permissions.has('pipeline.manage'),
})

/** The lead if the caller may see it; anything else is 404 (spec 2 §1 rule 7). */
export const leadOr404 = (ctx: Ctx, id: number) =>
  Effect.flatMap(Leads.visibleById(leadViewerFor(ctx.caller, ctx.workspace), id), (row) =>
    row ? Effect.succeed(row) : Effect.fail(notFound()),
  )

export const pipelineOr404 = (ctx: Ctx, id: number) =>
  Effect.flatMap(Pipelines.visibleById(pipelineViewerFor(ctx.caller, ctx.workspace), id), (row) =>
    row ? Effect.succeed(row) : Effect.fail(notFound()),
  )

/** API keys create leads with `source: api` (spec 2 §2). */
export const sourceOf = (caller: Caller): Leads.LeadSource => (caller.via === 'key' ? 'api' : 'app')
