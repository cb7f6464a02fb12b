import type { SettingsKey } from './texts'

/**
 * The sections of Settings, in the order the index shows them, each with who may open it (any of
 * `permissions`; none listed = every member). The index and the side navigation show a member
 * only the sections their role allows; the API refuses the rest anyway. An area's pages are in
 * its own routes.ts; a section here only points at the first. Data only: the navigation reads it
 * in the first load, the texts come with the pages (texts.ts).
 */
export interface Section {
  readonly path: string
  readonly label: SettingsKey
  readonly hint: SettingsKey
  readonly group: 'workspace' | 'inbox' | 'account'
  readonly permissions: readonly string[]
}

/** Whether the signed-in member may open a section (`can` from lib/session). */
export const allowed = (section: Section, can: (permission: string) => boolean) =>
  section.permissions.length === 0 || section.permissions.some(can)

export const sections: readonly Section[] = [
  {
    path: '/settings/workspace',
    label: 'set.workspace',
    hint: 'set.workspace_hint',
    group: 'workspace',
    permissions: ['settings.workspace'],
  },
  {
    path: '/settings/members',
    label: 'set.members',
    hint: 'set.members_hint',
    group: 'workspace',
    permissions: ['settings.members'],
  },
  {
    path: '/settings/roles',
    label: 'set.roles',
    hint: 'set.roles_hint',
    group: 'workspace',
    permissions: ['settings.roles', 'settings.members'],
  },
  {
    path: '/settings/teams',
    label: 'set.teams',
    hint: 'set.teams_hint',
    group: 'workspace',
    permissions: ['settings.members'],
  },
  {
    path: '/channels',
    label: 'set.channels',
    hint: 'set.channels_hint',
    group: 'inbox',
    permissions: ['channels.manage'],
  },
  {
    path: '/settings/templates',
    label: 'set.templates',
    hint: 'set.templates_hint',
    group: 'inbox',
    permissions: ['templates.manage'],
  },
  {
    path: '/settings/categories',
    label: 'set.categories',
    hint: 'set.categories_hint',
    group: 'inbox',
    permissions: ['contacts.manage'],
  },
  {
    path: '/settings/labels',
    label: 'set.labels',
    hint: 'set.labels_hint',
    group: 'inbox',
    permissions: ['contacts.manage'],
  },
  {
    path: '/settings/fields',
    label: 'set.fields',
    hint: 'set.fields_hint',
    group: 'inbox',
    permissions: ['contacts.manage'],
  },
  {
    path: '/settings/api-keys',
    label: 'set.api_keys',
    hint: 'set.api_keys_hint',
    group: 'account',
    permissions: ['settings.api'],
  },
  {
    path: '/settings/audit',
    label: 'set.audit',
    hint: 'set.audit_hint',
    group: 'account',
    permissions: ['settings.audit'],
  },
  {
    path: '/settings/billing',
    label: 'set.billing',
    hint: 'set.billing_hint',
    group: 'account',
    permissions: ['settings.billing'],
  },
]

/** Every permission that opens some section: who has none sees no Settings in the navigation. */
export const anySettings: readonly string[] = [...new Set(sections.flatMap((x) => x.permissions))]
