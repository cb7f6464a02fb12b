import { iso } from '../../engine/time'
import type { LabelWithCount } from '../../store/contactLabels'
import type { NoteRow } from '../../store/contactNotes'
import type * as Profile from '../../store/contactProfile'
import type { ContactView, LabelRow } from '../../store/contacts'
import type { FieldRow } from '../../store/customFields'
import { shownValues, withValues } from '../customValues'

/** The resource shapes of spec 2 §2 for contacts, labels, custom fields and notes. */

export const presentLabel = (l: LabelRow) => ({
  id: l.id,
  name: l.name,
  color: l.color,
  position: l.position,
})

export const presentLabelWithCount = (l: LabelWithCount) => ({
  ...presentLabel(l),
  contacts_count: l.contacts_count,
})

/** A contact as lists and writes answer it; `custom` holds only values of current definitions. */
export const presentContact = (
  c: ContactView,
  labels: ReadonlyMap<number, LabelRow>,
  defs: readonly FieldRow[],
) => ({
  id: c.id,
  name: c.name,
  phone: c.phone,
  email: c.email,
  company: c.company,
  job_title: c.job_title,
  address: c.address,
  city: c.city,
  language: c.language,
  owner_id: c.owner_id,
  label_ids: c.label_ids,
  labels: c.label_ids.flatMap((id) => {
    const l = labels.get(id)
    return l ? [{ id: l.id, name: l.name, color: l.color }] : []
  }),
  custom: shownValues(defs, c.custom),
  broadcast_opt_out: c.broadcast_opt_out,
  created_at: iso(c.created_at)!,
  updated_at: iso(c.updated_at)!,
})

export const presentField = (f: FieldRow) => ({
  id: f.id,
  entity: f.entity,
  key: f.key,
  label: f.label,
  type: f.type,
  options: f.options,
  position: f.position,
  created_at: iso(f.created_at)!,
  updated_at: iso(f.updated_at)!,
})

export const presentNote = (n: NoteRow, viewerId: number) => ({
  id: n.id,
  contact_id: n.contact_id,
  body: n.body,
  author: n.author_id === null ? null : { id: n.author_id, name: n.author_name },
  mine: n.author_id === viewerId,
  created_at: iso(n.created_at)!,
  updated_at: iso(n.updated_at)!,
})

/** The contact's leads the caller may see: the latest ones and how many there are. */
export interface LeadsPart {
  readonly items: readonly unknown[]
  readonly total: number
}

export interface ProfileParts {
  readonly leads: LeadsPart
  readonly identities: readonly Profile.IdentityRow[]
  readonly msgappLabels: readonly Profile.MsgappLabelRow[]
  readonly statistics: Profile.StatisticsRow
  readonly activity: readonly Profile.MonthRow[]
  /** The contact's tickets the caller may see (actors/tickets/contactSide). */
  readonly tickets: readonly unknown[]
}

/**
 * The full profile (`GET /contacts/{id}`): the contact, its identities, service and
 * messaging-app labels, custom fields with definitions, statistics and 12-month activity, and the
 * tickets and leads the caller may see.
 */
export const presentProfile = (
  c: ContactView,
  labels: ReadonlyMap<number, LabelRow>,
  defs: readonly FieldRow[],
  p: ProfileParts,
) => {
  const base = presentContact(c, labels, defs)
  return {
    ...base,
    identities: p.identities.map((i) => ({
      channel_id: i.channel_id,
      channel_type: i.channel_type,
      channel_name: i.channel_name,
      address: i.address,
      conversations: i.conversations,
      last_message_at: iso(i.last_message_at),
    })),
    service_labels: base.labels,
    msgapp_labels: p.msgappLabels.map((l) => ({
      channel_id: l.channel_id,
      label_id: l.label_id,
      name: l.name,
      color: l.color,
    })),
    custom_fields: withValues(defs, c.custom),
    statistics: {
      conversations: p.statistics.conversations,
      open_conversations: p.statistics.open_conversations,
      messages_in: p.statistics.messages_in,
      messages_out: p.statistics.messages_out,
      notes: p.statistics.notes,
      tickets: p.tickets.length,
      leads: p.leads.total,
      first_conversation_at: iso(p.statistics.first_conversation_at),
      last_message_at: iso(p.statistics.last_message_at),
    },
    activity: p.activity.map((m) => ({
      month: m.month,
      messages_in: m.messages_in,
      messages_out: m.messages_out,
      conversations: m.conversations,
    })),
    tickets: p.tickets,
    leads: p.leads.items,
  }
}

/** A timeline item; its `id` (`<kind>:<n>`) is what `before` takes. */
export const presentTimelineItem = (t: Profile.TimelineRow) => ({
  id: `${t.kind}:${t.ref_id}`,
  kind: t.kind,
  at: iso(t.at)!,
  data: t.data,
})

export const parseTimelineId = (id: string): Profile.TimelineCursor | null => {
  const m = /^(conversation|note|event):(\d{1,15})$/.exec(id)
  return m ? { kind: m[1] as Profile.TimelineKind, refId: Number(m[2]) } : null
}
