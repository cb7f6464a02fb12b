import { Effect } from 'effect'
import { ChannelActor } from '../actors/channel'
import { withValues } from '../actors/contacts/customValues'
import {
  type AlreadyPickedUp,
  ConversationActor,
  type ConversationNotFound,
  type MessageLike,
  presentMessage,
} from '../actors/conversation'
import { type CounterState, WorkspaceActor } from '../actors/workspace'
import type { Delivery, OutboundMessage } from '../connectors/Connector'
import { WallClock } from '../engine/clock'
import { publishEvent } from '../engine/events'
import { iso } from '../engine/time'
import * as Assignees from '../store/assignees'
import * as Channels from '../store/channels'
import * as Contacts from '../store/contacts'
import * as Conversations from '../store/conversations'
import type { FieldRow } from '../store/customFields'
import * as CustomFields from '../store/customFields'
import * as Files from '../store/files'
import * as Groups from '../store/groups'
import * as Messages from '../store/messages'
import { isPaidActive } from '../store/plans'
import { defaultPolicy, type SlaPolicy, slaOf } from '../store/sla'
import type { WorkspaceRow } from '../store/workspaces'
import type { Caller } from './caller'
import { ApiError, notFound } from './errors'
import { addMessages } from './i18n'

/**
 * What the inbox's route modules (interactions, messages, media, groups) share: the caller as a
 * viewer of the one visibility rule, loading a visible conversation (else 404), the conversation
 * presenter, and the outbound path of a message (throttle → quota → ConversationActor →
 * ChannelActor and its connector → delivery recorded).
 */

addMessages({
  'interactions.picked_up': {
    en: 'This chat was already picked up by {name}.',
    id: 'Chat ini sudah diambil oleh {name}.',
  },
  'messages.throttled': {
    en: 'This number has sent 30 messages in the last minute; retry in {seconds} seconds.',
    id: 'Nomor ini sudah mengirim 30 pesan dalam satu menit terakhir; coba lagi dalam {seconds} detik.',
  },
  'messages.replies_quota': {
    en: 'The daily reply limit of {limit} is reached; it resets at {reset}.',
    id: 'Batas balasan harian {limit} sudah tercapai; direset pada {reset}.',
  },
  'messages.channel_archived': {
    en: 'The channel of this conversation is archived; nothing can be sent through it.',
    id: 'Kanal percakapan ini sudah diarsipkan; tidak ada yang dapat dikirim melaluinya.',
  },
  'messages.channel_suspended': {
    en: "This channel is suspended: the workspace's plan has no room for it. Upgrade or choose it to stay active.",
    id: 'Kanal ini ditangguhkan: paket workspace tidak memiliki ruang untuknya. Tingkatkan paket atau pilih kanal ini agar tetap aktif.',
  },
  'messages.no_channel': {
    en: 'The conversation has no channel to deliver through.',
    id: 'Percakapan ini tidak memiliki kanal untuk mengirim.',
  },
})

/** The caller as a viewer of spec 2 §1's rules; API keys see everything. */
export const viewerFor = (caller: Caller, workspace: WorkspaceRow): Conversations.Viewer => {
  if (caller.via === 'key') return Conversations.keyViewer(workspace.id, caller.user.id)
  if (!caller.member || !caller.role) {
    return {
      workspaceId: workspace.id,
      userId: caller.user.id,
      seesAll: false,
      canView: false,
      channelIds: [],
    }
  }
  return Conversations.viewerOf(caller.member, caller.role, workspace.owner_user_id)
}

export interface Ctx {
  readonly caller: Caller
  readonly workspace: WorkspaceRow
}

/** The conversation if the caller may see it; anything else is 404 (spec 2 §1 rule 7). */
export const visibleOr404 = (ctx: Ctx, id: number) =>
  Effect.flatMap(Conversations.visibleById(viewerFor(ctx.caller, ctx.workspace), id), (row) =>
    row ? Effect.succeed(row) : Effect.fail(notFound()),
  )

export const viewOr404 = (ctx: Ctx, id: number) =>
  Effect.flatMap(Conversations.viewById(viewerFor(ctx.caller, ctx.workspace), id), (row) =>
    row ? Effect.succeed(row) : Effect.fail(notFound()),
  )

/** The caller's zone: their own, else the workspace's. */
export const zoneOf = (ctx: Ctx) => ctx.caller.user.timezone ?? ctx.workspace.timezone

/** SLA flags are a Pro and Custom feature (spec 2 §2). */
export const slaPolicyOf = (workspace: WorkspaceRow, now: Date): SlaPolicy | null =>
  isPaidActive(workspace, now) ? defaultPolicy(workspace.timezone) : null

const named = (id: number | null, name: string | null) => (id === null ? null : { id, name: name ?? '' })

/** A conversation as a list item (spec 2 §2): no message content beyond the one-line preview. */
export const presentItem = (c: Conversations.ConversationView, sla: SlaPolicy | null, now: Date) => {
  const flag = sla && c.status === 'open' ? slaOf(c.waiting_since, now, sla) : null
  return {
    id: c.id,
    kind: c.kind,
    status: c.status,
    reply_state: c.reply_state,
    sla: flag ? { level: flag.level, minutes: flag.minutes, due_at: iso(flag.due_at) } : null,
    subject: c.subject,
    preview: c.preview,
    unread_count: c.unread_count,
    channel: c.channel_id === null ? null : { id: c.channel_id, type: c.ch_type, name: c.ch_name ?? '' },
    contact:
      c.contact_id === null
        ? null
        : {
            id: c.contact_id,
            name: c.ct_name ?? '',
            avatar_url: c.ct_avatar === null ? null : `/v1/contacts/${c.contact_id}/avatar`,
          },
    group: named(c.group_id, c.g_name),
    team: named(c.team_id, c.t_name),
    assignee:
      c.assignee_id === null ? null : { id: c.assignee_id, name: c.a_name ?? '', avatar_url: c.a_avatar_url },
    category: named(c.category_id, c.cat_name),
    picked_up: c.picked_up_at !== null,
    last_message_at: iso(c.last_message_at),
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
  }
}

const seconds = (from: Date | null, to: Date | null) =>
  from && to && to.getTime() >= from.getTime() ? Math.floor((to.getTime() - from.getTime()) / 1000) : null

/**
 * The detail (spec 2 §2): the list item plus response times, custom fields, notes count, tickets
 * and the AI summary; the contact's details only for holders of `contacts.view`.
 */
export const presentDetail = (
  c: Conversations.ConversationView,
  opts: {
    readonly sla: SlaPolicy | null
    readonly now: Date
    readonly contactsView: boolean
    readonly labels: readonly Contacts.LabelRow[]
    /** Interaction and contact field definitions, and the contact's values (actors/contacts). */
    readonly fields?: {
      readonly interaction: readonly FieldRow[]
      readonly contact: readonly FieldRow[]
      readonly contactValues: Readonly<Record<string, unknown>>
    }
  },
) => {
  const item = presentItem(c, opts.sla, opts.now)
  return {
    ...item,
    contact:
      item.contact === null
        ? null
        : {
            ...item.contact,
            ...(opts.contactsView
              ? {
                  details: {
                    phone: c.ct_phone,
                    email: c.ct_email,
                    labels: opts.labels.map((l) => ({ id: l.id, name: l.name, color: l.color })),
                  },
                  custom_fields: withValues(opts.fields?.contact ?? [], opts.fields?.contactValues ?? {}),
                }
              : {}),
          },
    response_times: {
      first_message_at: iso(c.first_in_at),
      first_response_at: iso(c.first_response_at),
      first_response_seconds: seconds(c.first_in_at, c.first_response_at),
      waiting_since: iso(c.waiting_since),
      last_in_at: iso(c.last_in_at),
      last_out_at: iso(c.last_out_at),
    },
    // Every interaction field with its value (null when unset); a deleted field is not shown.
    custom_fields: withValues(opts.fields?.interaction ?? [], c.custom),
    notes_count: c.notes_count,
    tickets: [],
    ai_summary: c.ai_summary,
    feedback_seen_at: iso(c.feedback_seen_at),
  }
}

/** `{id, visible: false}` when a change took the conversation out of the caller's sight. */
export const presentOrHidden = (ctx: Ctx, id: number, now: Date) =>
  Effect.gen(function* () {
    const view = yield* Conversations.viewById(viewerFor(ctx.caller, ctx.workspace), id)
    if (!view) return { id, visible: false as const }
    const labels = view.contact_id === null ? [] : yield* Contacts.labelsOf(view.contact_id)
    const contactsView = ctx.caller.permissions.has('contacts.view')
    const defs = yield* CustomFields.list(
      ctx.workspace.id,
      contactsView ? ['interaction', 'contact'] : ['interaction'],
    )
    const contact =
      contactsView && view.contact_id !== null
        ? yield* Contacts.byId(ctx.workspace.id, view.contact_id)
        : null
    return presentDetail(view, {
      sla: slaPolicyOf(ctx.workspace, now),
      now,
      contactsView,
      labels,
      fields: {
        interaction: defs.filter((d) => d.entity === 'interaction'),
        contact: defs.filter((d) => d.entity === 'contact'),
        contactValues: contact?.custom ?? {},
      },
    })
  })

// ---------------------------------------------------------------------------------------------
// Actor failures as API errors
// ---------------------------------------------------------------------------------------------

export const conversationGone = (_: ConversationNotFound) => Effect.fail(notFound())

export const pickupLost = (e: AlreadyPickedUp) =>
  Effect.flatMap(Assignees.userName(e.assigneeId), (name) =>
    Effect.fail(new ApiError({ code: 'conflict', message: 'interactions.picked_up', params: { name } })),
  )

// ---------------------------------------------------------------------------------------------
// Sending
// ---------------------------------------------------------------------------------------------

/** `{name, user_id}` of a session's user; a key's messages carry the key's name and id. */
export const senderFor = (caller: Caller) =>
  caller.via === 'key'
    ? Effect.map(Messages.keyName(caller.keyId), (name) => ({ name, user_id: null, key_id: caller.keyId }))
    : Effect.succeed({ name: caller.user.name, user_id: caller.user.id })

/** Initials appended to messaging-app replies: the member's `reply_initial`, else from the name. */
export const initialOf = (caller: Caller): string => {
  const own = caller.member?.reply_initial?.trim()
  if (own) return own
  return caller.user.name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 3)
    .map((w) => w[0]!.toUpperCase())
    .join('')
}

export const repliesMeta = (c: CounterState) => ({ used: c.used, limit: c.limit })

/**
 * The gate of everything that goes out: nothing through an archived channel (409) or one the plan
 * set aside (402, suspended after a move to Free), and one of this
 * minute's 30 outbound slots of a messaging-app number (else 429).
 */
export const takeSlot = (channel: Channels.ChannelRow | null) =>
  Effect.gen(function* () {
    if (channel && channel.archived_at !== null)
      return yield* Effect.fail(new ApiError({ code: 'conflict', message: 'messages.channel_archived' }))
    if (channel && channel.suspended_at !== null)
      return yield* Effect.fail(
        new ApiError({ code: 'plan_required', message: 'messages.channel_suspended' }),
      )
    if (channel?.type !== 'msgapp') return
    const nowMs = yield* Effect.flatMap(WallClock, (c) => c.millis)
    yield* Effect.flatMap(ChannelActor, (a) => a.ask(channel.id, { _tag: 'TakeOutboundSlot', nowMs })).pipe(
      Effect.catchTags({
        Throttled: (e) =>
          Effect.fail(
            new ApiError({
              code: 'rate_limited',
              message: 'messages.throttled',
              params: { seconds: e.retryAfterSeconds },
              headers: { 'Retry-After': String(e.retryAfterSeconds) },
            }),
          ),
        ChannelNotFound: () => Effect.fail(notFound()),
      }),
    )
  })

/** Uses one of today's replies (spec 1 §2 `replies_per_day`), or 402 with the reset time. */
export const consumeReply = (workspace: WorkspaceRow) =>
  Effect.gen(function* () {
    const now = yield* Effect.flatMap(WallClock, (c) => c.now)
    return yield* Effect.flatMap(WorkspaceActor, (a) =>
      a.ask(workspace.id, { _tag: 'Consume', counter: 'replies_per_day', now }),
    ).pipe(
      Effect.catchTags({
        QuotaExceeded: (e) =>
          Effect.fail(
            new ApiError({
              code: 'plan_required',
              message: 'messages.replies_quota',
              params: { limit: e.limit, reset: iso(e.resetAt)! },
            }),
          ),
        WorkspaceNotFound: () => Effect.fail(notFound()),
      }),
    )
  })

export const repliesUsage = (workspace: WorkspaceRow) =>
  Effect.gen(function* () {
    const now = yield* Effect.flatMap(WallClock, (c) => c.now)
    const all = yield* Effect.flatMap(WorkspaceActor, (a) =>
      a.ask(workspace.id, { _tag: 'Usage', now }),
    ).pipe(Effect.catchTag('WorkspaceNotFound', () => Effect.fail(notFound())))
    return all.replies_per_day
  })

export interface Draft {
  readonly type: string
  readonly body: string
  readonly file: Files.FileRow | null
  readonly replyToId: number | null
  readonly payload: Readonly<Record<string, unknown>>
  readonly clientId?: string | undefined
}

export interface Target extends Ctx {
  readonly conversation: Conversations.ConversationRow
  readonly channel: Channels.ChannelRow | null
}

/** What delivering a stored message needs (no caller: automatic replies deliver too). */
export type Delivering = Pick<Target, 'workspace' | 'conversation' | 'channel'>

/** The conversation's channel (null when it has none). */
export const channelOf = (c: Conversations.ConversationRow) =>
  c.channel_id === null ? Effect.succeed(null) : Channels.byId(c.channel_id)

/**
 * Hands a stored message to its channel and records the answer: ChannelActor → connector →
 * ConversationActor (`sent`, or `failed` with the channel's reason). Returns the message as stored.
 */
export const deliver = (t: Delivering, message: MessageLike) =>
  Effect.gen(function* () {
    const conv = yield* ConversationActor
    let delivery: Delivery
    if (t.channel === null) {
      delivery = { _tag: 'Rejected', reason: 'The conversation has no channel to deliver through.' }
    } else {
      const outbound = yield* outboundOf(t, message)
      delivery = yield* Effect.flatMap(ChannelActor, (a) =>
        a.ask(t.channel!.id, { _tag: 'Deliver', message: outbound }),
      ).pipe(
        Effect.catchTag('ChannelNotFound', () =>
          Effect.succeed<Delivery>({ _tag: 'Rejected', reason: 'channel removed' }),
        ),
      )
    }
    return yield* conv.ask(t.conversation.id, { _tag: 'Delivered', messageId: message.id, delivery }).pipe(
      Effect.catchTags({
        ConversationNotFound: conversationGone,
        MessageNotFound: () => Effect.fail(notFound()),
      }),
    )
  })

/** What the connector is asked to deliver: recipient, files, quoted message, final text. */
const outboundOf = (t: Delivering, m: MessageLike) =>
  Effect.gen(function* () {
    const c = t.conversation
    const contact = c.contact_id === null ? null : yield* Contacts.byId(t.workspace.id, c.contact_id)
    const group = c.group_id === null ? null : yield* Groups.byId(t.workspace.id, c.group_id)
    const email = (m.payload.email ?? null) as { attachments?: Array<{ file_id: number }> } | null
    const fileIds = [
      ...(m.file_id !== null ? [m.file_id] : []),
      ...(email?.attachments ?? []).map((a) => a.file_id),
    ]
    const files = yield* Files.byIds(t.workspace.id, fileIds)
    const quoted = m.reply_to_id === null ? null : yield* Messages.inConversation(c.id, m.reply_to_id)
    const initial = typeof m.payload.agent_initial === 'string' ? m.payload.agent_initial : ''
    return {
      messageId: m.id,
      conversationId: c.id,
      type: m.type,
      body: initial === '' ? m.body : `${m.body}\n\n-${initial}`,
      to: contact ? { name: contact.name, phone: contact.phone, email: contact.email } : null,
      group: group?.external_id ?? null,
      subject: c.subject,
      files: files.map((f) => ({ storageKey: f.storage_key, name: f.name, mime: f.mime, size: f.size })),
      replyTo: quoted?.external_id ?? null,
      payload: m.payload,
    } satisfies OutboundMessage
  })

/**
 * Sends a message the way an agent's reply goes: idempotent on `client_id`; a live chat nobody
 * has is picked up first (sessions only); the number's throttle and the daily reply quota are
 * taken before anything is stored; then the ConversationActor numbers it and the channel gets it.
 * Notes skip the channel, the throttle and the quota.
 */
export const send = (t: Target, draft: Draft, prepaid?: CounterState) =>
  Effect.gen(function* () {
    const conv = yield* ConversationActor
    const deliverable = draft.type !== 'note'
    if (draft.clientId !== undefined) {
      const again = yield* Messages.byClientId(t.conversation.id, draft.clientId)
      if (again) return { message: again, replies: yield* repliesUsage(t.workspace) }
    }
    if (
      deliverable &&
      t.channel?.type === 'livechat' &&
      t.caller.via === 'session' &&
      t.conversation.assignee_id === null
    ) {
      yield* pickUp(t)
    }
    // A caller that took the slot and the reply already (starting a chat) passes what it got.
    if (deliverable && !prepaid) yield* takeSlot(t.channel)
    const replies =
      prepaid ?? (deliverable ? yield* consumeReply(t.workspace) : yield* repliesUsage(t.workspace))
    const sender = yield* senderFor(t.caller)
    const initial =
      deliverable &&
      t.channel?.type === 'msgapp' &&
      t.caller.via === 'session' &&
      t.channel.settings.agent_initial !== false
        ? initialOf(t.caller)
        : ''
    const stored = yield* conv
      .ask(t.conversation.id, {
        _tag: 'Append',
        direction: 'out',
        type: draft.type,
        body: draft.body,
        sender,
        status: deliverable ? 'pending' : 'internal',
        clientId: draft.clientId,
        fileId: draft.file?.id ?? null,
        replyToId: draft.replyToId,
        payload: initial === '' ? draft.payload : { ...draft.payload, agent_initial: initial },
      })
      .pipe(Effect.catchTag('ConversationNotFound', conversationGone))
    if (!deliverable || stored.status !== 'pending') return { message: stored, replies }
    return { message: yield* deliver(t, stored), replies }
  })

/** A new conversation appeared in the inbox (no content: clients reload the list). */
export const inboxCreated = (c: Conversations.ConversationRow) =>
  publishEvent(`ws:${c.workspace_id}`, 'inbox.changed', {
    interaction_id: c.id,
    channel_id: c.channel_id,
    reason: 'created',
  })

/** Picks up a live chat for the calling agent (409 when someone was faster) and tells the visitor. */
export const pickUp = (t: Target) =>
  Effect.gen(function* () {
    const row = yield* Effect.flatMap(ConversationActor, (a) =>
      a.ask(t.conversation.id, { _tag: 'Pickup', userId: t.caller.user.id }),
    ).pipe(Effect.catchTags({ ConversationNotFound: conversationGone, AlreadyPickedUp: pickupLost }))
    if (t.channel) yield* agentJoined(t.channel.id, row.id, t.caller.user.name)
    return row
  })

/**
 * Tells a live chat's visitor (and those queued behind) that an agent has the chat: after a
 * pickup, or when someone assigns the waiting chat.
 */
export const agentJoined = (channelId: number, conversationId: number, agentName: string) =>
  Effect.flatMap(ChannelActor, (a) =>
    a.ask(channelId, { _tag: 'Signal', conversationId, signal: { kind: 'agent_joined', agentName } }),
  ).pipe(Effect.catchTag('ChannelNotFound', () => Effect.void))

/** The message resource, as every inbox route answers it. */
export const presentSent = (m: MessageLike) => presentMessage(m)
