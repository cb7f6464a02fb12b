import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import { invalidateCredentials } from '../../engine/events'
import * as Members from '../../store/members'
import * as Transfers from '../../store/transfers'
import * as Users from '../../store/users'
import * as Workspaces from '../../store/workspaces'
import { ApiError, conflict, notFound } from '../errors'
import { publish, topics } from '../events'
import { addMessages } from '../i18n'
import { audited } from './audit'
import { type InWorkspace, isOwner, type Origin } from './caller'
import { membersChanged } from './members'
import { presentWorkspace, WorkspaceSchema } from './presenters'
import { WorkspaceActor } from './WorkspaceActor'

/**
 * Spec 1 §4.1 workspaces: the ones you belong to (`meta.create`), creating one (Free and Pro
 * accounts own one; a Custom contract may allow more; otherwise 409), switching, renaming (2–120
 * characters, `workspace.updated`), leaving (not the Owner); and personal preferences.
 */

addMessages({
  'workspaces.limit': {
    en: 'Your account already owns as many workspaces as it may ({limit}).',
    id: 'Akun Anda sudah memiliki workspace sebanyak yang diizinkan ({limit}).',
  },
  'workspaces.owner_cannot_leave': {
    en: 'The Owner cannot leave the workspace; transfer the ownership first.',
    id: 'Pemilik tidak dapat keluar dari workspace; alihkan kepemilikan dulu.',
  },
})

export const ListedSchema = Schema.Struct({
  ...WorkspaceSchema.fields,
  role: Schema.Struct({ id: Schema.Number, name: Schema.String }),
  is_owner: Schema.Boolean,
  is_active: Schema.Boolean,
  frozen: Schema.Boolean,
})

/**
 * `meta.create`: whether the account may create a workspace now (the spec's yes or no), and
 * `meta.create_limit`: how many it owns against the plan's limit, and why not.
 */
export const createMeta = (userId: number) =>
  Effect.map(Workspaces.ownership(userId), (o) => ({
    create: o.allowed,
    create_limit: { owned: o.owned, limit: o.limit, reason: o.allowed ? null : 'limit' },
  }))

/** The actor holding the workspace's quota counters re-reads its plan, zone and limits. */
export const reloadWorkspace = (workspaceId: number) =>
  Effect.flatMap(WorkspaceActor, (a) => a.tell(workspaceId, { _tag: 'Reload' })).pipe(Effect.ignore)

export const workspaceUpdated = (w: Workspaces.WorkspaceRow) =>
  Effect.all([
    invalidateCredentials({ workspaceId: w.id }),
    publish(topics.workspace(w.id), 'workspace.updated', { id: w.id, name: w.name, slug: w.slug }),
  ])

/** The workspaces where the caller is an active member. */
export const listFor = (ctx: Origin) =>
  Effect.map(Effect.zip(Workspaces.activeFor(ctx.caller.user.id), currentTime), ([rows, now]) =>
    rows.map((m): typeof ListedSchema.Type => ({
      ...presentWorkspace(m.workspace, now),
      role: { id: m.role_id, name: m.role_name },
      is_owner: m.workspace.owner_user_id === ctx.caller.user.id,
      is_active: ctx.caller.workspace?.id === m.workspace.id,
      frozen: m.workspace.frozen_at !== null,
    })),
  )

/**
 * A new Free workspace owned by the caller, who switches to it. One account's creations are
 * decided one at a time (its row lock), so two at once cannot pass the ownership limit.
 */
export const create = (ctx: Origin, input: { readonly name: string; readonly timezone: string }) =>
  Effect.gen(function* () {
    const { caller } = ctx
    const made = yield* audited(
      ctx,
      Effect.gen(function* () {
        yield* Users.lock(caller.user.id)
        const own = yield* Workspaces.ownership(caller.user.id)
        if (!own.allowed)
          return yield* Effect.fail(
            new ApiError({ code: 'conflict', message: 'workspaces.limit', params: { limit: own.limit } }),
          )
        const { workspace } = yield* Workspaces.create({
          name: input.name.trim(),
          timezone: input.timezone,
          plan: 'free',
          proUntil: null,
          owner: { email: caller.user.email, name: caller.user.name },
        })
        yield* Users.setActiveWorkspaceUncached(caller.user.id, workspace.id)
        return workspace
      }),
      (w) => ({ action: 'workspace.created', workspaceId: w.id, target: w.name }),
    )
    yield* invalidateCredentials({ userId: caller.user.id })
    return made
  })

/** Makes a workspace where the caller is an active member their active one (else 404). */
export const switchTo = (ctx: Origin, workspaceId: number) =>
  Effect.gen(function* () {
    const membership = yield* Members.activeMembership(ctx.caller.user.id, workspaceId)
    if (!membership) return yield* Effect.fail(notFound())
    yield* Users.setActiveWorkspace(ctx.caller.user.id, workspaceId)
    return (yield* Workspaces.byId(workspaceId))!
  })

export const rename = (ctx: InWorkspace, name: string) =>
  Effect.gen(function* () {
    const { workspace } = ctx
    const renamed = yield* audited(ctx, Workspaces.rename(workspace.id, name), (w) =>
      w
        ? {
            action: 'workspace.renamed',
            workspaceId: workspace.id,
            target: w.name,
            details: `name: ${workspace.name} → ${w.name}`,
          }
        : null,
    )
    if (!renamed) return yield* Effect.fail(notFound())
    yield* workspaceUpdated(renamed)
    return renamed
  })

/**
 * The caller leaves the active workspace (the Owner cannot: 409); a pending transfer to them is
 * cancelled with it. Answers the workspace they are in next, if any.
 */
export const leave = (ctx: InWorkspace) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    if (isOwner(caller)) return yield* Effect.fail(conflict('workspaces.owner_cannot_leave'))
    yield* audited(
      ctx,
      Effect.zipRight(
        Transfers.cancelPendingTo(workspace.id, caller.user.id),
        Members.removeFromWorkspace(workspace.id, caller.user.id),
      ),
      () => ({
        action: 'workspace.left',
        workspaceId: workspace.id,
        target: `${caller.user.name} <${caller.user.email}>`,
      }),
    )
    yield* Members.endAccess(caller.user.id, workspace.id)
    yield* membersChanged(workspace.id, { reason: 'left', user_id: caller.user.id })
    return (yield* Users.byId(caller.user.id))?.active_workspace_id ?? null
  })

/** Merges personal preferences (null removes one); answers them all. */
export const setPreferences = (ctx: Origin, body: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const patch: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(body)) if (v !== undefined) patch[k] = v
    const user =
      Object.keys(patch).length === 0
        ? ctx.caller.user
        : yield* Users.mergePreferences(ctx.caller.user.id, patch)
    return Object.entries(user.preferences).map(([key, value]) => ({ key, value }))
  })
