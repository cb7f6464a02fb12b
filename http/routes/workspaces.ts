import { Effect, Schema } from 'effect'
import { presentWorkspace, WorkspaceSchema } from '../../actors/admin/presenters'
import * as Workspaces from '../../actors/admin/workspaces'
import { Id, Text, TimeZone } from '../../actors/fields'
import { currentTime } from '../../engine/clock'
import { created, ok, type Route, route } from '../route'

/** Spec 1 §4.1 workspaces and personal preferences; the rules are in actors/admin/workspaces.ts. */

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
    response: Schema.Array(Workspaces.ListedSchema),
    handler: (req) =>
      Effect.gen(function* () {
        const rows = yield* Workspaces.listFor(req)
        return ok(rows, yield* Workspaces.createMeta(req.caller.user.id))
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
        const made = yield* Workspaces.create(req, req.body)
        return created(
          presentWorkspace(made, yield* currentTime),
          yield* Workspaces.createMeta(req.caller.user.id),
        )
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
    handler: (req) =>
      Effect.map(Effect.zip(Workspaces.switchTo(req, req.body.workspace_id), currentTime), ([w, now]) =>
        ok(presentWorkspace(w, now)),
      ),
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
      Effect.map(Effect.zip(Workspaces.rename(req, req.body.name), currentTime), ([w, now]) =>
        ok(presentWorkspace(w, now)),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/workspace/leave',
    access: 'A',
    tag: 'Identity',
    summary: 'Leave the active workspace (not as its Owner); you move to another workspace if any',
    handler: (req) =>
      Effect.map(Workspaces.leave(req), (next) => ok({ left: req.workspace.id, active_workspace_id: next })),
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
    handler: (req) => Effect.map(Workspaces.setPreferences(req, req.body), (prefs) => ok(prefs)),
  }),
]
