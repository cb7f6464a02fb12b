import { Effect, Schema } from 'effect'
import { type Caller, isOwner } from '../../actors/admin/caller'
import { presentWorkspace, Timestamp, WorkspaceSchema } from '../../actors/admin/presenters'
import { PersonName } from '../../actors/admin/profile'
import { TimeZone } from '../../actors/fields'
import { currentTime, WallClock } from '../../engine/clock'
import { andThen } from '../../engine/step'
import { iso } from '../../engine/time'
import { allPermissions } from '../../store/permissions'
import { inGrace } from '../../store/plans'
import * as Users from '../../store/users'
import type { WorkspaceRow } from '../../store/workspaces'
import { shared } from '../envelope'
import { ok, type Route, route } from '../route'

/** Spec 1 §4.1, identity and workspace. */

const MeSchema = Schema.Struct({
  user: Schema.Struct({
    id: Schema.Number,
    name: Schema.String,
    email: Schema.String,
    avatar_url: Schema.NullOr(Schema.String),
    locale: Schema.Literal('en', 'id'),
    timezone: Schema.NullOr(Schema.String),
    last_login_at: Schema.NullOr(Timestamp),
  }),
  via: Schema.Literal('key', 'session'),
  timezone: Schema.String,
  workspace: WorkspaceSchema,
  role: Schema.NullOr(Schema.Struct({ id: Schema.Number, name: Schema.String })),
  is_owner: Schema.Boolean,
  is_platform_admin: Schema.Boolean,
  permissions: Schema.Array(Schema.String),
  channel_ids: Schema.NullOr(Schema.Array(Schema.Number)),
  preferences: Schema.Array(Schema.Struct({ key: Schema.String, value: Schema.Unknown })),
  realtime: Schema.Boolean,
})

const presentMe = (caller: Caller, workspace: WorkspaceRow, now: Date): typeof MeSchema.Type => ({
  user: {
    id: caller.user.id,
    name: caller.user.name,
    email: caller.user.email,
    avatar_url: caller.user.avatar_url,
    locale: caller.user.locale,
    timezone: caller.user.timezone,
    last_login_at: iso(caller.user.last_login_at),
  },
  via: caller.via,
  timezone: caller.user.timezone ?? workspace.timezone,
  workspace: presentWorkspace(workspace, now),
  role: caller.role ? { id: caller.role.id, name: caller.role.name } : null,
  is_owner: isOwner(caller),
  is_platform_admin: caller.user.is_platform_admin,
  // Catalogue order, so clients can diff lists.
  permissions: allPermissions.filter((p) => caller.permissions.has(p)),
  channel_ids:
    caller.via === 'key' || !caller.member || caller.member.channel_access === 'all'
      ? null
      : [...caller.member.channel_ids],
  preferences: Object.entries(caller.user.preferences).map(([key, value]) => ({ key, value })),
  realtime: true,
})

/**
 * GET /v1/me's view of a cached caller (http/credentials: the same object until the credential
 * is dropped or expires), made and encoded once (http/envelope `shared`) for as long as the
 * caller, its workspace and the one thing in it that moves with the clock (`in_grace`) stay.
 */
const kept = new WeakMap<
  Caller,
  { readonly workspace: WorkspaceRow; readonly inGrace: boolean; readonly view: typeof MeSchema.Type }
>()

const meOf = (caller: Caller, workspace: WorkspaceRow, now: Date): typeof MeSchema.Type => {
  const grace = inGrace(workspace, now)
  const mine = kept.get(caller)
  if (mine && mine.workspace === workspace && mine.inGrace === grace) return mine.view
  const view = shared(presentMe(caller, workspace, now))
  kept.set(caller, { workspace, inGrace: grace, view })
  return view
}

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/me',
    access: 'K',
    tag: 'Identity',
    summary: 'The caller: user, workspace, role, permissions and channel access',
    response: MeSchema,
    // A step (engine/step.ts): the clock read without a fiber, so the hot path stays fiberless.
    handler: ({ caller, workspace }) =>
      andThen(WallClock, (clock) =>
        Effect.succeed(ok(meOf(caller, workspace, new Date(clock.unsafeMillis())))),
      ),
  }),
  route({
    method: 'PATCH',
    path: '/v1/me',
    access: 'A',
    // The caller's own account and other workspaces: a frozen active workspace blocks none of it.
    whileFrozen: true,
    tag: 'Identity',
    summary: 'Change your name, language and personal time zone (empty string = follow the workspace)',
    body: Schema.Struct({
      name: Schema.optional(PersonName),
      locale: Schema.optional(Schema.Literal('en', 'id')),
      timezone: Schema.optional(TimeZone),
    }),
    response: MeSchema,
    handler: ({ caller, workspace, body }) =>
      Effect.map(
        Effect.zip(
          Users.updateProfile(caller.user.id, {
            ...(body.name !== undefined ? { name: body.name.trim() } : {}),
            ...(body.locale !== undefined ? { locale: body.locale } : {}),
            ...(body.timezone !== undefined ? { timezone: body.timezone === '' ? null : body.timezone } : {}),
          }),
          currentTime,
        ),
        ([user, now]) => ok(presentMe({ ...caller, user }, workspace, now)),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/workspace',
    access: 'K',
    tag: 'Identity',
    summary: 'Name, plan, paid-until date, time zone and plan limits of the active workspace',
    response: WorkspaceSchema,
    handler: ({ workspace }) => Effect.map(currentTime, (now) => ok(presentWorkspace(workspace, now))),
  }),
]
