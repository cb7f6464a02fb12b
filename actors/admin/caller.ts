import type { Scope } from '../../store/apiKeys'
import type { MemberRow, RoleRow } from '../../store/members'
import { allPermissions, effectivePermissions, isAdminRole, type Permission } from '../../store/permissions'
import type { SessionRow } from '../../store/sessions'
import type { UserRow } from '../../store/users'
import type { WorkspaceRow } from '../../store/workspaces'

/** Who is calling: an API key (acting as its creator) or a signed-in user. */
export type Caller =
  | {
      readonly via: 'key'
      readonly keyId: number
      readonly scope: Scope
      readonly user: UserRow
      readonly workspace: WorkspaceRow
      readonly member: MemberRow | null
      readonly role: RoleRow | null
      readonly permissions: ReadonlySet<Permission>
    }
  | {
      readonly via: 'session'
      readonly session: SessionRow
      readonly user: UserRow
      readonly workspace: WorkspaceRow | null
      readonly member: MemberRow | null
      readonly role: RoleRow | null
      readonly permissions: ReadonlySet<Permission>
    }

/** An API key counts as holding every workspace permission (spec 1 §5). */
export const keyPermissions: ReadonlySet<Permission> = new Set(allPermissions)

export const sessionPermissions = (role: RoleRow | null): ReadonlySet<Permission> =>
  new Set(effectivePermissions(role))

/** An endpoint's requirement: one permission, or alternatives of which any one suffices. */
export type PermissionRule = Permission | readonly Permission[]

/** The one permission check of the service. */
export const holds = (caller: Caller, rule: PermissionRule | undefined): boolean => {
  if (rule === undefined) return true
  const any = typeof rule === 'string' ? [rule] : rule
  return any.some((p) => caller.permissions.has(p))
}

export const isOwner = (caller: Caller): boolean =>
  caller.workspace !== null && caller.workspace.owner_user_id === caller.user.id

/** Keys act for the whole workspace; the Owner and admin roles hold everything. */
export const isAdminCaller = (caller: Caller): boolean =>
  caller.via === 'key' || isOwner(caller) || isAdminRole(caller.role)

/** A caller and where the request came from: what an audit entry names. */
export interface Origin {
  readonly caller: Caller
  /** The request's address, read when asked (http/request.ts). */
  readonly ip: () => string
}

/** The same, acting in the caller's active workspace. */
export interface InWorkspace extends Origin {
  readonly workspace: WorkspaceRow
}
