import { Effect } from 'effect'
import { iso } from '../../engine/time'
import * as Assignees from '../../store/assignees'
import * as Contacts from '../../store/contacts'
import * as Conversations from '../../store/conversations'
import type { FieldRow } from '../../store/customFields'
import * as CustomFields from '../../store/customFields'
import { isPaidActive } from '../../store/plans'
import { type SlaPolicy, slaOf } from '../../store/sla'
import * as Tickets from '../../store/tickets'
import type { WorkspaceRow } from '../../store/workspaces'
import type { Caller } from '../admin/caller'
import { withValues } from '../customValues'
import { ApiError, notFound } from '../errors'
import { addMessages } from '../i18n'
import * as Metrics from '../metrics'
import type { AlreadyPickedUp } from './ConversationActor'
import { ConversationTickets } from './conversationTickets'

/**
 * The conversation resource of spec 2 §2 as the inbox sees it: the caller as a viewer of the one
 * visibility rule (spec 2 §1), loading a visible conversation (else 404), its presenters, and the
 * actor's failures as API errors. What goes out (throttle → quota → actor → connector) is in
 * outbound.ts.
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

/** The reply-target policy of one conversation (actors/metrics.ts `slaPolicyFor`). */
export type SlaPolicies = (c: Parameters<typeof Metrics.slaPolicyFor>[1]) => SlaPolicy

/**
 * SLA flags are a Pro and Custom feature (spec 2 §2), measured like the reports measure them: the
 * target of the conversation's channel type (first response or reply, with team and personal
 * overrides) in its channel's business hours (actors/metrics.ts).
 */
export const slaPolicyOf = (workspace: WorkspaceRow, now: Date) =>
  isPaidActive(workspace, now)
    ? Effect.map(
        // Lists ask this on every reload: the inputs this node keeps (a change shows within seconds).
        Metrics.keptContextOf(workspace),
        (ctx): SlaPolicies | null =>
          (c) =>
            Metrics.slaPolicyFor(ctx, c),
      )
    : Effect.succeed<SlaPolicies | null>(null)

const named = (id: number | null, name: string | null) => (id === null ? null : { id, name: name ?? '' })

/** A conversation as a list item (spec 2 §2): no message content beyond the one-line preview. */
export const presentItem = (c: Conversations.ListItem, sla: SlaPolicies | null, now: Date) => {
  const flag = sla && c.status === 'open' ? slaOf(c.waiting_since, now, sla(c)) : null
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
    readonly sla: SlaPolicies | null
    /** The workspace's hours and targets, for business-time response times. */
    readonly metrics?: Metrics.Context
    readonly now: Date
    readonly contactsView: boolean
    readonly labels: readonly Contacts.LabelRow[]
    /** Every ticket raised from the conversation (actors/tickets/conversationSide). */
    readonly tickets?: readonly unknown[]
    /** Ticket feedback and conclusions noted since the conversation's `feedback_seen_at`. */
    readonly feedbackUnseen?: number
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
      // The same measure as reports: business minutes in the channel's hours.
      first_response_minutes: opts.metrics ? Metrics.firstResponseMinutes(opts.metrics, c) : null,
      waiting_since: iso(c.waiting_since),
      last_in_at: iso(c.last_in_at),
      last_out_at: iso(c.last_out_at),
    },
    // Every interaction field with its value (null when unset); a deleted field is not shown.
    custom_fields: withValues(opts.fields?.interaction ?? [], c.custom),
    notes_count: c.notes_count,
    tickets: opts.tickets ?? [],
    ai_summary: c.ai_summary,
    feedback_seen_at: iso(c.feedback_seen_at),
    feedback_unseen: opts.feedbackUnseen ?? 0,
  }
}

/** Ticket feedback and conclusions noted in the conversation after `since` (all when null). */
export const unseenFeedback = (conversationId: number, since: Date | null) =>
  Tickets.feedbackNotesSince(conversationId, since)

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
    const [tickets, feedbackUnseen, metrics] = yield* Effect.all([
      Effect.flatMap(ConversationTickets, (t) => t.ofConversation(ctx, view.id, now)),
      unseenFeedback(view.id, view.feedback_seen_at),
      Metrics.contextOf(ctx.workspace),
    ])
    return presentDetail(view, {
      tickets,
      feedbackUnseen,
      sla: isPaidActive(ctx.workspace, now) ? (c) => Metrics.slaPolicyFor(metrics, c) : null,
      metrics,
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
// The actor's failure whose answer needs the store (the others carry theirs: ConversationActor.ts)
// ---------------------------------------------------------------------------------------------

/** A lost pickup race, answered with the winner's name. */
export const pickupLost = (e: AlreadyPickedUp) =>
  Effect.flatMap(Assignees.userName(e.assigneeId), (name) =>
    Effect.fail(new ApiError({ code: 'conflict', message: 'interactions.picked_up', params: { name } })),
  )
