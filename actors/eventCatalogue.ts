/**
 * The real-time contract (spec 1 §6) in one place: the channel kinds, their topic constructors,
 * and per kind every event with its payload type and what it means. Publishers go through
 * `publish` (actors/events.ts), typed from this table, so a wrong event name, payload or channel
 * kind does not compile; the agent app derives its socket's types from the same table (a
 * type-only import: at run time it takes only the topics, actors/eventTopics.ts, the one module
 * this one imports); docs/events.md is written from it (http/eventsDoc.ts, checked by
 * test/http/eventsDoc.test.ts).
 */

import { type Topic, type TopicKind, topics } from './eventTopics'

/** `at` and other instants travel as ISO 8601 strings with milliseconds. */
type Iso = string

/**
 * A resource as the REST API presents it (the same presenter): the named fields are the ones
 * clients rely on; the rest is the resource's documented shape.
 */
type Resource<Fields> = Readonly<Fields> & { readonly [field: string]: unknown }

interface EventEntry<P> {
  /** When it is published. */
  readonly when: string
  /** The payload in short, for docs/events.md. */
  readonly payload: string
  /** Type only: the payload's type, never set. */
  readonly _payload?: P
}

const event =
  <P>() =>
  (when: string, payload: string): EventEntry<P> => ({ when, payload })

type Reason = { readonly reason: string }

export type MessagePayload = Resource<{
  id: number
  interaction_id: number
  direction: 'in' | 'out'
  type: string
  status: string
  created_at: Iso | null
}>

export type ConversationChangePayload = Resource<{
  id: number
  status: string
  assignee_id: number | null
  team_id: number | null
  summary_changed?: boolean
}>

export type TicketMessagePayload = Resource<{ id: number; ticket_id: number; seq: number }>

export const catalogue = {
  /** `ws:{workspace_id}`: what changed in the workspace, without content; clients reload through the API. */
  ws: {
    'workspace.updated': event<{ readonly id: number; readonly name: string; readonly slug: string }>()(
      'Workspace name changed',
      '`{id, name, slug}`',
    ),
    'settings.updated': event<{
      readonly changed: readonly string[]
      readonly settings: Readonly<Record<string, unknown>>
    }>()(
      'General settings changed',
      '`{changed, settings}`: the changed keys and the settings as `GET /v1/settings` gives them',
    ),
    'members.changed': event<
      Reason & {
        readonly member_id?: number
        readonly user_id?: number
        readonly role_id?: number
        readonly channel_id?: number
        readonly invitation_id?: number
        readonly owner_user_id?: number
      }
    >()(
      'Members, roles or invitations changed',
      '`{reason}` with the `member_id`, `user_id`, `role_id`, `channel_id`, `invitation_id` or `owner_user_id` concerned',
    ),
    'teams.changed': event<Reason & { readonly team_id?: number; readonly user_id?: number }>()(
      'Teams or team members changed',
      '`{reason}` with `team_id` or `user_id`',
    ),
    'billing.updated': event<Reason & { readonly key: string; readonly [field: string]: unknown }>()(
      'Plan changed',
      "`{reason}` and the plan as the workspace's billing shows it (`key`, `pro_until`, `in_grace`, `frozen`, `limits`)",
    ),
    'inbox.changed': event<
      Reason & { readonly interaction_id: number | null; readonly channel_id: number | null }
    >()('Inbox change', '`{interaction_id, channel_id, reason}`; no message content, reload via API'),
    'channel.updated': event<{
      readonly channel_id: number
      readonly status: string
      readonly history?: {
        readonly days: number | null
        readonly progress: number
        readonly imported: number
      }
    }>()(
      'Channel status or settings changed, including history import progress',
      '`{channel_id, status}`, with `history {days, progress, imported}` while a number imports its history',
    ),
    'labels.changed': event<{
      readonly channel_id: number
      readonly label_id: string
      readonly name: string
      readonly deleted: boolean
    }>()(
      "A channel's business labels changed (read from the phone)",
      '`{channel_id, label_id, name, deleted}`; the list: `GET /v1/channels/{id}/labels`',
    ),
    'tickets.changed': event<Reason & { readonly ticket_id: number }>()(
      'Ticket created or changed',
      '`{ticket_id, reason}`',
    ),
    'contacts.changed': event<
      Reason & {
        readonly contact_id: number | null
        readonly merged_into?: number
        readonly source_id?: number
        readonly created?: number
        readonly updated?: number
      }
    >()(
      'Contact created, updated, merged, deleted or imported',
      '`{contact_id, reason}` (`contact_id` null for an import, with `created` and `updated` counts)',
    ),
    'contacts.settings': event<{
      readonly kind: 'labels' | 'custom_fields'
      readonly label_id?: number
      readonly field_id?: number
      readonly entity?: string
      readonly deleted?: boolean
    }>()('Labels or custom fields changed', '`{kind}` with `label_id` or `field_id` and `entity`, `deleted`'),
    'kb.changed': event<Reason & ({ readonly article_id: number } | { readonly category_id: number })>()(
      'Knowledge base category or article changed, including finished or failed semantic processing',
      '`{article_id, reason}` or `{category_id, reason}`',
    ),
    'pipeline.changed': event<
      Reason & { readonly lead_id: number | null; readonly pipeline_id: number | null }
    >()('Lead, workflow or pipeline setting changed', '`{lead_id, pipeline_id, reason}`'),
    'clients.changed': event<{ readonly client_id: number }>()(
      'Client created, edited, deleted, or contact linked',
      '`{client_id}`',
    ),
    'broadcasts.changed': event<
      Reason & { readonly broadcast_id: number; readonly [field: string]: unknown }
    >()(
      'Broadcast created, edited, started, paused, completed, progress, receipt or reply',
      '`{broadcast_id, reason}`; progress, receipts and replies also carry the counts',
    ),
    'segments.changed': event<Reason & { readonly segment_id: number }>()(
      'Segment created, edited or deleted',
      '`{segment_id, reason}`',
    ),
  },
  /** `user:{user_id}`: the signed-in user's own. */
  user: {
    'notification.created': event<Resource<{ id: number; kind: string; title: string; read: boolean }>>()(
      'New notification for the user',
      'the notification as `GET /v1/notifications` lists it',
    ),
    'invitations.changed': event<Reason & { readonly invitation_id: number }>()(
      'An invitation to the user’s e-mail address was created, resent, cancelled or accepted',
      '`{invitation_id, reason}`; reload `GET /v1/me/invitations`',
    ),
  },
  /** `conv:{id}`: one conversation, for whoever may view it. */
  conv: {
    'message.created': event<MessagePayload>()('New message', 'the message resource'),
    'message.updated': event<MessagePayload>()(
      'Changed message (delivery status, reactions, edits, unsends, media downloaded)',
      'the message resource',
    ),
    'interaction.updated': event<ConversationChangePayload>()(
      'Conversation status, assignment or summary changed',
      '`{id, status, reply_state, team_id, assignee_id, category_id, channel_id, picked_up, updated_at}`, `summary_changed` when the summary did',
    ),
    typing: event<{
      readonly user_id: number | null
      readonly name: string | null
      readonly typing: boolean
      readonly customer?: true
    }>()(
      'Customer or another agent is typing',
      '`{user_id, name, typing}`, `customer: true` (and `user_id` null) for the customer',
    ),
    'visitor.online': event<{
      readonly interaction_id: number
      readonly channel_id: number
      readonly name: string | null
      readonly page_url: string | null
      readonly at: Iso
    }>()(
      'Live chat visitor has the widget open (sent about every 30 seconds)',
      '`{interaction_id, channel_id, name, page_url, at}`',
    ),
  },
  /** `ticket:{id}`: one ticket, for whoever can open it. */
  ticket: {
    'ticket.message': event<TicketMessagePayload>()('New discussion message', 'the ticket message resource'),
    'ticket.message.updated': event<TicketMessagePayload>()(
      'Changed discussion message',
      'the ticket message resource',
    ),
    'ticket.event': event<Resource<{ id: number; ticket_id: number; kind: string }>>()(
      'New ticket log entry',
      '`{id, ticket_id, seq, kind, field, old, new, actor, created_at}`',
    ),
    'ticket.updated': event<Resource<{ id: number; number: number; status: string }>>()(
      'Ticket data changed; reload',
      '`{id, number, status, priority, team_id, assignee_ids, update_request, updated_at}`',
    ),
  },
  /** `visitor:{session}`: the live chat widget's own (spec 1 §6 rule 4). */
  visitor: {
    message: event<Resource<{ id: number; from: string; body: string }>>()(
      'A message of the chat the visitor sees (never an internal note)',
      '`{id, direction, from, type, body, deleted, media, sender {name}, status, client_id, created_at}`',
    ),
    queue: event<{
      readonly position: number
      readonly waiting: boolean
      readonly agent: { readonly name: string | null } | null
    }>()('Place in the queue changed, or an agent joined', '`{position, waiting, agent}`'),
    typing: event<{ readonly from: 'agent'; readonly name: string | null; readonly typing: boolean }>()(
      'An agent is typing',
      '`{from, name, typing}`',
    ),
    read: event<{ readonly by: 'agent'; readonly at: Iso }>()('An agent read the chat', '`{by, at}`'),
  },
} as const

export type ChannelKind = keyof typeof catalogue

// The channel kinds here are exactly the topics' (actors/eventTopics.ts): a kind added to one
// and not the other does not compile.
const sameKinds: [ChannelKind, TopicKind] extends [TopicKind, ChannelKind] ? true : never = true
void sameKinds

export { type Topic, topics }

/** Who may subscribe to each kind (the rules are http/realtime/channels.ts), for docs/events.md. */
export const channels: { readonly [K in ChannelKind]: { readonly topic: string; readonly who: string } } = {
  ws: { topic: 'ws:{workspace_id}', who: 'every active member of the workspace' },
  user: { topic: 'user:{user_id}', who: 'the user, in the workspace they signed in to' },
  conv: {
    topic: 'conv:{id}',
    who: 'members who may view the conversation; unsubscribed when they lose access',
  },
  ticket: {
    topic: 'ticket:{id}',
    who: 'members who can open the ticket; unsubscribed when they lose access',
  },
  visitor: {
    topic: 'visitor:{session}',
    who: "the live chat visitor's own socket, while the session is live",
  },
}

export type EventName<K extends ChannelKind = ChannelKind> = K extends ChannelKind
  ? keyof (typeof catalogue)[K] & string
  : never

export type Payload<K extends ChannelKind, E extends EventName<K>> =
  (typeof catalogue)[K][E] extends EventEntry<infer P> ? P : never

/** One event as a subscriber receives it (`cursor` added by the gateway), one member per kind and name. */
export type Delivered<K extends ChannelKind = ChannelKind> = K extends ChannelKind
  ? {
      [E in EventName<K>]: { readonly event: E; readonly data: Payload<K, E>; readonly at: Iso }
    }[EventName<K>]
  : never
