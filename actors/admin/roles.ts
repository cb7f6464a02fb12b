import { Effect, Schema } from 'effect'
import { invalidateCredentials } from '../../engine/events'
import { iso } from '../../engine/time'
import { allPermissions, type Permission, permissionGroups } from '../../store/permissions'
import * as Roles from '../../store/roles'
import * as Teams from '../../store/teams'
import { ApiError, conflict, invalid, notFound } from '../errors'
import { publish, topics } from '../events'
import { addMessages, type Locale, t } from '../i18n'
import { audited, changes } from './audit'
import { type Caller, type InWorkspace, isAdminCaller } from './caller'
import { Timestamp } from './presenters'

/**
 * Spec 1 §4.2 roles and the permission catalogue. Only the Owner and admins may set `is_admin`
 * or touch an admin role; everyone else may grant only permissions they hold themselves
 * (`meta.grantable`). The Owner's role never changes; a role in use cannot be deleted.
 */

addMessages({
  'roles.holders_need_team': {
    en: 'some members holding this role have no team; non-admin roles need at least one',
    id: 'beberapa anggota dengan peran ini tidak memiliki tim; peran non-admin memerlukan setidaknya satu tim',
  },
  'roles.owner_fixed': {
    en: "The Owner's role cannot be changed or deleted.",
    id: 'Peran Pemilik tidak dapat diubah atau dihapus.',
  },
  'roles.in_use': {
    en: 'This role is still given to members or invitations; give them another role first.',
    id: 'Peran ini masih dipakai anggota atau undangan; berikan peran lain kepada mereka dulu.',
  },
  'roles.admin_only': {
    en: 'Only the Owner or an admin may create, change or give admin roles.',
    id: 'Hanya Pemilik atau admin yang dapat membuat, mengubah, atau memberikan peran admin.',
  },
  'roles.not_grantable': {
    en: 'You can only grant permissions you hold yourself.',
    id: 'Anda hanya dapat memberikan izin yang Anda miliki sendiri.',
  },
  'roles.name_taken': { en: 'is already used by another role', id: 'sudah dipakai peran lain' },
  'menu.dashboard': { en: 'Dashboard', id: 'Dasbor' },
  'menu.interactions': { en: 'Conversations', id: 'Percakapan' },
  'menu.templates': { en: 'Templates', id: 'Templat' },
  'menu.channels': { en: 'Channels', id: 'Kanal' },
  'menu.settings': { en: 'Settings', id: 'Pengaturan' },
  'menu.tickets': { en: 'Tickets', id: 'Tiket' },
  'menu.contacts': { en: 'Contacts', id: 'Kontak' },
  'menu.kb': { en: 'Knowledge base', id: 'Basis pengetahuan' },
  'menu.reports': { en: 'Reports', id: 'Laporan' },
  'menu.ai': { en: 'AI assistant', id: 'Asisten AI' },
  'menu.pipeline': { en: 'Pipeline', id: 'Pipeline' },
  'menu.broadcasts': { en: 'Broadcasts', id: 'Siaran' },
  'permission.dashboard.view': { en: 'View the dashboard', id: 'Melihat dasbor' },
  'permission.interactions.view': { en: 'View conversations', id: 'Melihat percakapan' },
  'permission.interactions.reply': { en: 'Reply to conversations', id: 'Membalas percakapan' },
  'permission.interactions.assign': { en: 'Assign conversations', id: 'Menugaskan percakapan' },
  'permission.templates.manage': { en: 'Manage templates', id: 'Mengelola templat' },
  'permission.channels.manage': { en: 'Manage channels', id: 'Mengelola kanal' },
  'permission.settings.members': { en: 'Manage members and teams', id: 'Mengelola anggota dan tim' },
  'permission.settings.roles': { en: 'Manage roles', id: 'Mengelola peran' },
  'permission.settings.billing': { en: 'Manage billing', id: 'Mengelola tagihan' },
  'permission.settings.audit': { en: 'View the audit log', id: 'Melihat log audit' },
  'permission.settings.workspace': { en: 'Manage workspace settings', id: 'Mengelola pengaturan workspace' },
  'permission.settings.api': { en: 'Manage API keys', id: 'Mengelola kunci API' },
  'permission.tickets.view': { en: 'View tickets', id: 'Melihat tiket' },
  'permission.tickets.create': { en: 'Create tickets', id: 'Membuat tiket' },
  'permission.tickets.manage': { en: 'Manage tickets', id: 'Mengelola tiket' },
  'permission.contacts.view': { en: 'View contacts', id: 'Melihat kontak' },
  'permission.contacts.manage': { en: 'Manage contacts', id: 'Mengelola kontak' },
  'permission.kb.view': { en: 'View the knowledge base', id: 'Melihat basis pengetahuan' },
  'permission.kb.manage': { en: 'Manage the knowledge base', id: 'Mengelola basis pengetahuan' },
  'permission.reports.view': { en: 'View reports', id: 'Melihat laporan' },
  'permission.ai.use': { en: 'Use the AI assistant', id: 'Memakai asisten AI' },
  'permission.leads.view': { en: 'View leads', id: 'Melihat prospek' },
  'permission.leads.manage': { en: 'Manage leads', id: 'Mengelola prospek' },
  'permission.pipeline.manage': { en: 'Manage pipelines', id: 'Mengelola pipeline' },
  'permission.clients.manage': { en: 'Manage clients', id: 'Mengelola klien' },
  'permission.broadcasts.view': { en: 'View broadcasts', id: 'Melihat siaran' },
  'permission.broadcasts.manage': { en: 'Manage broadcasts', id: 'Mengelola siaran' },
})

/** What the caller may put into a role. */
export const grantable = (caller: Caller): readonly Permission[] =>
  isAdminCaller(caller) ? allPermissions : allPermissions.filter((p) => caller.permissions.has(p))

export const RoleSchema = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  permissions: Schema.Array(Schema.String),
  is_admin: Schema.Boolean,
  is_owner: Schema.Boolean,
  editable: Schema.Boolean,
  usage: Schema.Struct({ members: Schema.Number, invitations: Schema.Number }),
  created_at: Timestamp,
})

const present = (r: Roles.RoleView, caller: Caller): typeof RoleSchema.Type => ({
  id: r.id,
  name: r.name,
  permissions:
    r.is_admin || r.is_owner ? allPermissions : allPermissions.filter((p) => r.permissions.includes(p)),
  is_admin: r.is_admin,
  is_owner: r.is_owner,
  editable: !r.is_owner && caller.permissions.has('settings.roles') && (!r.is_admin || isAdminCaller(caller)),
  usage: { members: r.members, invitations: r.invitations },
  created_at: iso(r.created_at)!,
})

/** `meta.grantable` of every role response. */
export const permissionsMeta = (caller: Caller) => ({ grantable: grantable(caller) })

/** Refuses what the caller may not grant: admin flags without being admin, foreign permissions. */
const checkGrant = (
  caller: Caller,
  permissions: readonly Permission[] | undefined,
  isAdmin: boolean | undefined,
) => {
  if (isAdmin === true && !isAdminCaller(caller))
    return Effect.fail(new ApiError({ code: 'forbidden', message: 'roles.admin_only' }))
  const allowed = new Set(grantable(caller))
  if (permissions?.some((p) => !allowed.has(p)))
    return Effect.fail(new ApiError({ code: 'forbidden', message: 'roles.not_grantable' }))
  return Effect.void
}

const checkName = (workspaceId: number, name: string, except: number | null) =>
  Effect.flatMap(Roles.nameTaken(workspaceId, name, except), (taken) =>
    taken ? Effect.fail(invalid({ name: { key: 'roles.name_taken' } })) : Effect.void,
  )

const roleOr404 = (workspaceId: number, id: number) =>
  Effect.flatMap(Roles.byId(workspaceId, id), (r) => (r ? Effect.succeed(r) : Effect.fail(notFound())))

/** Roles changed: every member's permissions may have; nodes drop cached callers, clients reload. */
const rolesChanged = (workspaceId: number, roleId: number, reason: string) =>
  Effect.all([
    invalidateCredentials({ workspaceId }),
    publish(topics.workspace(workspaceId), 'members.changed', { reason, role_id: roleId }),
  ])

/** The permission catalogue grouped by menu, labelled in the reader's language. */
export const catalogue = (locale: Locale) =>
  permissionGroups.map((g) => ({
    menu: g.menu,
    label: t(locale, `menu.${g.menu}`),
    permissions: g.permissions.map((key) => ({ key, label: t(locale, `permission.${key}`) })),
  }))

export const list = (ctx: InWorkspace) =>
  Effect.map(Roles.list(ctx.workspace.id), (rows) => rows.map((r) => present(r, ctx.caller)))

export const get = (ctx: InWorkspace, id: number) =>
  Effect.map(roleOr404(ctx.workspace.id, id), (r) => present(r, ctx.caller))

export interface NewRole {
  readonly name: string
  readonly permissions: readonly Permission[]
  readonly is_admin: boolean
}

export const create = (ctx: InWorkspace, body: NewRole) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    yield* checkGrant(caller, body.is_admin ? undefined : body.permissions, body.is_admin)
    yield* checkName(workspace.id, body.name, null)
    const id = yield* audited(
      ctx,
      Roles.create(workspace.id, { name: body.name, permissions: body.permissions, isAdmin: body.is_admin }),
      () => ({
        action: 'role.created',
        workspaceId: workspace.id,
        target: body.name.trim(),
        details: body.is_admin ? 'admin' : body.permissions.join(', '),
      }),
    )
    yield* rolesChanged(workspace.id, id, 'role_created')
    return present(yield* roleOr404(workspace.id, id), caller)
  })

export interface RolePatch {
  readonly name?: string | undefined
  readonly permissions?: readonly Permission[] | undefined
  readonly is_admin?: boolean | undefined
}

export const update = (ctx: InWorkspace, id: number, body: RolePatch) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const role = yield* roleOr404(workspace.id, id)
    if (role.is_owner) return yield* Effect.fail(conflict('roles.owner_fixed'))
    if ((role.is_admin || body.is_admin !== undefined) && !isAdminCaller(caller))
      return yield* Effect.fail(new ApiError({ code: 'forbidden', message: 'roles.admin_only' }))
    yield* checkGrant(caller, body.permissions, body.is_admin)
    if (body.name !== undefined) yield* checkName(workspace.id, body.name, role.id)
    // Holders of a role that stops being an admin role need a team each, as any non-admin.
    if (
      role.is_admin &&
      body.is_admin === false &&
      (yield* Teams.wouldBeTeamless(workspace.id, { roleId: role.id })).length > 0
    )
      return yield* Effect.fail(invalid({ is_admin: { key: 'roles.holders_need_team' } }))
    const before = present(role, caller)
    const updated = yield* audited(
      ctx,
      Roles.update(workspace.id, role, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.permissions !== undefined ? { permissions: body.permissions } : {}),
        ...(body.is_admin !== undefined ? { isAdmin: body.is_admin } : {}),
      }).pipe(Effect.zipRight(roleOr404(workspace.id, role.id))),
      (row) => {
        const after = present(row, caller)
        return {
          action: 'role.updated',
          workspaceId: workspace.id,
          target: after.name,
          details: changes([
            ['name', before.name, after.name],
            ['is_admin', before.is_admin, after.is_admin],
            ['permissions', before.permissions, after.permissions],
          ]),
        }
      },
    )
    yield* rolesChanged(workspace.id, role.id, 'role_updated')
    return present(updated, caller)
  })

export const remove = (ctx: InWorkspace, id: number) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const role = yield* roleOr404(workspace.id, id)
    if (role.is_owner) return yield* Effect.fail(conflict('roles.owner_fixed'))
    if (role.is_admin && !isAdminCaller(caller))
      return yield* Effect.fail(new ApiError({ code: 'forbidden', message: 'roles.admin_only' }))
    const outcome = yield* audited(ctx, Roles.remove(workspace.id, role.id), (r) =>
      r === 'deleted' ? { action: 'role.deleted', workspaceId: workspace.id, target: role.name } : null,
    )
    if (outcome === null) return yield* Effect.fail(notFound())
    if (outcome === 'in_use') return yield* Effect.fail(conflict('roles.in_use'))
    yield* rolesChanged(workspace.id, role.id, 'role_deleted')
    return role.id
  })

/** A copy under a free name (`<name> (copy)`), granted only if the caller could grant the source. */
export const duplicate = (ctx: InWorkspace, id: number) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const source = yield* roleOr404(workspace.id, id)
    const isAdmin = source.is_admin || source.is_owner
    const permissions = allPermissions.filter((p) => source.permissions.includes(p))
    yield* checkGrant(caller, isAdmin ? undefined : permissions, isAdmin)
    const name = yield* Roles.copyName(workspace.id, source.name)
    const newId = yield* audited(ctx, Roles.create(workspace.id, { name, permissions, isAdmin }), () => ({
      action: 'role.duplicated',
      workspaceId: workspace.id,
      target: name,
      details: `copy of ${source.name}`,
    }))
    yield* rolesChanged(workspace.id, newId, 'role_created')
    return present(yield* roleOr404(workspace.id, newId), caller)
  })
