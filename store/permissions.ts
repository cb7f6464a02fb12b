/**
 * The permission catalogue of spec 1 §2, grouped by the app's menus. This is the only list of
 * permissions; the HTTP layer checks against it and roles are validated against it.
 */
export const permissionGroups = [
  { menu: 'dashboard', permissions: ['dashboard.view'] },
  { menu: 'interactions', permissions: ['interactions.view', 'interactions.reply', 'interactions.assign'] },
  { menu: 'templates', permissions: ['templates.manage'] },
  { menu: 'channels', permissions: ['channels.manage'] },
  {
    menu: 'settings',
    permissions: [
      'settings.members',
      'settings.roles',
      'settings.billing',
      'settings.audit',
      'settings.workspace',
      'settings.api',
    ],
  },
  { menu: 'tickets', permissions: ['tickets.view', 'tickets.create', 'tickets.manage'] },
  { menu: 'contacts', permissions: ['contacts.view', 'contacts.manage'] },
  { menu: 'kb', permissions: ['kb.view', 'kb.manage'] },
  { menu: 'reports', permissions: ['reports.view'] },
  { menu: 'ai', permissions: ['ai.use'] },
  { menu: 'pipeline', permissions: ['leads.view', 'leads.manage', 'pipeline.manage', 'clients.manage'] },
  { menu: 'broadcasts', permissions: ['broadcasts.view', 'broadcasts.manage'] },
] as const

export type Permission = (typeof permissionGroups)[number]['permissions'][number]

export const allPermissions: readonly Permission[] = permissionGroups.flatMap((g) => g.permissions)

const known = new Set<string>(allPermissions)
export const isPermission = (s: string): s is Permission => known.has(s)

/** Owners and admin roles hold every permission; others hold what their role lists. */
export const effectivePermissions = (
  role: {
    readonly permissions: readonly string[]
    readonly is_admin: boolean
    readonly is_owner: boolean
  } | null,
): readonly Permission[] =>
  role === null ? [] : role.is_admin || role.is_owner ? allPermissions : role.permissions.filter(isPermission)

/** Default roles every new workspace starts with. */
export const defaultRoles: ReadonlyArray<{
  readonly name: string
  readonly is_owner: boolean
  readonly is_admin: boolean
  readonly permissions: readonly Permission[]
}> = [
  { name: 'Owner', is_owner: true, is_admin: true, permissions: allPermissions },
  { name: 'Admin', is_owner: false, is_admin: true, permissions: allPermissions },
  {
    name: 'Agent',
    is_owner: false,
    is_admin: false,
    permissions: [
      'dashboard.view',
      'interactions.view',
      'interactions.reply',
      'tickets.view',
      'tickets.create',
      'contacts.view',
      'kb.view',
      'ai.use',
      'leads.view',
      'broadcasts.view',
    ],
  },
]

/** Owner and admin roles: they hold every permission and alone may grant `is_admin`. */
export const isAdminRole = (
  role: { readonly is_admin: boolean; readonly is_owner: boolean } | null,
): boolean => role !== null && (role.is_admin || role.is_owner)
