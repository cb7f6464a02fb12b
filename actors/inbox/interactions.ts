import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import { startOfLocalDay } from '../../engine/time'
import * as Assignees from '../../store/assignees'
import * as Categories from '../../store/categories'
import * as Channels from '../../store/channels'
import * as Contacts from '../../store/contacts'
import * as Conversations from '../../store/conversations'
import * as CustomFields from '../../store/customFields'
import * as Messages from '../../store/messages'
import { createdReply, reply } from '../answer'
import { ChannelActor } from '../channels/ChannelActor'
import { checkValues } from '../customValues'
import { ApiError, type FieldMessage, forbidden, invalid, notFound, ProblemSet } from '../errors'
import { AgentClientId, BigId, BigIdFromString, Id, IdFromString, MAX_ID, Text } from '../fields'
import { addMessages } from '../i18n'
import * as Notifications from '../notifications'
import { cursorField, decodeKeyset, encodeKeyset, pageFields, pageMeta, pageOf } from '../pagination'
import { AlreadyPickedUp, ConversationActor } from './ConversationActor'
import type { Ctx } from './conversations'
import * as Inbox from './conversations'
import { toText } from './emailHtml'
import { EmailFields, emailPayload } from './messages'
import * as Outbound from './outbound'

/**
 * Spec 2 §4.1, the conversation side (the domain of http/routes/interactions.ts): list (every filter, counts per tab, Frontline teams),
 * detail, starting a chat, changes (status, team, assignee, category, custom values), notes,
 * assignees, read, typing, pickup, history, feedback, and the parts whose domains come later
 * (tickets, leads, AI summary). Every route first finds the conversation through the one
 * visibility rule (store/conversations `visibleWhere`); what the caller may not see is 404.
 */

addMessages({
  'field.frontline_team': {
    en: 'must be a Frontline team of this workspace',
    id: 'harus tim Frontline di workspace ini',
  },
  'field.assignee': {
    en: 'must be an active member who can see this conversation',
    id: 'harus anggota aktif yang dapat melihat percakapan ini',
  },
  'field.assignee_team': {
    en: "must be a member of the conversation's team",
    id: 'harus anggota tim percakapan ini',
  },
  'field.unknown': { en: 'does not exist', id: 'tidak ada' },
  'field.date': { en: 'must be a date YYYY-MM-DD', id: 'harus tanggal YYYY-MM-DD' },
  'field.contact_phone': {
    en: 'the contact has no phone number for this channel',
    id: 'kontak tidak memiliki nomor telepon untuk kanal ini',
  },
  'field.contact_email': {
    en: 'the contact has no e-mail address',
    id: 'kontak tidak memiliki alamat e-mail',
  },
  'field.channel_inactive': {
    en: 'the channel is archived',
    id: 'kanal ini sudah diarsipkan',
  },
  'field.start_channel_type': {
    en: 'chats are started on messaging-app numbers and e-mail channels only',
    id: 'percakapan hanya dapat dimulai di nomor aplikasi pesan dan kanal e-mail',
  },
  'interactions.assign_needed': {
    en: 'Moving a conversation to another team or assigning it to someone else needs the interactions.assign permission.',
    id: 'Memindahkan percakapan ke tim lain atau menugaskannya ke orang lain memerlukan izin interactions.assign.',
  },
  'interactions.not_livechat': {
    en: 'Only live chat conversations are picked up.',
    id: 'Hanya percakapan live chat yang dapat diambil.',
  },
  'interactions.history_msgapp': {
    en: 'History can be copied from the phone for messaging-app conversations only.',
    id: 'Riwayat hanya dapat disalin dari ponsel untuk percakapan aplikasi pesan.',
  },
})

// Each id within the id column's range (an `int`): a larger one made the list's query fail (500).
const IdList = Schema.String.pipe(
  Schema.filter(
    (s) =>
      /^\s*\d{1,15}(\s*,\s*\d{1,15})*\s*$/.test(s) && s.split(',').every((x) => Number(x.trim()) <= MAX_ID),
    {
      jsonSchema: { pattern: '^\\d+(,\\d+)*$' },
      description: 'comma-separated ids',
    },
  ),
)
const LocalDate = Schema.String.pipe(
  Schema.filter((s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), {
    message: () => 'field.date',
    jsonSchema: { pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
  }),
)

export const ListQuery = Schema.Struct({
  ...pageFields,
  cursor: Schema.optional(cursorField),
  kind: Schema.optional(Schema.Literal('chat', 'group')),
  tab: Schema.optional(Schema.Literal(...Conversations.tabs)),
  channel_ids: Schema.optional(IdList),
  channel_id: Schema.optional(IdFromString),
  assignee: Schema.optional(Schema.Union(Schema.Literal('me', 'none'), IdFromString)),
  team: Schema.optional(Schema.Union(Schema.Literal('mine', 'none'), IdFromString)),
  label_id: Schema.optional(IdFromString),
  contact_id: Schema.optional(BigIdFromString),
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  created_from: Schema.optional(LocalDate),
  created_to: Schema.optional(LocalDate),
  category: Schema.optional(Schema.Union(Schema.Literal('none'), IdFromString)),
})

const dayStart = (date: string, zone: string, plusDays = 0) => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return startOfLocalDay(y, m, d + plusDays, zone)
}

const CustomValue = Schema.Union(
  Schema.String.pipe(Schema.maxLength(2000)),
  Schema.Number,
  Schema.Boolean,
  Schema.Null,
)

export const PatchBody = Schema.Struct({
  status: Schema.optional(Schema.Literal('open', 'solved', 'closed')),
  team_id: Schema.optional(Schema.NullOr(Id)),
  assignee_id: Schema.optional(Schema.NullOr(Id)),
  category_id: Schema.optional(Schema.NullOr(Id)),
  custom: Schema.optional(Schema.Record({ key: Schema.String, value: CustomValue })),
})

export const StartBody = Schema.Struct({
  contact_id: BigId,
  channel_id: Id,
  text: Schema.optional(Text(1, 65_536)),
  subject: Schema.optional(Text(1, 255)),
  ...EmailFields,
  client_id: Schema.optional(AgentClientId),
})

/** Whether a change of team or assignee needs `interactions.assign` (assigning others). */
const needsAssign = (
  c: Conversations.ConversationRow,
  me: number,
  teamId: number | null | undefined,
  assigneeId: number | null | undefined,
) => {
  const teamMoves = teamId !== undefined && teamId !== c.team_id
  const mine = (u: number | null) => u === null || u === me
  const assigneeMoves = assigneeId !== undefined && assigneeId !== c.assignee_id
  return teamMoves || (assigneeMoves && !(mine(assigneeId ?? null) && mine(c.assignee_id)))
}

export const NOTES_LIMIT = 200

/** A conversation named by its id (the route's path). */
type ById = { readonly id: number }

export const list = (ctx: Ctx, query: typeof ListQuery.Type) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const viewer = Inbox.viewerFor(caller, workspace)
    const zone = Inbox.zoneOf(ctx)
    const channelIds = [
      ...(query.channel_ids ? query.channel_ids.split(',').map((s) => Number(s.trim())) : []),
      ...(query.channel_id !== undefined ? [query.channel_id] : []),
    ]
    let categories: readonly number[] | 'none' | undefined
    if (query.category === 'none') categories = 'none'
    else if (query.category !== undefined) {
      categories = Categories.subtreeIds(yield* Categories.all(workspace.id), query.category)
    }
    const filter: Conversations.ListFilter = {
      ...(query.kind ? { kind: query.kind } : {}),
      ...(channelIds.length > 0 ? { channelIds } : {}),
      ...(query.assignee !== undefined ? { assignee: query.assignee } : {}),
      ...(query.team !== undefined ? { team: query.team } : {}),
      ...(query.label_id !== undefined ? { labelId: query.label_id } : {}),
      ...(query.contact_id !== undefined ? { contactId: query.contact_id } : {}),
      ...(query.q?.trim() ? { q: query.q.trim() } : {}),
      ...(query.created_from ? { createdFrom: dayStart(query.created_from, zone) } : {}),
      ...(query.created_to ? { createdTo: dayStart(query.created_to, zone, 1) } : {}),
      ...(categories !== undefined ? { categories } : {}),
    }
    const page = pageOf(query)
    // A cursor (the app's infinite scroll) goes on after the row it names; `page` is then unused.
    const after = query.cursor === undefined ? undefined : (decodeKeyset(query.cursor) ?? undefined)
    const at = yield* currentTime
    // A search's words are looked up once, for the page and its counts alike.
    const words = yield* Conversations.wordsFor(viewer, filter)
    // The teams come with the counts (`meta.teams` shows the frontline ones).
    const teamsAndCounts = Effect.map(
      Conversations.countsAndTeams(viewer, filter, words),
      ({ counts, teams }) => [teams.filter((t) => t.type === 'frontline'), counts] as const,
    )
    const [rows, [teams, counts], sla] = yield* Effect.all(
      [
        Conversations.list(viewer, filter, query.tab, { ...page, ...(after ? { after } : {}) }, words),
        teamsAndCounts,
        Inbox.slaPolicyOf(workspace, at),
      ],
      { concurrency: 'unbounded' },
    )
    const { all, ...perTab } = counts
    return reply(
      rows.map((r) =>
        // A search names where it found its words: the message, and a plain fragment around them.
        filter.q === undefined
          ? Inbox.presentItem(r, sla, at)
          : {
              ...Inbox.presentItem(r, sla, at),
              match: r.match_id == null ? null : { message_id: r.match_id, snippet: r.match_snippet ?? '' },
            },
      ),
      {
        ...pageMeta(page, query.tab ? counts[query.tab] : all),
        // After the last row of a full page; null when the list ends here.
        next_cursor:
          rows.length === page.limit && rows.length > 0
            ? encodeKeyset({ us: rows[rows.length - 1]!.sort_us, id: rows[rows.length - 1]!.id })
            : null,
        counts: perTab,
        teams: teams.map((t) => ({
          id: t.id,
          name: t.name,
          mine: t.member_ids.includes(caller.user.id),
        })),
      },
    )
  })

export const detail = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    yield* Inbox.visibleOr404({ caller, workspace }, params.id)
    const detail = yield* Inbox.presentOrHidden({ caller, workspace }, params.id, yield* currentTime)
    if ('visible' in detail) return yield* Effect.fail(notFound())
    return reply(detail)
  })

export const start = (ctx: Ctx, body: typeof StartBody.Type) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const channel = yield* Channels.byId(body.channel_id)
    const viewer = Inbox.viewerFor(caller, workspace)
    if (
      !channel ||
      channel.workspace_id !== workspace.id ||
      (viewer.channelIds !== null && !viewer.channelIds.includes(channel.id))
    ) {
      return yield* Effect.fail(invalid({ channel_id: { key: 'field.unknown' } }))
    }
    if (channel.archived_at !== null)
      return yield* Effect.fail(invalid({ channel_id: { key: 'field.channel_inactive' } }))
    // Agents start chats on numbers and mailboxes; live chats and API conversations are
    // started by the customer's side (a visitor, the customer's system).
    if (channel.type !== 'msgapp' && channel.type !== 'email')
      return yield* Effect.fail(invalid({ channel_id: { key: 'field.start_channel_type' } }))
    const contact = yield* Contacts.byId(workspace.id, body.contact_id)
    if (!contact) return yield* Effect.fail(invalid({ contact_id: { key: 'field.unknown' } }))
    const isEmail = channel.type === 'email'
    const problems: Record<string, FieldMessage> = {}
    if (isEmail) {
      if (!contact.email) problems.contact_id = { key: 'field.contact_email' }
      if (!body.subject?.trim()) problems.subject = { key: 'field.required' }
      if (!body.text?.trim() && !body.html?.trim()) problems.text = { key: 'field.required' }
    } else {
      if (channel.type === 'msgapp' && !contact.phone) problems.contact_id = { key: 'field.contact_phone' }
      if (!body.text?.trim()) problems.text = { key: 'field.required' }
      for (const f of ['subject', 'html', 'cc', 'reply_all'] as const) {
        if (body[f] !== undefined) problems[f] = { key: 'field.email_only' }
      }
    }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    // A resend (same `client_id`) answers what the first call made, taking no slot or reply.
    if (body.client_id !== undefined) {
      const again = yield* Messages.byClientIdWith(channel.id, contact.id, body.client_id)
      if (again) {
        const detail = yield* Inbox.presentOrHidden(ctx, again.conversation_id, yield* currentTime)
        return reply(detail, {
          reused: true,
          message: Outbound.presentSent(again),
          replies: Outbound.repliesMeta(yield* Outbound.repliesUsage(workspace)),
        })
      }
    }
    const at = yield* currentTime
    // The throttle and the quota come first: a refused start leaves nothing behind.
    yield* Outbound.takeSlot(channel)
    const taken = yield* Outbound.consumeReply(workspace, at)
    const started = isEmail
      ? {
          row: yield* Conversations.create(workspace.id, channel.id, {
            contactId: contact.id,
            subject: body.subject!.trim(),
            at,
          }),
          reused: false,
        }
      : yield* Conversations.openChatWith(workspace.id, channel.id, contact.id, at)
    if (!started.reused) {
      yield* Outbound.inboxCreated(started.row)
    }
    const email = isEmail ? yield* emailPayload(workspace, body, [], started.row.subject) : null
    const { message, replies } = yield* Outbound.send(
      { ...ctx, conversation: started.row, channel },
      {
        type: 'text',
        body: email ? body.text?.trim() || toText(email.html ?? '') : body.text!.trim(),
        file: null,
        replyToId: null,
        payload: email ? { email } : {},
        clientId: body.client_id,
      },
      { replies: taken, at },
    )
    const detail = yield* Inbox.presentOrHidden(ctx, started.row.id, yield* currentTime)
    return createdReply(detail, {
      reused: started.reused,
      message: Outbound.presentSent(message),
      replies: Outbound.repliesMeta(replies),
    })
  })

export const update = (ctx: Ctx, params: ById, body: typeof PatchBody.Type) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const c = yield* Inbox.visibleOr404(ctx, params.id)
    const mayAssign = caller.permissions.has('interactions.assign')
    if (needsAssign(c, caller.user.id, body.team_id, body.assignee_id) && !mayAssign) {
      return yield* Effect.fail(forbidden('interactions.assign_needed'))
    }
    const problems: Record<string, FieldMessage> = {}
    const team = body.team_id !== undefined ? body.team_id : c.team_id
    if (body.team_id !== undefined && body.team_id !== null) {
      const t = yield* Assignees.teamById(workspace.id, body.team_id)
      if (t?.type !== 'frontline') problems.team_id = { key: 'field.frontline_team' }
    }
    let assignee = body.assignee_id !== undefined ? body.assignee_id : c.assignee_id
    if (body.assignee_id !== undefined && body.assignee_id !== null) {
      const who = yield* Assignees.assignableOne(workspace.id, c.channel_id, body.assignee_id)
      if (!who) problems.assignee_id = { key: 'field.assignee' }
      else if (team !== null && !who.is_admin && !who.team_ids.includes(team)) {
        problems.assignee_id = { key: 'field.assignee_team' }
      }
    } else if (
      body.team_id !== undefined &&
      team !== null &&
      assignee !== null &&
      body.assignee_id === undefined
    ) {
      // The team moved and nobody was named: the current assignee stays only if they belong to it.
      const who = yield* Assignees.assignableOne(workspace.id, c.channel_id, assignee)
      if (!who || (!who.is_admin && !who.team_ids.includes(team))) assignee = null
    }
    if (body.category_id !== undefined && body.category_id !== null) {
      const cats = yield* Categories.all(workspace.id)
      if (!cats.some((x) => x.id === body.category_id)) problems.category_id = { key: 'field.unknown' }
    }
    // Custom values against the workspace's interaction field definitions (actors/contacts).
    const customProblems = new ProblemSet()
    const { set: customSet, clear: customClear } =
      body.custom === undefined
        ? { set: {}, clear: [] }
        : checkValues(yield* CustomFields.list(workspace.id, ['interaction']), body.custom, customProblems)
    Object.assign(problems, customProblems.fields)
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    const patch: Conversations.ConversationPatch = {
      ...(body.status !== undefined ? { status: body.status } : {}),
      ...(body.team_id !== undefined ? { teamId: body.team_id } : {}),
      ...(assignee !== c.assignee_id ? { assigneeId: assignee } : {}),
      ...(body.category_id !== undefined ? { categoryId: body.category_id } : {}),
      ...(body.custom !== undefined ? { customSet, customClear } : {}),
      // Without interactions.assign one may only take what nobody else holds (or let go of one's
      // own): checked again as the change applies, so two agents taking it at once do not both
      // succeed, the later one taking it from the first.
      ...(!mayAssign && assignee !== c.assignee_id ? { ifAssignee: c.assignee_id } : {}),
    }
    yield* Effect.flatMap(ConversationActor, (a) => a.ask(c.id, { _tag: 'Update', patch })).pipe(
      Effect.catchTag('AlreadyPickedUp', () => Effect.fail(forbidden('interactions.assign_needed'))),
    )
    // Assigned to someone else: they hear of it (docs/decisions.md, "Alerts"), after the change committed.
    if (assignee !== null && assignee !== c.assignee_id && assignee !== caller.user.id) {
      const contact = c.contact_id !== null ? yield* Contacts.byId(workspace.id, c.contact_id) : null
      yield* Notifications.notify({
        workspaceId: workspace.id,
        userId: assignee,
        kind: 'interaction.assigned',
        title: `${caller.user.name} assigned you a conversation`,
        body: contact?.name ?? c.subject ?? '',
        link: `/interactions/${c.id}`,
        data: { interaction_id: c.id, by: caller.user.id, by_name: caller.user.name },
      })
    }
    // Assigning a waiting live chat takes it out of the queue, as a pickup does: the visitor hears.
    if (c.assignee_id === null && assignee !== null && c.channel_id !== null) {
      const channel = yield* Outbound.channelOf(c)
      if (channel?.type === 'livechat')
        yield* Outbound.agentJoined(channel.id, c.id, yield* Assignees.userName(assignee))
    }
    return reply(yield* Inbox.presentOrHidden(ctx, c.id, yield* currentTime))
  })

export const notes = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const c = yield* Inbox.visibleOr404({ caller, workspace }, params.id)
    const rows = yield* Messages.notes(c.id, NOTES_LIMIT)
    const items = rows.map(Outbound.presentSent)
    const source: Record<string, number> = { note: 0, ticket_feedback: 0, ticket_conclusion: 0 }
    for (const n of items) source[n.source ?? 'note'] = (source[n.source ?? 'note'] ?? 0) + 1
    const unseen = yield* Inbox.unseenFeedback(c.id, c.feedback_seen_at)
    return reply(items, {
      limit: NOTES_LIMIT,
      total: c.notes_count,
      source,
      feedback_seen_at: c.feedback_seen_at?.toISOString().replace(/\.\d{3}Z$/, 'Z') ?? null,
      feedback_unseen: unseen,
    })
  })

export const assignees = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const c = yield* Inbox.visibleOr404({ caller, workspace }, params.id)
    const [people, teams] = yield* Effect.all([
      Assignees.assignable(workspace.id, c.channel_id),
      Assignees.frontlineTeams(workspace.id),
    ])
    const ids = new Set(people.map((p) => p.id))
    return reply(
      people.map((p) => ({
        id: p.id,
        name: p.name,
        email: p.email,
        avatar_url: p.avatar_url,
        is_admin: p.is_admin,
        team_ids: p.team_ids,
      })),
      {
        teams: teams.map((t) => ({
          id: t.id,
          name: t.name,
          member_ids: t.member_ids.filter((m) => ids.has(m)),
        })),
      },
    )
  })

export const feedbackSeen = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const c = yield* Inbox.visibleOr404({ caller, workspace }, params.id)
    const at = yield* currentTime
    yield* Conversations.markFeedbackSeen(c.id, at)
    return reply({
      id: c.id,
      feedback_seen_at: at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      feedback_unseen: yield* Inbox.unseenFeedback(c.id, at),
    })
  })

/** `POST /interactions/{id}/summary`: actors/inbox/summary.ts. */
export { summary } from './summary'

export const markRead = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const c = yield* Inbox.visibleOr404({ caller, workspace }, params.id)
    const row = yield* Effect.flatMap(ConversationActor, (a) => a.ask(c.id, { _tag: 'MarkRead' }))
    if (c.channel_id !== null) {
      const externalIds = yield* Messages.unreadExternalIds(c.id)
      yield* Effect.flatMap(ChannelActor, (a) =>
        a.ask(c.channel_id!, {
          _tag: 'Signal',
          conversationId: c.id,
          signal: { kind: 'read', externalIds },
        }),
      ).pipe(Effect.catchTag('ChannelNotFound', () => Effect.void))
    }
    return reply({ id: row.id, unread_count: row.unread_count })
  })

export const typing = (ctx: Ctx, params: ById, body: { readonly typing: boolean }) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const c = yield* Inbox.visibleOr404({ caller, workspace }, params.id)
    const typing = yield* Effect.flatMap(ConversationActor, (a) =>
      a.ask(c.id, {
        _tag: 'Typing',
        userId: caller.user.id,
        name: caller.user.name,
        typing: body.typing,
      }),
    )
    // A live chat visitor sees the agent typing (their widget's `typing` event).
    const channel = yield* Outbound.channelOf(c)
    if (channel?.type === 'livechat') {
      yield* Effect.flatMap(ChannelActor, (a) =>
        a.ask(channel.id, {
          _tag: 'Signal',
          conversationId: c.id,
          signal: { kind: 'typing', name: caller.user.name, typing: body.typing },
        }),
      ).pipe(Effect.catchTag('ChannelNotFound', () => Effect.void))
    }
    return reply({ id: c.id, typing: body.typing, typing_user_ids: typing })
  })

export const pickup = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const viewer = Inbox.viewerFor(caller, workspace)
    const c = yield* Conversations.visibleById(viewer, params.id)
    if (!c) {
      // Someone was faster and the chat left the caller's sight: still the lost race, not 404.
      const lost = yield* Conversations.visibleIfUnassigned(viewer, params.id)
      if (lost?.assignee_id != null && lost.picked_up_at !== null) {
        return yield* Inbox.pickupLost(new AlreadyPickedUp({ assigneeId: lost.assignee_id }))
      }
      return yield* Effect.fail(notFound())
    }
    const channel = yield* Outbound.channelOf(c)
    if (channel?.type !== 'livechat') {
      return yield* Effect.fail(new ApiError({ code: 'conflict', message: 'interactions.not_livechat' }))
    }
    yield* Outbound.pickUp({ ...ctx, conversation: c, channel })
    return reply(yield* Inbox.presentOrHidden(ctx, c.id, yield* currentTime))
  })

export const history = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const c = yield* Inbox.visibleOr404({ caller, workspace }, params.id)
    const channel = yield* Outbound.channelOf(c)
    if (channel?.type !== 'msgapp') {
      return yield* Effect.fail(new ApiError({ code: 'conflict', message: 'interactions.history_msgapp' }))
    }
    yield* Effect.flatMap(ChannelActor, (a) =>
      a.ask(channel.id, { _tag: 'Signal', conversationId: c.id, signal: { kind: 'history' } }),
    )
    return reply({ id: c.id, requested: true })
  })
