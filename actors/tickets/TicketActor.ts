import { SqlClient } from '@effect/sql'
import { Data, Effect } from 'effect'
import * as Actor from '../../engine/actor/Actor'
import { currentTime } from '../../engine/clock'
import { recheckTopic } from '../../engine/events'
import { recordTicketFirstResponse, recordTicketResolution } from '../../store/reportFacts'
import * as Tickets from '../../store/tickets'
import { apiAnswer, conflict, invalid, notFound } from '../errors'
import { publish, topics } from '../events'
import { presentChange, presentEvent, presentMessage } from './presenters'
import { decidePatch, isActive, nextUpdateRequestAt, type Patch, type Status } from './rules'

/**
 * TicketActor: the single writer of one ticket (spec 2 §4.3). Its discussion and change log get
 * gap-free orders (the sequence bumped in the statement that inserts), its fields, participants
 * and status change one command at a time, so two agents changing a ticket at once never lose a
 * change; the update-request window is checked here. Each command runs in one transaction on the
 * locked row (the database fences a brief double owner in cluster mode); its events go out after
 * commit: `ticket.message`, `ticket.message.updated`, `ticket.event`, `ticket.updated` on
 * `ticket:{id}` and `tickets.changed {ticket_id, reason}` on `ws:{workspace}`. Whoever may no
 * longer see the ticket after an assignment or team change is unsubscribed on every node.
 */
export class TicketNotFound extends Data.TaggedError('TicketNotFound')<{ readonly id: number }> {
  [apiAnswer]() {
    return notFound()
  }
}
export class TicketMessageNotFound extends Data.TaggedError('TicketMessageNotFound')<{
  readonly id: number
}> {
  [apiAnswer]() {
    return notFound()
  }
}
/** A status move the state table (rules.ts `TRANSITIONS`) does not allow. */
export class BadTransition extends Data.TaggedError('BadTransition')<{
  readonly from: Status
  readonly to: Status
}> {
  [apiAnswer]() {
    return invalid({ status: { key: 'tickets.transition', params: { from: this.from, to: this.to } } })
  }
}
/**
 * Update requests, conversation posts and resolving need an active ticket. No `[apiAnswer]`: the
 * 422 names the request's field, which only the call site knows (common.ts `notActive`).
 */
export class TicketNotActive extends Data.TaggedError('TicketNotActive')<{ readonly status: Status }> {}
/**
 * An update request within 15 minutes of the last one. No `[apiAnswer]`: its `Retry-After` is
 * counted on the caller's clock (common.ts `tooSoon`).
 */
export class UpdateTooSoon extends Data.TaggedError('UpdateTooSoon')<{ readonly retryAtMs: number }> {}
export class ParticipantNotFound extends Data.TaggedError('ParticipantNotFound')<{
  readonly userId: number
}> {
  [apiAnswer]() {
    return notFound()
  }
}
/** An assignee checked against the ticket's team, which another request changed meanwhile. */
export class AssigneeTeamChanged extends Data.TaggedError('AssigneeTeamChanged')<{
  readonly userId: number
}> {
  [apiAnswer]() {
    return invalid({ user_id: { key: 'tickets.assignee_team' } })
  }
}
export class FeedbackAlreadySent extends Data.TaggedError('FeedbackAlreadySent')<{ readonly id: number }> {
  [apiAnswer]() {
    return conflict('tickets.feedback_sent')
  }
}

/** A move out of the active statuses into `resolved` or `closed`: a resolution in the reports. */
const finishes = (from: Status, to: Status) => isActive(from) && !isActive(to)

export type ChangeReason =
  | 'created'
  | 'updated'
  | 'assigned'
  | 'participants'
  | 'message'
  | 'feedback'
  | 'conclusion'
  | 'update_request'

export const ticketsChanged = (workspaceId: number, ticketId: number, reason: ChangeReason) =>
  publish(topics.workspace(workspaceId), 'tickets.changed', { ticket_id: ticketId, reason })

export interface TicketState {
  readonly workspaceId: number | null
}

/** The ticket, locked for this command's transaction. */
const locked = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<Tickets.TicketRow>`SELECT t.id, t.workspace_id, t.number, t.subject, t.description, t.status, t.priority,
        t.due_date::text AS due_date, t.team_id, t.created_by, t.creator, t.interaction_id, t.contact_id, t.custom,
        t.last_message_seq, t.last_event_seq, t.last_message_at, t.update_requested_at, t.update_requested_by,
        t.last_update_request_at, t.resolved_at, t.closed_at, t.created_at, t.updated_at
      FROM tickets t WHERE t.id = ${id} FOR UPDATE`.pipe(
      Effect.flatMap((r) => (r[0] ? Effect.succeed(r[0]) : Effect.fail(new TicketNotFound({ id })))),
    ),
  )

const inTransaction = <A, E, R>(e: Effect.Effect<A, E, R>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(e))

/** What a command changed, told to subscribers after commit. */
interface Outcome {
  readonly row: Tickets.TicketRow
  readonly events: readonly Tickets.EventRow[]
  readonly message?: { readonly id: number; readonly event: 'ticket.message' | 'ticket.message.updated' }
  readonly reason: ChangeReason
  /** Participants or team changed: re-authorise `ticket:` subscribers. */
  readonly recheck?: boolean
}

const publishOutcome = (o: Outcome) =>
  Effect.gen(function* () {
    const topic = topics.ticket(o.row.id)
    let message: Tickets.MessageView | null = null
    if (o.message) {
      message = yield* Tickets.messageView(o.message.id)
      if (message) yield* publish(topic, o.message.event, presentMessage(message))
    }
    for (const e of o.events) yield* publish(topic, 'ticket.event', presentEvent(e))
    const ps = yield* Tickets.participants([o.row.id])
    yield* publish(
      topic,
      'ticket.updated',
      presentChange(
        o.row,
        ps.filter((p) => p.role === 'assignee').map((p) => p.user_id),
      ),
    )
    yield* ticketsChanged(o.row.workspace_id, o.row.id, o.reason)
    if (o.recheck) yield* recheckTopic(topic)
    return message
  })

/** Runs a command's writes in one transaction, re-reads the ticket, then publishes. */
const run = <E, R>(
  id: number,
  write: (row: Tickets.TicketRow, at: Date) => Effect.Effect<Omit<Outcome, 'row'>, E, R>,
) =>
  Effect.gen(function* () {
    const at = yield* currentTime
    const outcome = yield* inTransaction(
      Effect.gen(function* () {
        const row = yield* locked(id)
        const o = yield* write(row, at)
        const after = (yield* Tickets.byId(id))!
        return { ...o, row: after } satisfies Outcome
      }),
    )
    const message = yield* publishOutcome(outcome)
    return { row: outcome.row, events: outcome.events, message }
  })

/** A handler's answer: the command's outcome, the (unchanged) actor state. */
const command = <E, R>(
  state: TicketState,
  id: number,
  write: (row: Tickets.TicketRow, at: Date) => Effect.Effect<Omit<Outcome, 'row'>, E, R>,
) => Effect.map(run(id, write), (r) => [r, state] as const)

export interface NewPost {
  readonly body: string
  readonly sender: Tickets.Actor
  readonly mentionIds: readonly number[]
  readonly fileIds: readonly number[]
}

export const definition = Actor.define({
  name: 'ticket',
  load: (id: number) =>
    Effect.map(Tickets.byId(id), (t): TicketState => ({ workspaceId: t?.workspace_id ?? null })),
  idleMs: 5 * 60_000,
  handlers: {
    /** A discussion message; the people it mentions become participants. */
    Post: (state: TicketState, m: NewPost, ctx) =>
      command(state, ctx.id, (_row, at) =>
        Effect.gen(function* () {
          const messageId = yield* Tickets.appendMessage(ctx.id, {
            kind: 'comment',
            body: m.body,
            sender: m.sender,
            mentionIds: m.mentionIds,
            fileIds: m.fileIds,
            at,
          })
          yield* recordTicketFirstResponse({ ticketId: ctx.id, userId: m.sender.user_id, at })
          const events: Tickets.EventRow[] = []
          for (const u of m.mentionIds) {
            const before = yield* Tickets.setParticipant(ctx.id, u, 'mentioned', at)
            if (before === null)
              events.push(
                ...(yield* Tickets.appendEvents(
                  ctx.id,
                  [{ kind: 'mentioned', field: 'participants', old: null, new: { user_id: u } }],
                  m.sender,
                  at,
                )),
              )
          }
          return {
            events,
            message: { id: messageId, event: 'ticket.message' as const },
            reason: 'message' as const,
          }
        }),
      ),
    /**
     * From the conversation side: a message into the discussion and/or an update request. Only
     * on active tickets; one request per 15 minutes.
     */
    FromConversation: (
      state: TicketState,
      m: { readonly text: string | null; readonly requestUpdate: boolean; readonly sender: Tickets.Actor },
      ctx,
    ) =>
      command(state, ctx.id, (row, at) =>
        Effect.gen(function* () {
          if (!isActive(row.status)) return yield* Effect.fail(new TicketNotActive({ status: row.status }))
          const events: Tickets.EventRow[] = []
          if (m.requestUpdate) {
            const retryAt = nextUpdateRequestAt(row.last_update_request_at, at.getTime())
            if (retryAt !== null) return yield* Effect.fail(new UpdateTooSoon({ retryAtMs: retryAt }))
            yield* Tickets.requestUpdate(ctx.id, m.sender, at)
            events.push(
              ...(yield* Tickets.appendEvents(
                ctx.id,
                [
                  {
                    kind: 'update_request',
                    field: 'update_request',
                    old: null,
                    new: { requested_at: at.toISOString() },
                  },
                ],
                m.sender,
                at,
              )),
            )
          }
          const messageId = yield* Tickets.appendMessage(ctx.id, {
            kind: m.requestUpdate ? 'update_request' : 'conversation',
            body: m.text ?? '',
            sender: m.sender,
            mentionIds: [],
            fileIds: [],
            at,
          })
          return {
            events,
            message: { id: messageId, event: 'ticket.message' as const },
            reason: m.requestUpdate ? ('update_request' as const) : ('message' as const),
          }
        }),
      ),
    /** Field, status, team and custom changes of `PATCH /tickets/{id}`, each logged. */
    Update: (state: TicketState, m: { readonly patch: Patch; readonly by: Tickets.Actor }, ctx) =>
      command(state, ctx.id, (row, at) =>
        Effect.gen(function* () {
          const d = decidePatch(row, m.patch)
          if (d._tag === 'BadTransition')
            return yield* Effect.fail(new BadTransition({ from: d.from, to: d.to }))
          const released =
            m.patch.team_id !== undefined && m.patch.team_id !== row.team_id
              ? yield* Tickets.assigneesOutside(ctx.id, row.workspace_id, m.patch.team_id)
              : []
          const logged = [
            ...d.changes.map((c) => ({
              kind: c.field === 'status' ? 'status' : 'field',
              field: c.field,
              old: c.old,
              new: c.new,
            })),
            ...released.map((r) => ({
              kind: 'unassigned',
              field: 'assignees',
              old: { user_id: r.user_id, name: r.name },
              new: null,
            })),
          ]
          if (logged.length === 0) return { events: [], reason: 'updated' as const }
          for (const r of released) yield* Tickets.removeParticipant(ctx.id, r.user_id)
          const customChanged = d.changes.some((c) => c.field.startsWith('custom.'))
          yield* Tickets.updateFields(
            ctx.id,
            {
              ...Object.fromEntries(
                d.changes.filter((c) => !c.field.startsWith('custom.')).map((c) => [c.field, c.new]),
              ),
              ...(customChanged ? { custom: d.next.custom } : {}),
            },
            at,
          )
          const events = yield* Tickets.appendEvents(ctx.id, logged, m.by, at)
          if (finishes(row.status, d.next.status))
            yield* recordTicketResolution({ ticketId: ctx.id, userId: m.by.user_id, at })
          return {
            events,
            reason: 'updated' as const,
            recheck: released.length > 0 || d.changes.some((c) => c.field === 'team_id'),
          }
        }),
      ),
    /**
     * Adds an assignee (a mentioned person or the creator is promoted), checked by the caller
     * against `teamId`: refused if the ticket has moved to another team since.
     */
    Assign: (
      state: TicketState,
      m: {
        readonly userId: number
        readonly name: string
        readonly teamId: number
        readonly by: Tickets.Actor
      },
      ctx,
    ) =>
      command(state, ctx.id, (row, at) =>
        Effect.gen(function* () {
          if (row.team_id !== m.teamId)
            return yield* Effect.fail(new AssigneeTeamChanged({ userId: m.userId }))
          const before = yield* Tickets.setParticipant(ctx.id, m.userId, 'assignee', at)
          if (before === 'assignee') return { events: [], reason: 'assigned' as const }
          yield* Tickets.touch(ctx.id, at)
          const events = yield* Tickets.appendEvents(
            ctx.id,
            [{ kind: 'assigned', field: 'assignees', old: null, new: { user_id: m.userId, name: m.name } }],
            m.by,
            at,
          )
          // The first assignee takes the ticket out of the whole team's sight.
          return { events, reason: 'assigned' as const, recheck: true }
        }),
      ),
    /** Removes a participant; with no assignee left the whole team sees the ticket again. */
    RemoveParticipant: (
      state: TicketState,
      m: { readonly userId: number; readonly name: string; readonly by: Tickets.Actor },
      ctx,
    ) =>
      command(state, ctx.id, (_row, at) =>
        Effect.gen(function* () {
          const role = yield* Tickets.removeParticipant(ctx.id, m.userId)
          if (role === null) return yield* Effect.fail(new ParticipantNotFound({ userId: m.userId }))
          yield* Tickets.touch(ctx.id, at)
          const events = yield* Tickets.appendEvents(
            ctx.id,
            [
              {
                kind: role === 'assignee' ? 'unassigned' : 'participant_removed',
                field: role === 'assignee' ? 'assignees' : 'participants',
                old: { user_id: m.userId, name: m.name, role },
                new: null,
              },
            ],
            m.by,
            at,
          )
          return { events, reason: 'participants' as const, recheck: true }
        }),
      ),
    /**
     * Reserves a discussion message for feedback (once per message): the caller then notes it in
     * the conversation and reports with `Feedback`, or gives it back with `ReleaseFeedback`.
     */
    ClaimFeedback: (state: TicketState, m: { readonly messageId: number }, ctx) =>
      Effect.gen(function* () {
        const at = yield* currentTime
        const msg = yield* inTransaction(
          Effect.gen(function* () {
            yield* locked(ctx.id)
            const msg = yield* Tickets.messageOf(ctx.id, m.messageId)
            if (!msg) return yield* Effect.fail(new TicketMessageNotFound({ id: m.messageId }))
            if (msg.feedback_at !== null)
              return yield* Effect.fail(new FeedbackAlreadySent({ id: m.messageId }))
            yield* Tickets.claimFeedback(msg.id, at)
            return msg
          }),
        )
        return [msg, state] as const
      }),
    ReleaseFeedback: (state: TicketState, m: { readonly messageId: number }, ctx) =>
      Effect.map(Tickets.releaseFeedback(ctx.id, m.messageId), () => [null, state] as const),
    /** The claimed message was noted in the conversation: recorded, the update request cleared. */
    Feedback: (
      state: TicketState,
      m: { readonly messageId: number; readonly noteId: number; readonly by: Tickets.Actor },
      ctx,
    ) =>
      command(state, ctx.id, (_row, at) =>
        Effect.gen(function* () {
          const msg = yield* Tickets.messageOf(ctx.id, m.messageId)
          if (!msg) return yield* Effect.fail(new TicketMessageNotFound({ id: m.messageId }))
          if (msg.feedback_note_id !== null)
            return yield* Effect.fail(new FeedbackAlreadySent({ id: m.messageId }))
          yield* Tickets.markFeedback(msg.id, m.noteId, at)
          const cleared = yield* Tickets.clearUpdateRequest(ctx.id, at)
          if (!cleared) yield* Tickets.touch(ctx.id, at)
          const events = yield* Tickets.appendEvents(
            ctx.id,
            [
              { kind: 'feedback', field: null, old: null, new: { message_id: msg.id, note_id: m.noteId } },
              ...(cleared
                ? [{ kind: 'update_request_cleared', field: 'update_request', old: true, new: null }]
                : []),
            ],
            m.by,
            at,
          )
          return {
            events,
            message: { id: msg.id, event: 'ticket.message.updated' as const },
            reason: 'feedback' as const,
          }
        }),
      ),
    /**
     * A conclusion: a discussion message (sent to the conversation as a note by the caller when
     * the ticket has one), the pending request cleared, and with `resolve` the ticket resolved.
     */
    Conclude: (
      state: TicketState,
      m: {
        readonly body: string
        readonly resolve: boolean
        readonly noteId: number | null
        readonly by: Tickets.Actor
      },
      ctx,
    ) =>
      command(state, ctx.id, (row, at) =>
        Effect.gen(function* () {
          if (m.resolve && !isActive(row.status))
            return yield* Effect.fail(new TicketNotActive({ status: row.status }))
          const messageId = yield* Tickets.appendMessage(ctx.id, {
            kind: 'conclusion',
            body: m.body,
            sender: m.by,
            mentionIds: [],
            fileIds: [],
            at,
          })
          if (m.noteId !== null) yield* Tickets.markFeedback(messageId, m.noteId, at)
          const cleared = yield* Tickets.clearUpdateRequest(ctx.id, at)
          if (m.resolve) yield* Tickets.updateFields(ctx.id, { status: 'resolved' }, at)
          // A conclusion is a message of the ticket's side: it may be the first response too.
          yield* recordTicketFirstResponse({ ticketId: ctx.id, userId: m.by.user_id, at })
          if (m.resolve) yield* recordTicketResolution({ ticketId: ctx.id, userId: m.by.user_id, at })
          const events = yield* Tickets.appendEvents(
            ctx.id,
            [
              {
                kind: 'conclusion',
                field: null,
                old: null,
                new: { message_id: messageId, note_id: m.noteId },
              },
              ...(cleared
                ? [{ kind: 'update_request_cleared', field: 'update_request', old: true, new: null }]
                : []),
              ...(m.resolve ? [{ kind: 'status', field: 'status', old: row.status, new: 'resolved' }] : []),
            ],
            m.by,
            at,
          )
          return {
            events,
            message: { id: messageId, event: 'ticket.message' as const },
            reason: 'conclusion' as const,
          }
        }),
      ),
  },
})

export class TicketActor extends Actor.Tag('kotak/TicketActor')<TicketActor, typeof definition>() {}

export const layer = Actor.layer(TicketActor, definition)
