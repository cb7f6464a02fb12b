import { Effect } from 'effect'
import * as Tickets from '../../store/tickets'
import type { WorkspaceRow } from '../../store/workspaces'
import type { Caller } from '../admin/caller'
import { notFound } from '../errors'

/**
 * The caller as a viewer of spec 2 §1 rule 3 (the SQL of the rule is store/tickets `visibleWhere`):
 * API keys, the Owner, admin roles and members with view-all see every ticket; others need
 * `tickets.view` and see the tickets they take part in, or their Back Office team's unassigned ones.
 */
export const viewerFor = (caller: Caller, workspace: WorkspaceRow): Tickets.Viewer => {
  if (caller.via === 'key')
    return { workspaceId: workspace.id, userId: caller.user.id, seesAll: true, canView: true }
  return memberViewer(
    { user_id: caller.user.id, workspace_id: workspace.id, view_all: caller.member?.view_all ?? false },
    caller.role,
    workspace.owner_user_id,
  )
}

/** The viewer an active member is (also the `ticket:` subscription's, http/realtime). */
export const memberViewer = (
  m: { readonly user_id: number; readonly workspace_id: number; readonly view_all: boolean },
  role: {
    readonly is_admin: boolean
    readonly is_owner: boolean
    readonly permissions: readonly string[]
  } | null,
  ownerUserId: number | null,
): Tickets.Viewer => {
  const admin = role !== null && (role.is_admin || role.is_owner)
  const owner = ownerUserId === m.user_id
  return {
    workspaceId: m.workspace_id,
    userId: m.user_id,
    seesAll: admin || owner || (role !== null && m.view_all),
    canView: admin || owner || (role?.permissions.includes('tickets.view') ?? false),
  }
}

export interface Ctx {
  readonly caller: Caller
  readonly workspace: WorkspaceRow
}

/** The ticket if the caller may see it; anything else is 404 (spec 2 §1 rule 7). */
export const visibleOr404 = (ctx: Ctx, id: number) =>
  Effect.flatMap(Tickets.visibleById(viewerFor(ctx.caller, ctx.workspace), id), (t) =>
    t ? Effect.succeed(t) : Effect.fail(notFound()),
  )
