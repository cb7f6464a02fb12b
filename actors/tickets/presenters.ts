import { Schema } from 'effect'
import { iso } from '../../engine/time'
import type { FieldRow } from '../../store/customFields'
import type { SlaPolicy } from '../../store/sla'
import type * as Tickets from '../../store/tickets'
import { FieldValueSchema, shownValues, withValues } from '../customValues'
import {
  TicketActorSchema as ActorSchema,
  TicketPersonSchema as Person,
  TicketSlaSchema as SlaSchema,
  TicketUpdateRequestSchema as UpdateRequestSchema,
} from '../inbox/conversationTickets'
import { isActive, type TicketSla, ticketSla } from './rules'

/**
 * The ticket resources of spec 2 §2 (ticket, discussion message, log entry, the brief a
 * conversation or contact shows) and their response schemas for the OpenAPI document.
 */

const person = (id: number, name: string, avatar: string | null = null) => ({ id, name, avatar_url: avatar })

const actorOf = (a: Tickets.Actor | null) =>
  a === null ? null : { name: a.name, user_id: a.user_id ?? null, key_id: a.key_id ?? null }

export const presentSla = (s: TicketSla | null) =>
  s === null
    ? null
    : { level: s.level, target_minutes: s.target_minutes, minutes: s.minutes, due_at: iso(s.due_at) }

export const presentUpdateRequest = (t: Tickets.TicketRow) =>
  t.update_requested_at === null
    ? null
    : { requested_at: iso(t.update_requested_at), by: actorOf(t.update_requested_by) }

/** Whether an active ticket's due date has passed in the workspace zone (`today` is `YYYY-MM-DD`). */
export const overdue = (t: Tickets.TicketRow, today: string) =>
  isActive(t.status) && t.due_date !== null && t.due_date < today

export interface Context {
  readonly now: Date
  /** `YYYY-MM-DD` in the workspace zone. */
  readonly today: string
  /** Null on Free: the SLA is a Pro and Custom feature. */
  readonly sla: Omit<SlaPolicy, 'targetMinutes'> | null
}

export const slaOfTicket = (t: Tickets.TicketRow, c: Context) => (c.sla ? ticketSla(t, c.now, c.sla) : null)

const participantsOf = (ps: readonly Tickets.ParticipantRow[]) =>
  ps.map((p) => ({ ...person(p.user_id, p.name, p.avatar_url), role: p.role, added_at: iso(p.added_at) }))

/** A list item: no discussion. */
export const presentItem = (
  t: Tickets.TicketView,
  ps: readonly Tickets.ParticipantRow[],
  defs: readonly FieldRow[],
  c: Context,
) => ({
  id: t.id,
  number: t.number,
  subject: t.subject,
  status: t.status,
  priority: t.priority,
  due_date: t.due_date,
  overdue: overdue(t, c.today),
  team: { id: t.team_id, name: t.team_name },
  assignees: ps.filter((p) => p.role === 'assignee').map((p) => person(p.user_id, p.name, p.avatar_url)),
  participants: participantsOf(ps),
  creator: actorOf(t.creator),
  interaction_id: t.interaction_id,
  contact: t.contact_id === null ? null : { id: t.contact_id, name: t.contact_name ?? '' },
  custom: shownValues(defs, t.custom),
  update_request: presentUpdateRequest(t),
  sla: presentSla(slaOfTicket(t, c)),
  messages_count: t.last_message_seq,
  last_message_at: iso(t.last_message_at),
  resolved_at: iso(t.resolved_at),
  closed_at: iso(t.closed_at),
  created_at: iso(t.created_at),
  updated_at: iso(t.updated_at),
})

/** What the caller may do with a ticket (spec 2 §2 "caller's permissions"). */
export interface Can {
  readonly manage: boolean
  readonly resolve: boolean
  readonly message: boolean
  readonly feedback: boolean
}

/** The source conversation's preview; details only when the caller may open it. */
export interface SourcePreview {
  readonly id: number
  readonly can_open: boolean
  readonly subject: string | null
  readonly preview: string | null
  readonly status: string | null
  readonly channel: { readonly id: number; readonly type: string | null; readonly name: string } | null
  readonly contact_name: string | null
}

export const presentDetail = (
  t: Tickets.TicketView,
  ps: readonly Tickets.ParticipantRow[],
  defs: readonly FieldRow[],
  c: Context,
  extra: { readonly can: Can; readonly interaction: SourcePreview | null },
) => ({
  ...presentItem(t, ps, defs, c),
  description: t.description,
  custom_fields: withValues(defs, t.custom),
  interaction: extra.interaction,
  can: extra.can,
})

export const presentMessage = (m: Tickets.MessageView) => ({
  id: m.id,
  ticket_id: m.ticket_id,
  seq: m.seq,
  kind: m.kind,
  body: m.body,
  sender: actorOf(m.sender),
  mentions: m.mentions.map((x) => ({ id: x.id, name: x.name })),
  files: m.files.map((f) => ({
    index: f.idx,
    name: f.name,
    mime: f.mime,
    size: f.size,
    url: `/v1/ticket-messages/${m.id}/files/${f.idx}`,
  })),
  feedback: m.feedback_at === null ? null : { sent_at: iso(m.feedback_at), note_id: m.feedback_note_id },
  created_at: iso(m.created_at),
})

export const presentEvent = (e: Tickets.EventRow) => ({
  id: e.id,
  ticket_id: e.ticket_id,
  seq: e.seq,
  kind: e.kind,
  field: e.field,
  old: e.old_value ?? null,
  new: e.new_value ?? null,
  actor: actorOf(e.actor),
  created_at: iso(e.created_at),
})

/** `ticket.updated`: what changed, without content; clients reload the detail. */
export const presentChange = (t: Tickets.TicketRow, assigneeIds: readonly number[]) => ({
  id: t.id,
  number: t.number,
  status: t.status,
  priority: t.priority,
  team_id: t.team_id,
  assignee_ids: assigneeIds,
  update_request: presentUpdateRequest(t),
  updated_at: iso(t.updated_at),
})

/**
 * A ticket as its conversation shows it (spec 2 §2 `tickets`): every ticket raised there, even
 * without ticket access, with `can_open`, `update_request`, `sla` and the `thread` the
 * conversation side sees (its own posts and requests, the team's feedback and conclusions).
 */
export const presentBrief = (
  t: Tickets.TicketView,
  ps: readonly Tickets.ParticipantRow[],
  thread: readonly Tickets.MessageView[],
  c: Context,
  canOpen: boolean,
) => ({
  id: t.id,
  number: t.number,
  subject: t.subject,
  status: t.status,
  priority: t.priority,
  due_date: t.due_date,
  active: isActive(t.status),
  can_open: canOpen,
  assignees: ps.filter((p) => p.role === 'assignee').map((p) => person(p.user_id, p.name, p.avatar_url)),
  update_request: presentUpdateRequest(t),
  sla: presentSla(slaOfTicket(t, c)),
  thread: {
    team: { id: t.team_id, name: t.team_name },
    messages: thread.map(presentMessage),
  },
  created_at: iso(t.created_at),
  updated_at: iso(t.updated_at),
})

// ---------------------------------------------------------------------------------------------
// Response schemas (OpenAPI)
// ---------------------------------------------------------------------------------------------

const Str = Schema.String
const NStr = Schema.NullOr(Schema.String)
const Num = Schema.Number
export const EventSchema = Schema.Struct({
  id: Num,
  ticket_id: Num,
  seq: Num,
  kind: Str,
  field: NStr,
  old: Schema.Unknown,
  new: Schema.Unknown,
  actor: Schema.NullOr(ActorSchema),
  created_at: NStr,
}).annotations({ identifier: 'TicketEvent' })

const itemFields = {
  id: Num,
  number: Num,
  subject: Str,
  status: Schema.Literal('open', 'in_progress', 'waiting', 'resolved', 'closed'),
  priority: Schema.Literal('low', 'normal', 'high', 'urgent'),
  due_date: NStr,
  overdue: Schema.Boolean,
  team: Schema.Struct({ id: Num, name: Str }),
  assignees: Schema.Array(Person),
  participants: Schema.Array(
    Schema.Struct({
      ...Person.fields,
      role: Schema.Literal('assignee', 'creator', 'mentioned'),
      added_at: NStr,
    }),
  ),
  creator: Schema.NullOr(ActorSchema),
  interaction_id: Schema.NullOr(Num),
  contact: Schema.NullOr(Schema.Struct({ id: Num, name: Str })),
  custom: Schema.Record({ key: Str, value: Schema.Unknown }),
  update_request: UpdateRequestSchema,
  sla: SlaSchema,
  messages_count: Num,
  last_message_at: NStr,
  resolved_at: NStr,
  closed_at: NStr,
  created_at: NStr,
  updated_at: NStr,
}

export const ItemSchema = Schema.Struct(itemFields).annotations({ identifier: 'TicketItem' })

export const DetailSchema = Schema.Struct({
  ...itemFields,
  description: Str,
  custom_fields: Schema.Array(FieldValueSchema),
  interaction: Schema.NullOr(
    Schema.Struct({
      id: Num,
      can_open: Schema.Boolean,
      subject: NStr,
      preview: NStr,
      status: NStr,
      channel: Schema.NullOr(Schema.Struct({ id: Num, type: NStr, name: Str })),
      contact_name: NStr,
    }),
  ),
  can: Schema.Struct({
    manage: Schema.Boolean,
    resolve: Schema.Boolean,
    message: Schema.Boolean,
    feedback: Schema.Boolean,
  }),
}).annotations({ identifier: 'Ticket' })

/** A ticket the caller no longer sees after their change (`{id, visible: false}`). */
export const HiddenSchema = Schema.Struct({ id: Num, visible: Schema.Literal(false) })
