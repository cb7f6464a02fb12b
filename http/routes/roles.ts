import { Effect, Schema } from 'effect'
import * as Roles from '../../actors/admin/roles'
import { IdFromString, Text } from '../../actors/fields'
import { allPermissions } from '../../store/permissions'
import { created, ok, type Route, route } from '../route'

/** Spec 1 §4.2 roles and the permission catalogue; the rules are in actors/admin/roles.ts. */

const IdParam = Schema.Struct({ id: IdFromString })
const PermissionList = Schema.Array(Schema.Literal(...allPermissions)).pipe(
  Schema.maxItems(allPermissions.length),
)
const Name = Text(1, 60)

const readers = ['settings.roles', 'settings.members'] as const

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/roles',
    access: 'K',
    permission: readers,
    tag: 'Roles',
    summary: 'All roles with their permissions and usage counts',
    response: Schema.Array(Roles.RoleSchema),
    handler: (req) => Effect.map(Roles.list(req), (rows) => ok(rows, Roles.permissionsMeta(req.caller))),
  }),
  route({
    method: 'GET',
    path: '/v1/roles/{id}',
    access: 'K',
    permission: readers,
    tag: 'Roles',
    summary: 'One role',
    params: IdParam,
    response: Roles.RoleSchema,
    handler: (req) =>
      Effect.map(Roles.get(req, req.params.id), (r) => ok(r, Roles.permissionsMeta(req.caller))),
  }),
  route({
    method: 'GET',
    path: '/v1/permissions',
    access: 'K',
    permission: readers,
    tag: 'Roles',
    summary: 'The permission catalogue grouped by menu; `meta.grantable` = what you may grant',
    handler: ({ caller, locale }) =>
      Effect.succeed(ok(Roles.catalogue(locale), Roles.permissionsMeta(caller))),
  }),
  route({
    method: 'POST',
    path: '/v1/roles',
    access: 'A',
    permission: 'settings.roles',
    tag: 'Roles',
    summary: 'Create a role (`is_admin` only by the Owner or admins)',
    body: Schema.Struct({
      name: Name,
      permissions: Schema.optionalWith(PermissionList, { default: () => [] }),
      is_admin: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    }),
    response: Roles.RoleSchema,
    handler: (req) =>
      Effect.map(Roles.create(req, req.body), (r) => created(r, Roles.permissionsMeta(req.caller))),
  }),
  route({
    method: 'PATCH',
    path: '/v1/roles/{id}',
    access: 'A',
    permission: 'settings.roles',
    tag: 'Roles',
    summary: "Rename a role or change its permissions or `is_admin`; the Owner's role cannot change",
    params: IdParam,
    body: Schema.Struct({
      name: Schema.optional(Name),
      permissions: Schema.optional(PermissionList),
      is_admin: Schema.optional(Schema.Boolean),
    }),
    response: Roles.RoleSchema,
    handler: (req) =>
      Effect.map(Roles.update(req, req.params.id, req.body), (r) => ok(r, Roles.permissionsMeta(req.caller))),
  }),
  route({
    method: 'DELETE',
    path: '/v1/roles/{id}',
    access: 'A',
    permission: 'settings.roles',
    tag: 'Roles',
    summary: 'Delete a role nobody uses (otherwise 409)',
    params: IdParam,
    handler: (req) => Effect.map(Roles.remove(req, req.params.id), (id) => ok({ id, deleted: true })),
  }),
  route({
    method: 'POST',
    path: '/v1/roles/{id}/duplicate',
    access: 'A',
    permission: 'settings.roles',
    tag: 'Roles',
    summary: 'Copy a role under a new name (`<name> (copy)`)',
    params: IdParam,
    response: Roles.RoleSchema,
    handler: (req) =>
      Effect.map(Roles.duplicate(req, req.params.id), (r) => created(r, Roles.permissionsMeta(req.caller))),
  }),
]
