import { Schema } from 'effect'
import type * as Contacts from '../../store/contacts'
import type { WorkspaceRow } from '../../store/workspaces'
import type { Caller } from '../admin/caller'
import { IdFromString } from '../fields'
import type * as ContactWrites from './contacts'

/**
 * What the contacts routes (contacts, contactsCsv, labels, customFields) share: the caller as the
 * domain's context and the list's filters (also the export's). The domain's failures carry their
 * answers (errors.ts).
 */

export const ctxOf = (caller: Caller, workspace: WorkspaceRow): ContactWrites.Ctx => ({
  workspaceId: workspace.id,
  timezone: workspace.timezone,
  userId: caller.user.id,
})

/** The list's filters (also the export's). */
export const FilterFields = {
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  label_id: Schema.optional(IdFromString),
  msgapp_label_id: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100))),
  owner: Schema.optional(Schema.Union(Schema.Literal('me', 'none'), IdFromString)),
  channel_id: Schema.optional(IdFromString),
  sort: Schema.optional(Schema.Literal('recent', 'name', 'created')),
}

export const filterOf = (
  caller: Caller,
  q: { readonly [K in keyof typeof FilterFields]?: Schema.Schema.Type<(typeof FilterFields)[K]> },
): Contacts.ListFilter => ({
  ...(q.q?.trim() ? { q: q.q.trim() } : {}),
  ...(q.label_id !== undefined ? { labelId: q.label_id } : {}),
  ...(q.msgapp_label_id !== undefined ? { msgappLabelId: q.msgapp_label_id } : {}),
  ...(q.owner !== undefined ? { owner: q.owner === 'me' ? caller.user.id : q.owner } : {}),
  ...(q.channel_id !== undefined ? { channelId: q.channel_id } : {}),
})
