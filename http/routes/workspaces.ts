import { SqlClient } from '@effect/sql'
import { Effect, Schema } from 'effect'
import { isOwner } from '../../actors/admin/caller'
import { presentWorkspace, WorkspaceSchema } from '../../actors/admin/presenters'
import { WorkspaceActor } from '../../actors/admin/WorkspaceActor'
import { ApiError, conflict, notFound } from '../../actors/errors'
import { Id, Text } from '../../actors/fields'
import { addMessages } from '../../actors/i18n'
import { invalidateCredentials, publishEvent } from '../../engine/events'
import * as Members from '../../store/members'
import * as Users from '../../store/users'
import * as Workspaces from '../../store/workspaces'
import { created, ok, type Route, route } from '../route'
import { audited } from './auditLogs'
import { TimeZone } from './identity'
import { membersChanged } from './members'

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

const ListedSchema = Schema.Struct({
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
const createMeta = (userId: number) =>
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
    publishEvent(`ws:${w.id}`, 'workspace.updated', { id: w.id, name: w.name, slug: w.slug }),
  ])

const Preferences = Schema.Struct({
  livechat_alert: Schema.optional(Schema.Literal(0, 1)),
  tour: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  sidebar: Schema.optional(Schema.NullOr(Schema.Literal('expanded', 'collapsed'))),
})

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/workspaces',
    access: 'A',
    workspace: 'optional',
    tag: 'Identity',
    summary: 'Workspaces where you are an active member; `meta.create` says whether you may create one',
    response: Schema.Array(ListedSchema),
    handler: ({ caller }) =>
      Effect.gen(function* () {
        const rows = yield* Workspaces.activeFor(caller.user.id)
        return ok(
          rows.map((m) => ({
            ...presentWorkspace(m.workspace),
            role: { id: m.role_id, name: m.role_name },
            is_owner: m.workspace.owner_user_id === caller.user.id,
            is_active: caller.workspace?.id === m.workspace.id,
            frozen: m.workspace.frozen_at !== null,
          })),
          yield* createMeta(caller.user.id),
        )
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/workspaces',
    access: 'A',
    // The caller's own account and other workspaces: a frozen active workspace blocks none of it.
    whileFrozen: true,
    workspace: 'optional',
    tag: 'Identity',
    summary: 'Create a workspace you own (on Free) and switch to it; 409 past your ownership limit',
    body: Schema.Struct({ name: Text(2, 120), timezone: TimeZone.pipe(Schema.minLength(1)) }),
    response: WorkspaceSchema,
    handler: (req) =>
      Effect.gen(function* () {
        const { caller, body } = req
        const sql = yield* SqlClient.SqlClient
        const made = yield* sql.withTransaction(
          Effect.gen(function* () {
            // One account's creations are decided one at a time.
            yield* sql`SELECT id FROM users WHERE id = ${caller.user.id} FOR UPDATE`
            const own = yield* Workspaces.ownership(caller.user.id)
            if (!own.allowed)
              return yield* Effect.fail(
                new ApiError({ code: 'conflict', message: 'workspaces.limit', params: { limit: own.limit } }),
              )
            const { workspace } = yield* audited(
              req,
              Workspaces.create({
                name: body.name.trim(),
                timezone: body.timezone,
                plan: 'free',
                proUntil: null,
                owner: { email: caller.user.email, name: caller.user.name },
              }),
              (r) => ({ action: 'workspace.created', workspaceId: r.workspace.id, target: r.workspace.name }),
            )
            yield* sql`UPDATE users SET active_workspace_id = ${workspace.id} WHERE id = ${caller.user.id}`
            return workspace
          }),
        )
        yield* invalidateCredentials({ userId: caller.user.id })
        return created(presentWorkspace(made), yield* createMeta(caller.user.id))
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/me/workspace',
    access: 'A',
    // The caller's own account and other workspaces: a frozen active workspace blocks none of it.
    whileFrozen: true,
    workspace: 'optional',
    tag: 'Identity',
    summary: 'Switch your active workspace (one where you are an active member)',
    body: Schema.Struct({ workspace_id: Id }),
    response: WorkspaceSchema,
    handler: ({ caller, body }) =>
      Effect.gen(function* () {
        const membership = yield* Members.activeMembership(caller.user.id, body.workspace_id)
        if (!membership) return yield* Effect.fail(notFound())
        yield* Users.setActiveWorkspace(caller.user.id, body.workspace_id)
        const ws = (yield* Workspaces.byId(body.workspace_id))!
        return ok(presentWorkspace(ws))
      }),
  }),
  route({
    method: 'PATCH',
    path: '/v1/workspace',
    access: 'A',
    permission: 'settings.workspace',
    tag: 'Identity',
    summary: 'Rename the workspace (2 to 120 characters)',
    body: Schema.Struct({ name: Text(2, 120) }),
    response: WorkspaceSchema,
    handler: (req) =>
      Effect.gen(function* () {
        const { workspace, body } = req
        const renamed = yield* audited(req, Workspaces.rename(workspace.id, body.name), (w) =>
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
        return ok(presentWorkspace(renamed))
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/workspace/leave',
    access: 'A',
    tag: 'Identity',
    summary: 'Leave the active workspace (not as its Owner); you move to another workspace if any',
    handler: (req) =>
      Effect.gen(function* () {
        const { caller, workspace } = req
        if (isOwner(caller)) return yield* Effect.fail(conflict('workspaces.owner_cannot_leave'))
        yield* audited(
          req,
          Effect.gen(function* () {
            // A pending transfer to the leaving member cannot be accepted any more.
            yield* Effect.flatMap(
              SqlClient.SqlClient,
              (sql) =>
                sql`UPDATE ownership_transfers SET status = 'cancelled', decided_at = now()
                  WHERE workspace_id = ${workspace.id} AND to_user_id = ${caller.user.id} AND status = 'pending'`,
            )
            return yield* Members.removeFromWorkspace(workspace.id, caller.user.id)
          }),
          () => ({
            action: 'workspace.left',
            workspaceId: workspace.id,
            target: `${caller.user.name} <${caller.user.email}>`,
          }),
        )
        yield* Members.endAccess(caller.user.id, workspace.id)
        yield* membersChanged(workspace.id, { reason: 'left', user_id: caller.user.id })
        const next = (yield* Users.byId(caller.user.id))?.active_workspace_id ?? null
        return ok({ left: workspace.id, active_workspace_id: next })
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/me/preferences',
    access: 'A',
    // The caller's own account and other workspaces: a frozen active workspace blocks none of it.
    whileFrozen: true,
    workspace: 'optional',
    tag: 'Identity',
    summary: 'Personal preferences: `livechat_alert` (0 or 1), tour and sidebar state (null removes)',
    body: Preferences,
    response: Schema.Array(Schema.Struct({ key: Schema.String, value: Schema.Unknown })),
    handler: ({ caller, body }) =>
      Effect.gen(function* () {
        const patch: Record<string, unknown> = {}
        for (const [k, v] of Object.entries(body)) if (v !== undefined) patch[k] = v
        const user =
          Object.keys(patch).length === 0 ? caller.user : yield* Users.mergePreferences(caller.user.id, patch)
        return ok(Object.entries(user.preferences).map(([key, value]) => ({ key, value })))
      }),
  }),
]
