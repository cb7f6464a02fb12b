import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import * as Assignees from '../../store/assignees'
import * as Contacts from '../../store/contacts'
import * as Conversations from '../../store/conversations'
import * as CustomFields from '../../store/customFields'
import * as Files from '../../store/files'
import * as Tickets from '../../store/tickets'
import type { Caller } from '../admin/caller'
import { WorkspaceActor } from '../admin/WorkspaceActor'
import { createdReply, reply } from '../answer'
import { checkValues } from '../customValues'
import { forbidden, invalid, notFound, ProblemSet } from '../errors'
import {
  BigId,
  BigIdFromString,
  Id,
  IdFromString,
  LocalDate,
  Text,
  tooLargeFile,
  type UploadedFile,
} from '../fields'
import { ConversationActor } from '../inbox/ConversationActor'
import * as Inbox from '../inbox/conversations'
import { IdLike } from '../inbox/messages'
import * as Notifications from '../notifications'
import { pageFields, pageMeta, pageOf } from '../pagination'
import { actorOf, contextOf, notActive } from './common'
import {
  type Can,
  presentDetail,
  presentEvent,
  presentItem,
  presentMessage,
  type SourcePreview,
} from './presenters'
import { isActive, MAX_FILES, mentionedIn, type Patch, PRIORITIES, STATUSES } from './rules'
import { TicketActor, ticketsChanged } from './TicketActor'
import { type Ctx, viewerFor, visibleOr404 } from './visibility'

/**
 * Spec 2 §4.3, the tickets themselves (the domain of http/routes/tickets.ts): list (filters,
 * counts per status, Back Office teams), candidates, create (quota, human number), detail,
 * changes, assignees and participants, the discussion with files and mentions, feedback and
 * conclusions into the source conversation, and private attachments. Every route first finds the
 * ticket through the one visibility rule (store/tickets `visibleWhere`); writes go through the
 * TicketActor; what the caller may not see is 404.
 */

const CustomValue = Schema.Union(
  Schema.String.pipe(Schema.maxLength(2000)),
  Schema.Number,
  Schema.Boolean,
  Schema.Null,
)
const Custom = Schema.Record({ key: Schema.String.pipe(Schema.maxLength(100)), value: CustomValue })
const Description = Schema.String.pipe(Schema.maxLength(20_000))
const Priority = Schema.Literal(...PRIORITIES)
const Status = Schema.Literal(...STATUSES)

export const ListQuery = Schema.Struct({
  ...pageFields,
  status: Schema.optional(Schema.Literal('active', ...STATUSES)),
  priority: Schema.optional(Priority),
  assignee: Schema.optional(Schema.Union(Schema.Literal('me', 'none'), IdFromString)),
  team: Schema.optional(Schema.Union(Schema.Literal('mine'), IdFromString)),
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  contact_id: Schema.optional(BigIdFromString),
  interaction_id: Schema.optional(BigIdFromString),
  overdue: Schema.optional(Schema.Literal('1', 'true', '0', 'false')),
})

export const CreateBody = Schema.Struct({
  subject: Text(1, 255),
  team_id: Id,
  assignee_ids: Schema.optional(Schema.Array(Id).pipe(Schema.maxItems(20))),
  description: Schema.optional(Description),
  priority: Schema.optional(Priority),
  due_date: Schema.optional(Schema.NullOr(LocalDate)),
  interaction_id: Schema.optional(BigId),
  contact_id: Schema.optional(BigId),
  custom: Schema.optional(Custom),
})

export const PatchBody = Schema.Struct({
  status: Schema.optional(Status),
  priority: Schema.optional(Priority),
  due_date: Schema.optional(Schema.NullOr(LocalDate)),
  subject: Schema.optional(Text(1, 255)),
  description: Schema.optional(Description),
  team_id: Schema.optional(Id),
  custom: Schema.optional(Custom),
})

/** Ids as JSON numbers, or as text from a multipart form (`mention_ids[]`, or `1,2`). */
const MentionIds = Schema.Union(
  Schema.Array(IdLike).pipe(Schema.maxItems(20)),
  Schema.String.pipe(
    Schema.filter((s) => /^\s*(\d{1,10}(\s*,\s*\d{1,10})*)?\s*$/.test(s), { message: () => 'field.pattern' }),
  ),
)

export const PostBody = Schema.Struct({
  body: Schema.optional(Schema.String.pipe(Schema.maxLength(10_000))),
  mention_ids: Schema.optional(MentionIds),
})

export const ConclusionBody = Schema.Struct({
  conclusion: Text(1, 10_000),
  resolve: Schema.optional(Schema.Boolean),
})

export const MessagesQuery = Schema.Struct({
  after_message: Schema.optional(BigIdFromString),
  after_event: Schema.optional(BigIdFromString),
})

/** Spec 2 §8: a single attachment up to 16 MB. */
export const MAX_FILE_BYTES = 16 * 1024 * 1024

const can = (caller: Caller, t: Tickets.TicketRow): Can => {
  const manage = caller.permissions.has('tickets.manage')
  return {
    manage,
    resolve: manage && isActive(t.status),
    message: true,
    feedback: t.interaction_id !== null,
  }
}

/** The source conversation's preview; its details only for those who may open it. */
const sourceOf = (ctx: Ctx, t: Tickets.TicketRow) =>
  Effect.gen(function* () {
    if (t.interaction_id === null) return null
    const c = yield* Conversations.viewById(Inbox.viewerFor(ctx.caller, ctx.workspace), t.interaction_id)
    const preview: SourcePreview = c
      ? {
          id: c.id,
          can_open: true,
          subject: c.subject,
          preview: c.preview,
          status: c.status,
          channel:
            c.channel_id === null ? null : { id: c.channel_id, type: c.ch_type, name: c.ch_name ?? '' },
          contact_name: c.ct_name,
        }
      : {
          id: t.interaction_id,
          can_open: false,
          subject: null,
          preview: null,
          status: null,
          channel: null,
          contact_name: null,
        }
    return preview
  })

const viewOf = (t: Tickets.TicketRow) =>
  Effect.gen(function* () {
    const team = yield* Assignees.teamById(t.workspace_id, t.team_id)
    const contact = t.contact_id === null ? null : yield* Contacts.byId(t.workspace_id, t.contact_id)
    return {
      ...t,
      team_name: team?.name ?? '',
      contact_name: contact?.name ?? null,
    } satisfies Tickets.TicketView
  })

/** The detail the caller sees, or `{id, visible: false}` when a change took it out of their sight. */
export const presentOrHidden = (ctx: Ctx, id: number) =>
  Effect.gen(function* () {
    const t = yield* Tickets.visibleById(viewerFor(ctx.caller, ctx.workspace), id)
    if (!t) return { id, visible: false as const }
    const now = yield* currentTime
    const [view, ps, defs, source] = yield* Effect.all(
      [
        viewOf(t),
        Tickets.participants([t.id]),
        CustomFields.list(ctx.workspace.id, ['ticket']),
        sourceOf(ctx, t),
      ],
      { concurrency: 'unbounded' },
    )
    return presentDetail(view, ps, defs, contextOf(ctx.workspace, now), {
      can: can(ctx.caller, t),
      interaction: source,
    })
  })

// ---------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------

export const list = (ctx: Ctx, query: typeof ListQuery.Type) =>
  Effect.gen(function* () {
    const viewer = viewerFor(ctx.caller, ctx.workspace)
    const now = yield* currentTime
    const c = contextOf(ctx.workspace, now)
    const filter: Tickets.ListFilter = {
      ...(query.status !== undefined ? { status: query.status } : {}),
      ...(query.priority !== undefined ? { priority: query.priority } : {}),
      ...(query.assignee !== undefined ? { assignee: query.assignee } : {}),
      ...(query.team !== undefined ? { team: query.team } : {}),
      ...(query.q?.trim() ? { q: query.q.trim() } : {}),
      ...(query.contact_id !== undefined ? { contactId: query.contact_id } : {}),
      ...(query.interaction_id !== undefined ? { interactionId: query.interaction_id } : {}),
      ...(query.overdue === '1' || query.overdue === 'true' ? { overdueBefore: c.today } : {}),
    }
    const page = pageOf(query)
    const [rows, counts, teams, defs] = yield* Effect.all(
      [
        Tickets.list(viewer, filter, page),
        Tickets.counts(viewer, filter),
        Tickets.backofficeTeams(ctx.workspace.id),
        CustomFields.list(ctx.workspace.id, ['ticket']),
      ],
      { concurrency: 'unbounded' },
    )
    const ps = yield* Tickets.participants(rows.map((t) => t.id))
    const { all, ...perStatus } = counts
    const total = filter.status === undefined ? all : counts[filter.status]
    return reply(
      rows.map((t) =>
        presentItem(
          t,
          ps.filter((p) => p.ticket_id === t.id),
          defs,
          c,
        ),
      ),
      {
        ...pageMeta(page, total),
        counts: perStatus,
        teams: teams.map((t) => ({
          id: t.id,
          name: t.name,
          mine: t.member_ids.includes(ctx.caller.user.id),
        })),
      },
    )
  })

export const candidates = (ctx: Ctx) =>
  Effect.gen(function* () {
    const [people, teams] = yield* Effect.all([
      Tickets.candidates(ctx.workspace.id),
      Tickets.backofficeTeams(ctx.workspace.id),
    ])
    return reply(
      people.map((p) => ({
        id: p.id,
        name: p.name,
        email: p.email,
        avatar_url: p.avatar_url,
        is_admin: p.is_admin,
        can_view: p.can_view,
        team_ids: p.team_ids,
      })),
      { teams: teams.map((t) => ({ id: t.id, name: t.name, member_ids: t.member_ids })) },
    )
  })

export const detail = (ctx: Ctx, params: { readonly id: number }) =>
  Effect.gen(function* () {
    yield* visibleOr404(ctx, params.id)
    const d = yield* presentOrHidden(ctx, params.id)
    if ('visible' in d) return yield* Effect.fail(notFound())
    return reply(d)
  })

export const messages = (ctx: Ctx, params: { readonly id: number }, query: typeof MessagesQuery.Type) =>
  Effect.gen(function* () {
    const t = yield* visibleOr404(ctx, params.id)
    const [rows, log] = yield* Effect.all([
      Tickets.messages(t.id, query.after_message),
      Tickets.events([t.id], query.after_event),
    ])
    return reply(rows.map(presentMessage), {
      events: log.map(presentEvent),
      last_message_id: rows.at(-1)?.id ?? query.after_message ?? null,
      last_event_id: log.at(-1)?.id ?? query.after_event ?? null,
      limit: Tickets.MESSAGES_LIMIT,
    })
  })

/** An attachment of a discussion message the caller may see (through its ticket). */
export const file = (ctx: Ctx, params: { readonly id: number; readonly index: number }) =>
  Effect.gen(function* () {
    const m = yield* Tickets.messageById(params.id)
    if (!m || m.workspace_id !== ctx.workspace.id) return yield* Effect.fail(notFound())
    yield* visibleOr404(ctx, m.ticket_id)
    const fileId = yield* Tickets.fileOf(m.id, params.index)
    const f = fileId === null ? null : yield* Files.byId(ctx.workspace.id, fileId)
    return f ?? (yield* Effect.fail(notFound()))
  })

// ---------------------------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------------------------

const backofficeTeam = (ctx: Ctx, teamId: number) =>
  Effect.map(Assignees.teamById(ctx.workspace.id, teamId), (t) => (t?.type === 'backoffice' ? t : null))

/**
 * A ticket's team member who may open tickets, or an admin: an assignee without `tickets.view`
 * would be told the subject of a ticket they cannot open, and hide it from the rest of the team.
 */
const assignable = (people: readonly Tickets.Candidate[], teamId: number, ids: readonly number[]) =>
  ids.every((id) =>
    people.some((p) => p.id === id && (p.is_admin || (p.can_view && p.team_ids.includes(teamId)))),
  )

const notifyEach = (
  ctx: Ctx,
  userIds: readonly number[],
  except: number | null,
  n: { readonly kind: string; readonly title: string; readonly body: string; readonly ticketId: number },
) =>
  Effect.forEach(
    [...new Set(userIds)].filter((u) => u !== except),
    (userId) =>
      Notifications.notify({
        workspaceId: ctx.workspace.id,
        userId,
        kind: n.kind,
        title: n.title,
        body: n.body,
        link: `/tickets/${n.ticketId}`,
        data: { ticket_id: n.ticketId },
      }),
    { discard: true },
  )

export const create = (ctx: Ctx, body: typeof CreateBody.Type) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const problems = new ProblemSet()
    const team = yield* backofficeTeam(ctx, body.team_id)
    if (!team) problems.add('team_id', 'tickets.backoffice_team')
    const assigneeIds = [...new Set(body.assignee_ids ?? [])]
    if (team && assigneeIds.length > 0) {
      const people = yield* Tickets.candidates(workspace.id)
      if (!assignable(people, team.id, assigneeIds)) problems.add('assignee_ids', 'tickets.assignee_team')
    }
    let interactionId: number | null = null
    let contactId: number | null = null
    if (body.interaction_id !== undefined) {
      const c = yield* Conversations.visibleById(Inbox.viewerFor(caller, workspace), body.interaction_id)
      if (!c) problems.add('interaction_id', 'field.unknown')
      else {
        interactionId = c.id
        contactId = c.contact_id
      }
    }
    if (body.contact_id !== undefined) {
      const contact = yield* Contacts.byId(workspace.id, body.contact_id)
      if (!contact) problems.add('contact_id', 'field.unknown')
      else contactId = contact.id
    }
    const custom =
      body.custom === undefined
        ? { set: {}, clear: [] }
        : checkValues(yield* CustomFields.list(workspace.id, ['ticket']), body.custom, problems)
    if (!problems.empty) return yield* Effect.fail(invalid(problems.fields))
    // Everything is checked: only now is a ticket of the month used (a refused create uses none).
    const now = yield* currentTime
    const quota = yield* Effect.flatMap(WorkspaceActor, (a) =>
      a.ask(workspace.id, { _tag: 'Consume', counter: 'tickets_per_month', now }),
    )
    const creator = yield* actorOf(caller)
    const row = yield* Tickets.create({
      workspaceId: workspace.id,
      subject: body.subject.trim(),
      description: body.description?.trim() ?? '',
      priority: body.priority ?? 'normal',
      dueDate: body.due_date ?? null,
      teamId: team!.id,
      creator,
      interactionId,
      contactId,
      custom: custom.set,
      assigneeIds,
      at: now,
    })
    yield* ticketsChanged(workspace.id, row.id, 'created')
    yield* notifyEach(ctx, assigneeIds, creator.user_id, {
      kind: 'ticket.assigned',
      title: `Ticket #${row.number} assigned to you`,
      body: row.subject,
      ticketId: row.id,
    })
    return createdReply(yield* presentOrHidden(ctx, row.id), {
      quota: { used: quota.used, limit: quota.limit },
    })
  })

export const update = (ctx: Ctx, params: { readonly id: number }, body: typeof PatchBody.Type) =>
  Effect.gen(function* () {
    const t = yield* visibleOr404(ctx, params.id)
    const problems = new ProblemSet()
    if (body.team_id !== undefined && !(yield* backofficeTeam(ctx, body.team_id)))
      problems.add('team_id', 'tickets.backoffice_team')
    const custom =
      body.custom === undefined
        ? undefined
        : checkValues(yield* CustomFields.list(ctx.workspace.id, ['ticket']), body.custom, problems)
    if (!problems.empty) return yield* Effect.fail(invalid(problems.fields))
    const patch: Patch = {
      ...(body.status !== undefined ? { status: body.status } : {}),
      ...(body.priority !== undefined ? { priority: body.priority } : {}),
      ...(body.due_date !== undefined ? { due_date: body.due_date } : {}),
      ...(body.subject !== undefined ? { subject: body.subject.trim() } : {}),
      ...(body.description !== undefined ? { description: body.description.trim() } : {}),
      ...(body.team_id !== undefined ? { team_id: body.team_id } : {}),
      ...(custom ? { customSet: custom.set, customClear: custom.clear } : {}),
    }
    const by = yield* actorOf(ctx.caller)
    yield* Effect.flatMap(TicketActor, (a) => a.ask(t.id, { _tag: 'Update', patch, by }))
    return reply(yield* presentOrHidden(ctx, t.id))
  })

export const assign = (ctx: Ctx, params: { readonly id: number }, body: { readonly user_id: number }) =>
  Effect.gen(function* () {
    const t = yield* visibleOr404(ctx, params.id)
    const people = yield* Tickets.candidates(ctx.workspace.id)
    const who = people.find((p) => p.id === body.user_id)
    if (!who || !assignable(people, t.team_id, [who.id]))
      return yield* Effect.fail(invalid({ user_id: { key: 'tickets.assignee_team' } }))
    const by = yield* actorOf(ctx.caller)
    const r = yield* Effect.flatMap(TicketActor, (a) =>
      a.ask(t.id, { _tag: 'Assign', userId: who.id, name: who.name, teamId: t.team_id, by }),
    )
    if (r.events.length > 0)
      yield* notifyEach(ctx, [who.id], by.user_id, {
        kind: 'ticket.assigned',
        title: `Ticket #${t.number} assigned to you`,
        body: t.subject,
        ticketId: t.id,
      })
    return reply(yield* presentOrHidden(ctx, t.id))
  })

/**
 * Removes a participant: any of them with `tickets.manage`; without it (the route lets
 * `tickets.view` through) only yourself, and only as a follower (creator or mentioned), never an
 * assignee's place (spec 2 §4.3 "followers may unfollow themselves").
 */
export const removeParticipant = (ctx: Ctx, params: { readonly id: number; readonly user: number }) =>
  Effect.gen(function* () {
    const manages = ctx.caller.permissions.has('tickets.manage')
    const unfollowOnly = () => Effect.fail(forbidden('tickets.unfollow_only'))
    if (!manages && params.user !== ctx.caller.user.id) return yield* unfollowOnly()
    const t = yield* visibleOr404(ctx, params.id)
    const ps = yield* Tickets.participants([t.id])
    const p = ps.find((x) => x.user_id === params.user)
    if (!p) return yield* Effect.fail(notFound())
    if (!manages && p.role === 'assignee') return yield* unfollowOnly()
    const by = yield* actorOf(ctx.caller)
    yield* Effect.flatMap(TicketActor, (a) =>
      a.ask(t.id, { _tag: 'RemoveParticipant', userId: p.user_id, name: p.name, by }),
    )
    return reply(yield* presentOrHidden(ctx, t.id))
  })

const mentionList = (v: (typeof PostBody.Type)['mention_ids']): number[] =>
  v === undefined
    ? []
    : typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
          .map(Number)
      : v.map(Number)

export const post = (
  ctx: Ctx,
  params: { readonly id: number },
  body: typeof PostBody.Type,
  files: readonly UploadedFile[],
) =>
  Effect.gen(function* () {
    const t = yield* visibleOr404(ctx, params.id)
    const text = body.body?.trim() ?? ''
    const uploads = files.filter((f) => f.field === 'files' || f.field === 'file')
    if (text === '' && uploads.length === 0)
      return yield* Effect.fail(invalid({ body: { key: 'tickets.body_or_files' } }))
    if (uploads.length > MAX_FILES)
      return yield* Effect.fail(invalid({ files: { key: 'field.too_many_files', params: { n: MAX_FILES } } }))
    if (uploads.some((f) => f.bytes.byteLength > MAX_FILE_BYTES))
      return yield* Effect.fail(tooLargeFile('files', MAX_FILE_BYTES))
    const people = yield* Tickets.candidates(ctx.workspace.id)
    const named = mentionList(body.mention_ids)
    if (named.some((id) => !people.some((p) => p.id === id)))
      return yield* Effect.fail(invalid({ mention_ids: { key: 'tickets.member' } }))
    const mentionIds = [...new Set([...named, ...mentionedIn(text, people)])]
    const sender = yield* actorOf(ctx.caller)
    const saved: Files.FileRow[] = []
    for (const f of uploads)
      saved.push(
        yield* Files.save(
          ctx.workspace.id,
          { name: f.filename, mime: f.mime, bytes: f.bytes },
          sender.user_id,
        ).pipe(Effect.orDie),
      )
    const r = yield* Effect.flatMap(TicketActor, (a) =>
      a.ask(t.id, { _tag: 'Post', body: text, sender, mentionIds, fileIds: saved.map((f) => f.id) }),
    ).pipe(
      // Nothing was recorded: the stored bytes go too.
      Effect.tapError(() => Effect.forEach(saved, (f) => Effect.ignore(Files.remove(f)), { discard: true })),
    )
    // Only those who may open the ticket are told: the notice carries the message's text, which a
    // member without `tickets.view` may not read (the mention stays in the text, as in leads).
    const told = mentionIds.filter((id) => people.some((p) => p.id === id && p.can_view))
    yield* notifyEach(ctx, told, sender.user_id, {
      kind: 'ticket.mention',
      title: `${sender.name} mentioned you in ticket #${t.number}`,
      body: text.slice(0, 200),
      ticketId: t.id,
    })
    return createdReply(r.message ? presentMessage(r.message) : null)
  })

/** The internal note a ticket sends its conversation (feedback or conclusion). */
const noteInto = (
  conversationId: number,
  t: Tickets.TicketRow,
  sender: Tickets.Actor,
  body: string,
  source: 'ticket_feedback' | 'ticket_conclusion',
  messageId: number | null,
) =>
  Effect.flatMap(ConversationActor, (a) =>
    a.ask(conversationId, {
      _tag: 'Append',
      direction: 'out',
      type: 'note',
      body,
      sender: { ...sender },
      status: 'internal',
      payload: {
        source,
        ticket: { id: t.id, number: t.number, subject: t.subject },
        ...(messageId !== null ? { ticket_message_id: messageId } : {}),
      },
    }),
  ).pipe(Effect.catchTag('ConversationNotFound', () => Effect.succeed(null)))

export const feedback = (ctx: Ctx, params: { readonly id: number; readonly message: number }) =>
  Effect.gen(function* () {
    const t = yield* visibleOr404(ctx, params.id)
    const m = yield* Tickets.messageOf(t.id, params.message)
    if (!m) return yield* Effect.fail(notFound())
    const conversation = t.interaction_id === null ? null : yield* Conversations.byId(t.interaction_id)
    if (!conversation) return yield* Effect.fail(invalid({ ticket: { key: 'tickets.no_conversation' } }))
    const by = yield* actorOf(ctx.caller)
    const actor = yield* TicketActor
    // Claimed first (once per message, serialised by the actor), then noted, then recorded.
    yield* actor.ask(t.id, { _tag: 'ClaimFeedback', messageId: m.id })
    const note = yield* noteInto(conversation.id, t, by, m.body, 'ticket_feedback', m.id).pipe(
      Effect.tapErrorCause(() => actor.ask(t.id, { _tag: 'ReleaseFeedback', messageId: m.id })),
    )
    if (!note) {
      yield* actor.ask(t.id, { _tag: 'ReleaseFeedback', messageId: m.id })
      return yield* Effect.fail(invalid({ ticket: { key: 'tickets.no_conversation' } }))
    }
    const r = yield* actor.ask(t.id, { _tag: 'Feedback', messageId: m.id, noteId: note.id, by })
    return reply(r.message ? presentMessage(r.message) : null, {
      note_id: note.id,
      interaction_id: conversation.id,
    })
  })

export const conclusion = (ctx: Ctx, params: { readonly id: number }, body: typeof ConclusionBody.Type) =>
  Effect.gen(function* () {
    const t = yield* visibleOr404(ctx, params.id)
    const resolve = body.resolve === true
    if (resolve && !ctx.caller.permissions.has('tickets.manage'))
      return yield* Effect.fail(forbidden('tickets.resolve_needs_manage'))
    if (resolve && !isActive(t.status))
      return yield* Effect.fail(
        invalid({ resolve: { key: 'tickets.not_active', params: { status: t.status } } }),
      )
    const by = yield* actorOf(ctx.caller)
    const text = body.conclusion.trim()
    const conversation = t.interaction_id === null ? null : yield* Conversations.byId(t.interaction_id)
    const note = conversation
      ? yield* noteInto(conversation.id, t, by, text, 'ticket_conclusion', null)
      : null
    const r = yield* Effect.flatMap(TicketActor, (a) =>
      a.ask(t.id, { _tag: 'Conclude', body: text, resolve, noteId: note?.id ?? null, by }),
    ).pipe(Effect.catchTag('TicketNotActive', notActive('resolve')))
    return createdReply(r.message ? presentMessage(r.message) : null, {
      status: r.row.status,
      note_id: note?.id ?? null,
      interaction_id: conversation?.id ?? null,
    })
  })
