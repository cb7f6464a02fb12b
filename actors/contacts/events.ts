import { publish, topics } from '../events'

/**
 * The two events of the contacts domain (spec 1 §6), on `ws:{workspace}`, published after the
 * change committed: `contacts.changed {contact_id, reason}` (one per import, with `contact_id`
 * null) and `contacts.settings {kind}` for labels and custom fields.
 */
export type ChangeReason = 'created' | 'updated' | 'labels' | 'merged' | 'deleted' | 'imported' | 'notes'

export const contactsChanged = (
  workspaceId: number,
  contactId: number | null,
  reason: ChangeReason,
  extra: Readonly<Record<string, unknown>> = {},
) => publish(topics.workspace(workspaceId), 'contacts.changed', { contact_id: contactId, reason, ...extra })

export const contactsSettings = (
  workspaceId: number,
  kind: 'labels' | 'custom_fields',
  extra: Readonly<Record<string, unknown>> = {},
) => publish(topics.workspace(workspaceId), 'contacts.settings', { kind, ...extra })
