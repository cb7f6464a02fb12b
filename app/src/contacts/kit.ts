import type { paths } from '../api/schema'
import { defineTexts } from '../kit'
import { texts } from './texts'

export { useCall } from '../inboxSettings/kit'
/**
 * What the contacts pages take beyond the kit (app/src/kit): their texts, the shapes of the
 * answers the generated schema leaves open (the profile, the timeline, labels with counts), and
 * the list's filters as the API's query.
 */
export { ApiError, api, can, failText, got, Link, useLocale, useWorkspaceEvents } from '../kit'

export const useTr = defineTexts(texts)
export type Tr = ReturnType<typeof useTr>
export type TextKey = keyof typeof texts

export type Contact =
  paths['/v1/contacts']['get']['responses'][200]['content']['application/json']['data'][number]
export type ContactBody = NonNullable<
  paths['/v1/contacts']['post']['requestBody']
>['content']['application/json']

export interface LabelItem {
  readonly id: number
  readonly name: string
  readonly color: string
  readonly contacts_count?: number
}

import type { CustomDef, CustomValue } from '../kit/customFields'

/** A contact custom field and one with its value: the kit's, shared with leads. */
export type FieldDef = CustomDef
export type FieldValue = CustomValue

export interface Identity {
  readonly channel_id: number
  readonly channel_type: string
  readonly channel_name: string | null
  readonly address: string | null
  readonly conversations: number
  readonly last_message_at: string | null
}

export interface Statistics {
  readonly conversations: number
  readonly open_conversations: number
  readonly messages_in: number
  readonly messages_out: number
  readonly notes: number
  readonly tickets: number
  readonly leads: number
  readonly first_conversation_at: string | null
  readonly last_message_at: string | null
}

export interface Profile extends Contact {
  readonly identities: readonly Identity[]
  readonly msgapp_labels: readonly { channel_id: number; label_id: string; name: string; color: string }[]
  readonly custom_fields: readonly FieldValue[]
  readonly statistics: Statistics
}

export interface TimelineItem {
  readonly id: string
  readonly kind: 'conversation' | 'note' | 'event'
  readonly at: string
  readonly data: Readonly<Record<string, unknown>>
}

export interface Note {
  readonly id: number
  readonly body: string
  readonly author: { readonly id: number; readonly name: string | null } | null
  readonly mine: boolean
  readonly created_at: string
}

/** The list's filters, as the page holds them (strings from its controls). */
export interface Filters {
  readonly q: string
  readonly label: string
  readonly owner: string
  readonly channel: string
  readonly sort: 'recent' | 'name' | 'created'
}

export const NO_FILTERS: Filters = { q: '', label: '', owner: '', channel: '', sort: 'recent' }

/** The filters as GET /contacts (and /contacts/export) take them. */
export const queryOf = (f: Filters) => ({
  ...(f.q ? { q: f.q } : {}),
  ...(f.label ? { label_id: Number(f.label) } : {}),
  ...(f.owner
    ? { owner: f.owner === 'me' || f.owner === 'none' ? (f.owner as 'me' | 'none') : Number(f.owner) }
    : {}),
  ...(f.channel ? { channel_id: Number(f.channel) } : {}),
  sort: f.sort,
})

/** The export's address with the list's filters. */
export const exportHref = (f: Filters) => {
  const sp = new URLSearchParams()
  for (const [k, v] of Object.entries(queryOf(f))) sp.set(k, String(v))
  return `/v1/contacts/export?${sp.toString()}`
}

/** A number as the reader writes it. */
export const num = (n: number, locale: string) => n.toLocaleString(locale === 'id' ? 'id-ID' : 'en-GB')

/** The contact's text fields, in the order forms and merge previews show them. */
export const TEXT_FIELDS = [
  'name',
  'phone',
  'email',
  'company',
  'job_title',
  'address',
  'city',
  'language',
] as const
export type TextField = (typeof TEXT_FIELDS)[number]

/** A page's props as the shell gives them (routes.ts `PageProps`, without importing the registry). */
export interface PageProps {
  readonly params: Readonly<Record<string, string>>
}
