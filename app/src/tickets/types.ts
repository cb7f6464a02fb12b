import type { components } from '../api/schema'

/** The tickets resources as the generated API types give them (spec 2 §2 and §4.3). */
type Schemas = components['schemas']

export type Ticket = Schemas['Ticket']
export type TicketItem = Schemas['TicketItem']
export type TicketMessage = Schemas['TicketMessage']
export type TicketBrief = Schemas['TicketBrief']
export type TicketStatus = Ticket['status']
export type Priority = Ticket['priority']
export type Sla = NonNullable<Ticket['sla']>

export const STATUSES: readonly TicketStatus[] = ['open', 'in_progress', 'waiting', 'resolved', 'closed']
export const PRIORITIES: readonly Priority[] = ['low', 'normal', 'high', 'urgent']

/** A log entry of `meta.events` and of `ticket.event` (written by hand: the meta is untyped). */
export interface TicketEvent {
  readonly id: number
  readonly ticket_id: number
  readonly kind: string
  readonly field: string | null
  readonly old: unknown
  readonly new: unknown
  readonly actor: { readonly name: string; readonly user_id: number | null } | null
  readonly created_at: string | null
}

/** `GET /tickets/candidates`: who may be assigned or mentioned. */
export interface Candidate {
  readonly id: number
  readonly name: string
  readonly is_admin: boolean
  /** Holds `tickets.view`: may be assigned (in the ticket's team) and told of mentions. */
  readonly can_view: boolean
  readonly team_ids: readonly number[]
}

/** `meta.teams` of the list: the Back Office teams. */
export interface TeamBrief {
  readonly id: number
  readonly name: string
  readonly mine?: boolean
}
