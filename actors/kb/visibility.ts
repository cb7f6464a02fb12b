import { Effect } from 'effect'
import * as Articles from '../../store/kbArticles'
import type { WorkspaceRow } from '../../store/workspaces'
import { type Caller, holds, isAdminCaller } from '../admin/caller'
import { notFound } from '../errors'

/**
 * The caller as a reader of the knowledge base (spec 2 §1 rules 4, 6, 7; §4.5): keys, the Owner,
 * admin roles and members with view-all see every team's articles; only `kb.manage` holders see
 * drafts. The rule itself is one SQL predicate (store/kbArticles.ts `visibleWhere`), used by every
 * list, detail, count and search.
 */
export interface KbCtx {
  readonly caller: Caller
  readonly workspace: WorkspaceRow
}

export const seesAllTeams = (caller: Caller): boolean =>
  isAdminCaller(caller) || caller.member?.view_all === true

export const viewerFor = (ctx: KbCtx): Articles.KbViewer => ({
  workspaceId: ctx.workspace.id,
  userId: ctx.caller.user.id,
  seesAll: seesAllTeams(ctx.caller),
  drafts: holds(ctx.caller, 'kb.manage'),
})

/** The article if the caller may see it; anything else is 404 (spec 2 §1 rule 7). */
export const visibleOr404 = (ctx: KbCtx, id: number) =>
  Effect.flatMap(Articles.visibleById(viewerFor(ctx), id), (a) =>
    a ? Effect.succeed(a) : Effect.fail(notFound()),
  )
