import { SqlClient, type SqlError } from '@effect/sql'
import type { Fragment } from '@effect/sql/Statement'
import { Context, Effect, Layer, type Types } from 'effect'
import { systemTime } from '../engine/clock'
import type { Fence } from '../engine/cluster/node'
import * as Memo from '../engine/memo'
import { pgArray } from './arrays'
import * as Assignees from './assignees'
import * as ShardFence from './fence'
import * as ReportFacts from './reportFacts'
import { tsQueryOf } from './textSearch'

export type ConversationStatus = 'open' | 'solved' | 'closed'
export type ReplyState = 'new' | 'waiting' | 'replied'

export interface ConversationRow {
  readonly id: number
  readonly workspace_id: number
  readonly channel_id: number | null
  readonly status: ConversationStatus
  readonly team_id: number | null
  readonly assignee_id: number | null
  readonly last_seq: number
  readonly last_message_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
  readonly kind: 'chat' | 'group'
  readonly contact_id: number | null
  readonly group_id: number | null
  readonly subject: string | null
  readonly category_id: number | null
  readonly custom: Readonly<Record<string, unknown>>
  readonly reply_state: ReplyState
  readonly waiting_since: Date | null
  readonly first_in_at: Date | null
  readonly first_response_at: Date | null
  /** The current episode: its first customer message, and its first reply (migration 0080). */
  readonly episode_at: Date | null
  readonly episode_replied_at: Date | null
  readonly last_in_at: Date | null
  readonly last_out_at: Date | null
  readonly unread_count: number
  readonly notes_count: number
  readonly preview: string
  readonly picked_up_at: Date | null
  readonly feedback_seen_at: Date | null
  readonly ai_summary: string | null
  /** Bumped by every update of the row (migration 0011): "did anything change since?". */
  readonly version: number
}

/**
 * The columns of a conversation its messages change, and what their writer needs besides to
 * announce them (events name the status, team, assignee, category, channel): the ConversationActor
 * keeps only these in memory (`hotRow`), not the whole row (contact, subject, custom values, the
 * AI summary stay in the database).
 */
export type HotRow = Pick<
  ConversationRow,
  | 'id'
  | 'workspace_id'
  | 'channel_id'
  | 'status'
  | 'team_id'
  | 'assignee_id'
  | 'category_id'
  | 'picked_up_at'
  | 'last_seq'
  | 'last_message_at'
  | 'updated_at'
  | 'reply_state'
  | 'waiting_since'
  | 'first_in_at'
  | 'first_response_at'
  | 'episode_at'
  | 'episode_replied_at'
  | 'last_in_at'
  | 'last_out_at'
  | 'unread_count'
  | 'notes_count'
  | 'preview'
  | 'version'
>

/** One `Date` for each distinct time: a row as read has one per column, though most are equal. */
const sharedTime = <D extends Date | null>(seen: Date[], d: D): D => {
  if (d === null) return d
  const t = d.getTime()
  for (const s of seen) if (s.getTime() === t) return s as D
  seen.push(d)
  return d
}

/**
 * A row's hot columns, as one object of one shape (its fields in the object itself), equal times
 * as one `Date` (about 100 bytes each; nothing mutates a row's dates).
 */
export const hotRow = (r: HotRow): HotRow => {
  const seen: Date[] = []
  return {
    id: r.id,
    workspace_id: r.workspace_id,
    channel_id: r.channel_id,
    status: r.status,
    team_id: r.team_id,
    assignee_id: r.assignee_id,
    category_id: r.category_id,
    picked_up_at: sharedTime(seen, r.picked_up_at),
    last_seq: r.last_seq,
    last_message_at: sharedTime(seen, r.last_message_at),
    updated_at: sharedTime(seen, r.updated_at),
    reply_state: r.reply_state,
    waiting_since: sharedTime(seen, r.waiting_since),
    first_in_at: sharedTime(seen, r.first_in_at),
    first_response_at: sharedTime(seen, r.first_response_at),
    episode_at: sharedTime(seen, r.episode_at),
    episode_replied_at: sharedTime(seen, r.episode_replied_at),
    last_in_at: sharedTime(seen, r.last_in_at),
    last_out_at: sharedTime(seen, r.last_out_at),
    unread_count: r.unread_count,
    notes_count: r.notes_count,
    preview: r.preview,
    version: r.version,
  }
}

export interface MessageRow {
  readonly id: number
  readonly workspace_id: number
  readonly conversation_id: number
  readonly seq: number
  readonly direction: 'in' | 'out'
  readonly type: string
  readonly body: string
  readonly sender: Readonly<Record<string, unknown>>
  readonly status: string
  readonly error: string | null
  readonly client_id: string | null
  readonly sent_at: Date | null
  readonly created_at: Date
  readonly file_id: number | null
  readonly reply_to_id: number | null
  readonly payload: Readonly<Record<string, unknown>>
  readonly reactions: ReadonlyArray<Readonly<Record<string, unknown>>>
  readonly external_id: string | null
  readonly edited_at: Date | null
  readonly deleted_at: Date | null
}

/**
 * Who is looking, for spec 2 §1's visibility rules. `seesAll` = Owner, admin role, `view_all` or
 * an API key; `channelIds` null = every channel.
 */
export interface Viewer {
  readonly workspaceId: number
  readonly userId: number
  readonly seesAll: boolean
  readonly canView: boolean
  readonly channelIds: readonly number[] | null
}

/**
 * The one visibility rule for conversations, as SQL over alias `c`, shared by list, detail, count
 * and real-time authorisation:
 * - without `interactions.view` (Owner, admins and keys hold it) no conversation, even with
 *   view-all: that flag widens what a permission shows, it does not grant one (as for leads);
 * - channel access always applies;
 * - those who see all data see every conversation;
 * - otherwise a conversation is visible when unassigned, when assigned to the viewer, or (no
 *   person assigned) when its Frontline team is one of theirs.
 */
export const visibleWhere = (sql: SqlClient.SqlClient, v: Viewer) => {
  if (!v.canView) return sql`false`
  const channel =
    v.channelIds === null ? sql`true` : sql`c.channel_id = ANY(${`{${v.channelIds.join(',')}}`}::int[])`
  if (v.seesAll) return sql`c.workspace_id = ${v.workspaceId} AND ${channel}`
  // The viewer's teams are read once per statement (an uncorrelated subquery, one InitPlan), not
  // probed per row: a list walks hundreds of rows of an index to fill a page.
  return sql`c.workspace_id = ${v.workspaceId} AND ${channel} AND (
    (c.assignee_id IS NULL AND c.team_id IS NULL)
    OR c.assignee_id = ${v.userId}
    OR (c.assignee_id IS NULL AND c.team_id = ANY(ARRAY(
      SELECT tm.team_id FROM team_members tm WHERE tm.user_id = ${v.userId}))))`
}

export const visibleById = (v: Viewer, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ConversationRow>`SELECT c.* FROM conversations c WHERE c.id = ${id} AND ${visibleWhere(sql, v)}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/**
 * A conversation the viewer would see if nobody had it (same rule, assignee left out): the
 * live-chat pickup race tells a loser who won instead of answering 404.
 */
export const visibleIfUnassigned = (v: Viewer, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ConversationRow>`
      SELECT x.* FROM conversations x
      CROSS JOIN LATERAL (SELECT x.workspace_id, x.channel_id, x.team_id, NULL::integer AS assignee_id) c
      WHERE x.id = ${id} AND ${visibleWhere(sql, v)}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

export const byId = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ConversationRow>`SELECT * FROM conversations WHERE id = ${id}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

export interface NewConversation {
  readonly contactId?: number | null
  readonly groupId?: number | null
  readonly kind?: 'chat' | 'group'
  readonly subject?: string | null
  readonly teamId?: number | null
  readonly assigneeId?: number | null
  readonly at?: Date
}

export const create = (workspaceId: number, channelId: number | null, extra: NewConversation = {}) =>
  Effect.flatMap(
    Effect.zip(SqlClient.SqlClient, extra.at ? Effect.succeed(extra.at) : systemTime),
    ([sql, at]) =>
      sql<ConversationRow>`
      INSERT INTO conversations (workspace_id, channel_id, contact_id, group_id, kind, subject, team_id, assignee_id,
                                 created_at, updated_at)
      VALUES (${workspaceId}, ${channelId}, ${extra.contactId ?? null}, ${extra.groupId ?? null}, ${extra.kind ?? 'chat'},
              ${extra.subject ?? null}, ${extra.teamId ?? null}, ${extra.assigneeId ?? null},
              ${at}, ${at})
      RETURNING *`.pipe(Effect.map((r) => r[0]!)),
  )

/**
 * The open chat with a contact on a channel, or a new one (spec 2 §4.1 `POST /interactions`).
 * The contact's row is locked meanwhile, so two agents starting the same chat at once get one
 * conversation.
 */
export const openChatWith = (workspaceId: number, channelId: number, contactId: number, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT id FROM contacts WHERE id = ${contactId} FOR UPDATE`
        const [open] = yield* sql<ConversationRow>`
          SELECT * FROM conversations
          WHERE workspace_id = ${workspaceId} AND channel_id = ${channelId} AND contact_id = ${contactId}
            AND kind = 'chat' AND status = 'open' AND subject IS NULL
          ORDER BY id DESC LIMIT 1`
        if (open) return { row: open, reused: true }
        const row = yield* create(workspaceId, channelId, { contactId, at })
        return { row, reused: false }
      }),
    ),
  )

export interface NewMessage {
  readonly direction: 'in' | 'out'
  readonly type: string
  readonly body: string
  readonly sender: Readonly<Record<string, unknown>>
  readonly status?: string
  readonly clientId?: string | undefined
  readonly fileId?: number | null
  readonly replyToId?: number | null
  readonly payload?: Readonly<Record<string, unknown>>
  readonly externalId?: string | null
  /** When it happened (the inbox's clock); now when absent. */
  readonly at?: Date
  /** When the sender says it was sent (an API channel's `sent_at`); `at` when absent. */
  readonly sentAt?: Date | undefined
}

const PREVIEW_CHARS = 200

/** The list's one-line preview of a message. */
export const previewOf = (m: { readonly type: string; readonly body: string }): string => {
  const text = m.body.replace(/\s+/g, ' ').trim()
  if (text !== '') return text.slice(0, PREVIEW_CHARS)
  return `[${m.type}]`
}

/**
 * What a message does to its conversation row (the next sequence, and): a note only counts; a
 * customer's message makes a replied conversation wait again (and reopens a solved or closed one:
 * the customer came back on a thread Kotak keeps, an API channel's or a live chat's), and starts
 * an episode when none runs (the first message, or a reopening: a new reply clock); an agent's
 * reply answers it. An automatic reply is the channel's, not an agent's: it answers nothing
 * (actors/metrics.ts has the definitions).
 */
export const applyMessage = <R extends HotRow>(r: R, m: NewMessage, at: Date): R => {
  // One copy of the row per message, then plain stores: a literal that spreads the row and then
  // names columns it already has redefines each of them on V8's slow runtime path, which showed
  // in profiles of the message write.
  const next: Types.Mutable<R> = { ...r }
  next.last_seq = r.last_seq + 1
  next.updated_at = at
  if (m.type === 'note') {
    next.notes_count = r.notes_count + 1
    return next
  }
  next.last_message_at = at
  next.preview = previewOf(m)
  if (m.direction === 'in') {
    const reopened = r.status === 'solved' || r.status === 'closed'
    const starts = reopened || r.episode_at === null
    next.last_in_at = at
    next.first_in_at = r.first_in_at ?? at
    next.unread_count = r.unread_count + 1
    next.waiting_since = reopened ? at : (r.waiting_since ?? at)
    next.episode_at = starts ? at : r.episode_at
    next.episode_replied_at = starts ? null : r.episode_replied_at
    next.reply_state = r.reply_state === 'replied' ? 'waiting' : r.reply_state
    next.status = reopened ? 'open' : r.status
    return next
  }
  next.last_out_at = at
  if (ReportFacts.isAutomatic(m)) return next
  next.unread_count = 0
  next.first_response_at = r.first_in_at !== null ? (r.first_response_at ?? at) : r.first_response_at
  next.episode_replied_at =
    r.episode_at !== null && r.waiting_since !== null ? (r.episode_replied_at ?? at) : r.episode_replied_at
  next.waiting_since = null
  next.reply_state = 'replied'
  return next
}

/** Messages appended to one conversation in one write, and the row they leave behind. */
export interface AppendWrite {
  readonly conversationId: number
  /** The sequence the writer saw last: the write applies only if the row still has it. */
  readonly prevSeq: number
  /** The row after the messages (`applyMessage` over each, in order). */
  readonly row: HotRow
  /** In cluster mode, the shard epoch the write needs (store/fence.ts; store/appendWriter.ts). */
  readonly fence?: Fence | undefined
  readonly messages: ReadonlyArray<{
    readonly seq: number
    readonly at: Date
    readonly m: NewMessage
    readonly fact: ReportFacts.MessageFact | null
  }>
}

/** What a write stored: the conversation's row and the messages, in sequence order. */
export interface Appended {
  readonly conversation: HotRow
  readonly messages: readonly MessageRow[]
}

/**
 * The stored row of a message this node just inserted: everything but its id is what the writer
 * sent (the defaults of the columns it leaves out are written here too), so the database only
 * has to answer the ids.
 */
const insertedRow = (
  workspaceId: number,
  conversationId: number,
  id: number,
  { seq, at, m }: AppendWrite['messages'][number],
): MessageRow => ({
  id,
  workspace_id: workspaceId,
  conversation_id: conversationId,
  seq,
  direction: m.direction,
  type: m.type,
  body: m.body,
  sender: m.sender,
  status: m.status ?? 'sent',
  error: null,
  client_id: m.clientId ?? null,
  sent_at: m.sentAt ?? at,
  created_at: at,
  file_id: m.fileId ?? null,
  reply_to_id: m.replyToId ?? null,
  payload: m.payload ?? {},
  reactions: [],
  external_id: m.externalId ?? null,
  edited_at: null,
  deleted_at: null,
})

/** A time as the write sends it: epoch milliseconds (JSON.stringify is several times slower with Dates). */
const ms = (d: Date | null) => (d === null ? null : d.getTime())

/**
 * Writes appends to many conversations as ONE statement (the group commit's unit; the SQL is the
 * function `kotak_append_messages`, migration 0100, planned once per session): each
 * conversation's per-message columns set to the values its writer computed, its messages
 * inserted, their report facts recorded. A conversation whose row changed since its writer read
 * it (its `last_seq`: another node appended meanwhile; its `version`: anything else, a category
 * moved, a contact merged) is left out entirely — no row, no message, no fact — and missing from
 * the answer; the caller then appends the slow way, which reads the row again. A duplicate client id or
 * sequence fails the whole statement (unique indexes), for the caller to split.
 */
export const writeAppends = (writes: readonly AppendWrite[]) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const convs = writes.map((w) => ({
      id: w.conversationId,
      prev_seq: w.prevSeq,
      version: w.row.version,
      last_seq: w.row.last_seq,
      updated_at: ms(w.row.updated_at),
      last_message_at: ms(w.row.last_message_at),
      preview: w.row.preview,
      last_in_at: ms(w.row.last_in_at),
      last_out_at: ms(w.row.last_out_at),
      first_in_at: ms(w.row.first_in_at),
      first_response_at: ms(w.row.first_response_at),
      unread_count: w.row.unread_count,
      notes_count: w.row.notes_count,
      waiting_since: ms(w.row.waiting_since),
      episode_at: ms(w.row.episode_at),
      episode_replied_at: ms(w.row.episode_replied_at),
      reply_state: w.row.reply_state,
      status: w.row.status,
    }))
    const msgs = writes.flatMap((w) =>
      w.messages.map(({ seq, at, m }) => ({
        c: w.conversationId,
        seq,
        direction: m.direction,
        type: m.type,
        body: m.body,
        sender: m.sender,
        status: m.status ?? 'sent',
        client_id: m.clientId ?? null,
        file_id: m.fileId ?? null,
        reply_to_id: m.replyToId ?? null,
        payload: m.payload ?? {},
        external_id: m.externalId ?? null,
        sent_at: ms(m.sentAt ?? at),
        created_at: ms(at),
      })),
    )
    const facts = writes.flatMap((w) =>
      w.messages.flatMap(({ fact }) =>
        fact
          ? [
              {
                c: w.conversationId,
                kind: fact.kind,
                at: ms(fact.at),
                user_id: fact.user_id,
                opened: fact.opened,
                first: fact.first,
                since: ms(fact.since),
              },
            ]
          : [],
      ),
    )
    // The function's rows come back as one JSON array of `[c, seq, id, version]`: one value to
    // parse instead of a row object per message, its fields parsed one by one by the driver.
    return sql<{ a: ReadonlyArray<readonly [number, number | null, number | null, number | null]> | null }>`
      SELECT json_agg(json_build_array(c, seq, id, version)) AS a FROM kotak_append_messages(
        ${JSON.stringify(convs)}::json, ${JSON.stringify(msgs)}::json, ${JSON.stringify(facts)}::json)`.pipe(
      Effect.map((rows) => {
        // One pass over the answer: message ids by conversation and sequence, versions by conversation.
        const ids = new Map<string, number>()
        const versions = new Map<number, number>()
        for (const [c, seq, id, version] of rows[0]?.a ?? []) {
          if (version === null) ids.set(`${c}:${seq}`, id!)
          else versions.set(c, version)
        }
        const done = new Map<number, Appended>()
        for (const w of writes) {
          const version = versions.get(w.conversationId)
          if (version === undefined) continue
          // The row was what the writer computed from (the version guard): it is now that row with
          // its new version.
          const conversation = { ...w.row, version }
          const messages = w.messages.map((each) =>
            insertedRow(
              conversation.workspace_id,
              conversation.id,
              ids.get(`${conversation.id}:${each.seq}`)!,
              each,
            ),
          )
          done.set(conversation.id, { conversation, messages })
        }
        return done
      }),
    )
  })

/**
 * Appends one message the careful way: under the conversation's row lock, from the row as stored
 * (the ConversationActor's fast path trusts its own copy of the row; this is its fallback, when
 * that copy may be stale or a batch failed). Sequences have no gaps and no duplicates whoever
 * writes; a message whose `clientId` was already stored is returned as it is. Also returns the
 * conversation as the message left it (null when the message was a duplicate).
 */
export const append = (conversationId: number, m: NewMessage, fence?: Fence) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        if (fence && !(yield* ShardFence.held([fence])).has(fence.shard))
          return yield* Effect.fail(new ShardFence.ShardLost({ shard: fence.shard }))
        const [row] =
          yield* sql<ConversationRow>`SELECT * FROM conversations WHERE id = ${conversationId} FOR UPDATE`
        if (!row) return null
        if (m.clientId !== undefined) {
          const [again] = yield* sql<MessageRow>`
            SELECT * FROM messages WHERE conversation_id = ${conversationId} AND client_id = ${m.clientId}`
          if (again) return { message: again, created: false as const, conversation: null }
        }
        const at = m.at ?? (yield* systemTime)
        const next = applyMessage(row, m, at)
        const written = yield* writeAppends([
          {
            conversationId,
            prevSeq: row.last_seq,
            row: next,
            messages: [{ seq: next.last_seq, at, m, fact: ReportFacts.ofMessage(row, m, at) }],
          },
        ])
        const done = written.get(conversationId)
        // Under the row lock nothing else can have moved the sequence.
        if (!done)
          return yield* Effect.dieMessage(`append to conversation ${conversationId} lost its row lock`)
        return { message: done.messages[0]!, created: true as const, conversation: done.conversation }
      }),
    ),
  )

/**
 * A change of the row that reports record (status, team, assignee): the UPDATE and its facts
 * (store/reportFacts `ofChange`) in one statement.
 */
const changeRow = (sql: SqlClient.SqlClient, update: Fragment, at: Date) =>
  sql<ConversationRow>`WITH conv AS (${update} RETURNING *)${ReportFacts.ofChange(sql, at)}
    SELECT * FROM conv`.pipe(Effect.map((r) => r[0] ?? null))

export const setStatus = (id: number, status: ConversationStatus, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    changeRow(
      sql,
      sql`UPDATE conversations SET ${ReportFacts.endsEpisode(sql, status)}, status = ${status}, updated_at = ${at}
        WHERE id = ${id}`,
      at,
    ),
  )

export const assign = (id: number, teamId: number | null, assigneeId: number | null, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    changeRow(
      sql,
      sql`UPDATE conversations SET team_id = ${teamId}, assignee_id = ${assigneeId}, updated_at = ${at}
        WHERE id = ${id}`,
      at,
    ),
  )

/** A change of `PATCH /interactions/{id}`; absent fields stay as they are. */
export interface ConversationPatch {
  readonly status?: ConversationStatus
  readonly teamId?: number | null
  readonly assigneeId?: number | null
  readonly categoryId?: number | null
  /** Custom values to set (merged) and keys to clear. */
  readonly customSet?: Readonly<Record<string, unknown>>
  readonly customClear?: readonly string[]
  /**
   * Applies only while the conversation is still held by this assignee (null: nobody): a change
   * allowed because of who holds it (taking a conversation nobody has, without
   * `interactions.assign`) does not apply after someone else took it meanwhile.
   */
  readonly ifAssignee?: number | null
}

export const update = (id: number, patch: ConversationPatch, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const sets: Fragment[] = [sql`updated_at = ${at}`]
    if (patch.status !== undefined) {
      sets.push(ReportFacts.endsEpisode(sql, patch.status), sql`status = ${patch.status}`)
    }
    if (patch.teamId !== undefined) sets.push(sql`team_id = ${patch.teamId}`)
    if (patch.assigneeId !== undefined) sets.push(sql`assignee_id = ${patch.assigneeId}`)
    if (patch.categoryId !== undefined) sets.push(sql`category_id = ${patch.categoryId}`)
    if (patch.customSet !== undefined || patch.customClear !== undefined) {
      sets.push(
        sql`custom = (custom || ${JSON.stringify(patch.customSet ?? {})}::jsonb) - ${pgArray(patch.customClear ?? [])}::text[]`,
      )
    }
    const held =
      patch.ifAssignee === undefined
        ? sql``
        : patch.ifAssignee === null
          ? sql`AND assignee_id IS NULL`
          : sql`AND assignee_id = ${patch.ifAssignee}`
    return changeRow(sql, sql`UPDATE conversations SET ${sql.csv(sets)} WHERE id = ${id} ${held}`, at)
  })

/**
 * The live-chat pickup race: the conversation goes to `userId` only if nobody has it yet. A
 * conditional UPDATE, so it holds even if two nodes briefly both own the conversation.
 */
export const pickUp = (id: number, userId: number, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    changeRow(
      sql,
      sql`UPDATE conversations SET assignee_id = ${userId}, picked_up_at = ${at}, updated_at = ${at}
        WHERE id = ${id} AND assignee_id IS NULL`,
      at,
    ),
  )

export const markRead = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ConversationRow>`UPDATE conversations SET unread_count = 0 WHERE id = ${id} RETURNING *`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** The AI summary of the conversation (spec 2 §2 `ai_summary`). */
export const setSummary = (id: number, summary: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ConversationRow>`UPDATE conversations SET ai_summary = ${summary} WHERE id = ${id} RETURNING *`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const markFeedbackSeen = (id: number, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE conversations SET feedback_seen_at = ${at} WHERE id = ${id}`.pipe(Effect.asVoid),
  )

/** The viewer an active member is, from their membership, role and workspace. */
export const viewerOf = (
  m: { readonly user_id: number; readonly workspace_id: number; readonly view_all: boolean } & {
    readonly channel_access: 'all' | 'selected'
    readonly channel_ids: readonly number[]
  },
  role: { readonly is_admin: boolean; readonly is_owner: boolean; readonly permissions: readonly string[] },
  ownerUserId: number | null,
): Viewer => ({
  workspaceId: m.workspace_id,
  userId: m.user_id,
  seesAll: role.is_owner || role.is_admin || m.view_all || ownerUserId === m.user_id,
  canView: role.is_owner || role.is_admin || role.permissions.includes('interactions.view'),
  channelIds: m.channel_access === 'all' ? null : m.channel_ids,
})

/** An API key sees every conversation of its workspace (spec 2 §1 rule 6). */
export const keyViewer = (workspaceId: number, userId: number): Viewer => ({
  workspaceId,
  userId,
  seesAll: true,
  canView: true,
  channelIds: null,
})

// ---------------------------------------------------------------------------------------------
// The list (spec 2 §4.1 GET /interactions)
// ---------------------------------------------------------------------------------------------

export type Tab = 'new' | 'waiting' | 'unreplied' | 'replied' | 'solved' | 'closed'
export const tabs: readonly Tab[] = ['new', 'waiting', 'unreplied', 'replied', 'solved', 'closed']

export interface ListFilter {
  readonly kind?: 'chat' | 'group'
  readonly channelIds?: readonly number[]
  readonly assignee?: 'me' | 'none' | number
  readonly team?: 'mine' | 'none' | number
  readonly labelId?: number
  readonly contactId?: number
  readonly groupId?: number
  readonly q?: string
  readonly createdFrom?: Date
  /** Exclusive. */
  readonly createdTo?: Date
  /** The category and its subcategories, or uncategorized. */
  readonly categories?: readonly number[] | 'none'
}

/** A conversation with the names the list and detail show, joined in one query. */
export interface ConversationView extends ConversationRow {
  readonly ch_type: 'msgapp' | 'email' | 'livechat' | 'api' | null
  readonly ch_name: string | null
  readonly ct_name: string | null
  readonly ct_phone: string | null
  readonly ct_email: string | null
  readonly ct_avatar: number | null
  readonly g_name: string | null
  readonly t_name: string | null
  readonly a_name: string | null
  readonly a_avatar_url: string | null
  readonly cat_name: string | null
}

/**
 * The names are scalar subqueries rather than joins: with six joins the planner spent ~10 ms per
 * list request choosing a join order (measured at 100k conversations), against well under 1 ms
 * this way; each subquery is one primary-key probe for the 25 rows of a page. The contact stays a
 * join because `q` filters on it.
 */
const NAME_COLUMNS = `(SELECT x.type FROM channels x WHERE x.id = c.channel_id) AS ch_type,
  (SELECT x.name FROM channels x WHERE x.id = c.channel_id) AS ch_name,
  ct.name AS ct_name, ct.avatar_file_id AS ct_avatar,
  (SELECT x.name FROM groups x WHERE x.id = c.group_id) AS g_name,
  (SELECT x.name FROM teams x WHERE x.id = c.team_id) AS t_name,
  (SELECT x.name FROM users x WHERE x.id = c.assignee_id) AS a_name,
  (SELECT x.avatar_url FROM users x WHERE x.id = c.assignee_id) AS a_avatar_url,
  (SELECT x.name FROM conversation_categories x WHERE x.id = c.category_id) AS cat_name`

const VIEW_COLUMNS = `c.*, ${NAME_COLUMNS}, ct.phone AS ct_phone, ct.email AS ct_email`

const VIEW_JOINS = `LEFT JOIN contacts ct ON ct.id = c.contact_id`

/** What a list item shows (actors/inbox presentItem) and its SLA reads, and nothing more. */
const LIST_FIELDS = [
  'id',
  'kind',
  'status',
  'reply_state',
  'waiting_since',
  'subject',
  'preview',
  'unread_count',
  'channel_id',
  'contact_id',
  'group_id',
  'team_id',
  'assignee_id',
  'category_id',
  'picked_up_at',
  'last_message_at',
  'created_at',
  'updated_at',
  'episode_replied_at',
] as const

export type ListItem = Pick<
  ConversationView,
  | (typeof LIST_FIELDS)[number]
  | 'ch_type'
  | 'ch_name'
  | 'ct_name'
  | 'ct_avatar'
  | 'g_name'
  | 't_name'
  | 'a_name'
  | 'a_avatar_url'
  | 'cat_name'
>

/**
 * The list's columns: a page's rows carry only what an item shows. `c.*` had the list parse a
 * dozen more columns a row (six times and the custom fields' JSON among them) for nothing.
 */
const LIST_COLUMNS = `${LIST_FIELDS.map((f) => `c.${f}`).join(', ')}, ${NAME_COLUMNS}`

/** A message's words: exactly the expression of migration 0110's index (messages_words_idx). */
const MESSAGE_WORDS = `to_tsvector('kb_text', m.body)`

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`

/**
 * How a search's words find conversations. A GIN index finds the messages with the words, but
 * reading each one's conversation is the cost: "retur" is in ~100,000 of 1,000,000 messages
 * (150+ ms). The planner's estimate of how many messages have the words (its statistics of the
 * index's words; within a few percent on the search bench, ~0.3 ms) decides: up to `WORD_HITS`,
 * their conversations are read first (`ids`, at most `WORD_HITS` messages: past that the words
 * are common after all); above it the list walks conversations in its own order probing each
 * one's messages, which finds a page in a few dozen conversations (`walk`). Counts need every
 * match (`index`, memoized: see `counts`).
 */
export type WordsBy = { readonly ids: readonly number[] } | 'walk' | 'index'

export const WORD_HITS = 20_000

const plannedRows = (plan: unknown): number => {
  const json = typeof plan === 'string' ? (JSON.parse(plan) as unknown) : plan
  const rows = (json as ReadonlyArray<{ readonly Plan?: { readonly 'Plan Rows'?: unknown } }>)[0]?.Plan?.[
    'Plan Rows'
  ]
  return typeof rows === 'number' ? rows : Number.POSITIVE_INFINITY
}

/** The conversations of the messages with the words when they are few enough, else 'walk'. */
const wordHits = (sql: SqlClient.SqlClient, workspaceId: number, tsq: string) =>
  Effect.gen(function* () {
    const [plan] = yield* sql<{ readonly 'QUERY PLAN': unknown }>`
      EXPLAIN (FORMAT JSON) SELECT 1 FROM messages m
      WHERE ${sql.literal(MESSAGE_WORDS)} @@ to_tsquery('kb_text', ${tsq}) AND m.workspace_id = ${workspaceId}`
    if (plannedRows(plan?.['QUERY PLAN']) > WORD_HITS) return 'walk' as const
    const rows = yield* sql<{ readonly c: number }>`
      SELECT m.conversation_id AS c FROM messages m
      WHERE ${sql.literal(MESSAGE_WORDS)} @@ to_tsquery('kb_text', ${tsq}) AND m.workspace_id = ${workspaceId}
      LIMIT ${WORD_HITS + 1}`
    return rows.length > WORD_HITS ? ('walk' as const) : { ids: [...new Set(rows.map((r) => r.c))] }
  })

/** How `f`'s words are to be found (`index` without words): ask once, give to `list` and `counts`. */
export const wordsFor = (v: Viewer, f: ListFilter) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const tsq = f.q === undefined ? null : tsQueryOf(f.q)
    return tsq === null ? Effect.succeed<WordsBy>('index') : wordHits(sql, v.workspaceId, tsq)
  })

/** Every filter but the tab, over alias `c` (and `ct` for the contact when searching). */
const filterWhere = (
  sql: SqlClient.SqlClient,
  v: Viewer,
  f: ListFilter,
  words: WordsBy = 'index',
): Fragment => {
  const parts: Fragment[] = [visibleWhere(sql, v)]
  if (f.kind) parts.push(sql`c.kind = ${f.kind}`)
  if (f.channelIds) parts.push(sql`c.channel_id = ANY(${pgArray(f.channelIds)}::int[])`)
  if (f.assignee === 'me') parts.push(sql`c.assignee_id = ${v.userId}`)
  else if (f.assignee === 'none') parts.push(sql`c.assignee_id IS NULL`)
  else if (f.assignee !== undefined) parts.push(sql`c.assignee_id = ${f.assignee}`)
  if (f.team === 'mine')
    parts.push(sql`c.team_id IN (SELECT tm.team_id FROM team_members tm WHERE tm.user_id = ${v.userId})`)
  else if (f.team === 'none') parts.push(sql`c.team_id IS NULL`)
  else if (f.team !== undefined) parts.push(sql`c.team_id = ${f.team}`)
  if (f.labelId !== undefined) {
    parts.push(
      sql`c.contact_id IN (SELECT cl.contact_id FROM contact_labels cl WHERE cl.label_id = ${f.labelId})`,
    )
  }
  if (f.contactId !== undefined) parts.push(sql`c.contact_id = ${f.contactId}`)
  if (f.groupId !== undefined) parts.push(sql`c.group_id = ${f.groupId}`)
  if (f.q !== undefined && f.q !== '') {
    const p = likePattern(f.q)
    const id = /^\d{1,15}$/.test(f.q) ? Number(f.q) : -1
    const tsq = tsQueryOf(f.q)
    // The words of the messages too (the index of migration 0110), when the query has words.
    const byWords =
      tsq === null || words === 'walk'
        ? sql``
        : words === 'index'
          ? sql`UNION SELECT m.conversation_id FROM messages m
              WHERE ${sql.literal(MESSAGE_WORDS)} @@ to_tsquery('kb_text', ${tsq}) AND m.workspace_id = ${v.workspaceId}`
          : sql`UNION SELECT unnest(${pgArray(words.ids)}::bigint[])`
    // Each branch is answered by an index (trigram on contacts and subjects, words of messages,
    // the primary key), so a search never scans the workspace's conversations one by one.
    const found = sql`c.id IN (
      SELECT cv.id FROM conversations cv WHERE cv.contact_id IN (
        SELECT x.id FROM contacts x WHERE x.workspace_id = ${v.workspaceId}
          AND (x.name ILIKE ${p} OR x.phone ILIKE ${p} OR x.email ILIKE ${p}))
      UNION SELECT cv.id FROM conversations cv WHERE cv.subject ILIKE ${p}
      ${byWords}
      UNION SELECT ${id}::bigint)`
    // Common words: each conversation the list walks is probed for them (OFFSET 0 keeps the
    // planner from turning the probe into a hash of every match, which is what 'walk' avoids).
    parts.push(
      tsq !== null && words === 'walk'
        ? sql`(${found} OR EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id
            AND ${sql.literal(MESSAGE_WORDS)} @@ to_tsquery('kb_text', ${tsq}) OFFSET 0))`
        : found,
    )
  }
  if (f.createdFrom) parts.push(sql`c.created_at >= ${f.createdFrom}`)
  if (f.createdTo) parts.push(sql`c.created_at < ${f.createdTo}`)
  if (f.categories === 'none') parts.push(sql`c.category_id IS NULL`)
  else if (f.categories) parts.push(sql`c.category_id = ANY(${pgArray(f.categories)}::int[])`)
  return sql.and(parts)
}

/** Which conversations each tab holds, over alias `c`: the list's tab and the counts alike. */
const TAB_WHERE: Readonly<Record<Tab, string>> = {
  new: `c.status = 'open' AND c.reply_state = 'new'`,
  waiting: `c.status = 'open' AND c.reply_state = 'waiting'`,
  unreplied: `c.status = 'open' AND c.reply_state IN ('new', 'waiting')`,
  replied: `c.status = 'open' AND c.reply_state = 'replied'`,
  solved: `c.status = 'solved'`,
  closed: `c.status = 'closed'`,
}

const tabWhere = (sql: SqlClient.SqlClient, tab: Tab | undefined): Fragment =>
  tab === undefined ? sql`true` : sql.literal(TAB_WHERE[tab])

export type TabCounts = Readonly<Record<Tab, number>> & { readonly all: number }

/**
 * Each tab's count and the whole, over rows `c` that each stand for `weight` conversations (one
 * a row of conversations, `c.n` a kept group's); `unreplied` is new and waiting together. `also`:
 * one more value read in the same statement (the list's teams), answered beside the counts.
 */
const countPerTab = (
  sql: SqlClient.SqlClient,
  weight: string,
  from: Fragment,
  where: Fragment,
  also: Fragment = sql`NULL`,
) => {
  const sum = (tab?: Tab) =>
    `COALESCE(sum(${weight})${tab ? ` FILTER (WHERE ${TAB_WHERE[tab]})` : ''}, 0)::int`
  return sql<{
    new: number
    waiting: number
    replied: number
    solved: number
    closed: number
    all: number
    also: unknown
  }>`
    SELECT ${sql.literal(
      `${(['new', 'waiting', 'replied', 'solved', 'closed'] as const).map((t) => `${sum(t)} AS ${t}`).join(', ')}, ${sum()} AS all`,
    )}, ${also} AS also
    FROM ${from} WHERE ${where}`.pipe(
    Effect.map((r) => {
      const { also: value, ...x } = r[0]!
      const counts: TabCounts = { ...x, unreplied: x.new + x.waiting }
      return { counts, also: value }
    }),
  )
}

const countTabs = (sql: SqlClient.SqlClient, v: Viewer, f: ListFilter, words: WordsBy) =>
  Effect.map(
    countPerTab(sql, '1', sql`conversations c`, filterWhere(sql, v, f, words === 'walk' ? 'index' : words)),
    (r) => r.counts,
  )

/** The filters the kept counts answer: those on the columns they are grouped by (migration 0114). */
const keptCountsAnswer = (f: ListFilter) =>
  f.q === undefined &&
  f.labelId === undefined &&
  f.contactId === undefined &&
  f.groupId === undefined &&
  f.createdFrom === undefined &&
  f.createdTo === undefined

/**
 * The tab counts from the kept groups (migration 0114): the folded counts and the deltas not
 * folded yet, under the same visibility rule and filters as the list, which read only grouped
 * columns here. A few hundred rows at most, against a scan of every conversation.
 */
const keptCounts = (sql: SqlClient.SqlClient, v: Viewer, f: ListFilter, also?: Fragment) =>
  countPerTab(
    sql,
    'c.n',
    sql`(
      SELECT workspace_id, channel_id, kind, team_id, assignee_id, category_id, status, reply_state, n
      FROM conversation_counts WHERE workspace_id = ${v.workspaceId}
      UNION ALL
      SELECT workspace_id, channel_id, kind, team_id, assignee_id, category_id, status, reply_state, n
      FROM conversation_count_deltas WHERE workspace_id = ${v.workspaceId}
    ) c`,
    filterWhere(sql, v, f),
    also,
  )

/**
 * Moves the kept counts' deltas into the counts (the rows it takes are its alone: another node's
 * fold takes others) and drops groups that came to nothing. Returns the deltas moved.
 *
 * The move is one statement, not a transaction: a read of the counts (`keptCounts`, one statement
 * over the counts and the deltas) sees it whole or not at all. Dropping the groups at nought is a
 * statement of its own: a group at nought counts as a group that is not there, and a fold that
 * adds to one meanwhile keeps it (the delete looks at its row again). So the fold never holds the
 * embedded database's only connection between two round trips (CI's embedded run once found its
 * transaction 2.7 s between statements while requests waited: "One connection, no waiting on it").
 */
export const foldCounts = () =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const [moved] = yield* sql<{ readonly n: number }>`
        WITH taken AS (DELETE FROM conversation_count_deltas RETURNING *),
        summed AS (
          SELECT workspace_id, channel_id, kind, team_id, assignee_id, category_id, status, reply_state, sum(n) AS n
          FROM taken
          GROUP BY workspace_id, channel_id, kind, team_id, assignee_id, category_id, status, reply_state
        ),
        added AS (
          INSERT INTO conversation_counts AS k
            SELECT workspace_id, channel_id, kind, team_id, assignee_id, category_id, status, reply_state, n
            FROM summed WHERE n <> 0
          ON CONFLICT (workspace_id, channel_id, kind, team_id, assignee_id, category_id, status, reply_state)
            DO UPDATE SET n = k.n + excluded.n
          RETURNING 1
        )
        SELECT (SELECT count(*) FROM taken)::int AS n, (SELECT count(*) FROM added) AS a`
      if ((moved?.n ?? 0) > 0) yield* sql`DELETE FROM conversation_counts WHERE n = 0`
      return moved?.n ?? 0
    }),
  )

/**
 * Gives the deltas' table its space back after folds took many rows (actors/inbox/tabCounts.ts):
 * every count read scans it, and the rows a fold deleted stay on its pages until a vacuum. After
 * 100,000 conversations came in at once, the empty table still had 900 pages and statistics
 * saying 100,000 rows, and every list request's count read scanned them (3 ms alone, 20–30 ms
 * under the inbox benchmark's load) until autovacuum's next round. Outside any transaction.
 */
export const tidyCountDeltas = () =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`VACUUM (ANALYZE) conversation_count_deltas`.pipe(Effect.asVoid),
  )

/**
 * Counting a large inbox scans it (tens of milliseconds at 100k conversations), and every agent's
 * list asks on every change. So counts are memoized per viewer and filters, one memo per node
 * (`CountMemo`, made with the node's database: store/database.ts), and reused while the workspace's conversation version (bumped by
 * every insert and update, see migration 0011) is unchanged, for the viewer's current teams.
 * Deletions do not bump it: past the TTL the kept counts are answered while one refresh runs
 * behind (engine/memo), so they lag a deletion by at most about two TTLs, and no request waits
 * for a refresh that nothing asked for (the inbox bench's p99 was the eight filters' counts
 * all recomputed together every 10 s).
 */
export const COUNTS_TTL_MS = 10_000
export class CountMemo extends Context.Tag('kotak/CountMemo')<
  CountMemo,
  Memo.Memo<TabCounts, SqlError.SqlError>
>() {}

export const countMemoLayer: Layer.Layer<CountMemo> = Layer.sync(CountMemo, () =>
  Memo.make<TabCounts, SqlError.SqlError>(COUNTS_TTL_MS),
)

/**
 * Whose counts these are. Those who see all data share them, unless a filter names the viewer
 * (`assignee=me`, `team=mine`): then the counts are their own.
 */
const viewerKey = (v: Viewer, f: ListFilter) =>
  v.seesAll && f.assignee !== 'me' && f.team !== 'mine'
    ? `${v.workspaceId}|all|${v.canView}|${v.channelIds?.join(',') ?? '*'}`
    : `${v.workspaceId}|${v.userId}|${v.seesAll}|${v.canView}|${v.channelIds?.join(',') ?? '*'}`

/**
 * How many visible conversations each tab holds under the other filters (`meta.counts`), and the
 * workspace's teams with their members (`meta.teams`, and the viewer's own for the memo's key).
 * Counts the kept groups answer come in one statement with the teams; others are memoized.
 */
export const countsAndTeams = (v: Viewer, f: ListFilter, words: WordsBy = 'index') =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      if (keptCountsAnswer(f)) {
        const kept = yield* keptCounts(sql, v, f, Assignees.teamsWithMembersJson(sql, v.workspaceId))
        return { counts: kept.counts, teams: Assignees.teamsFromJson(kept.also) }
      }
      const teams = yield* Assignees.teamsWithMembers(v.workspaceId)
      const memo = yield* CountMemo
      // A search by words counts the conversations it found (`words`: their ids when the words
      // are few; common ones read every matching message, ~300 ms at 1,000,000 messages): its
      // counts are kept for the memo's TTL whatever changes, so a search's tab counts may lag
      // by up to about two COUNTS_TTL_MS while its list never does.
      const [version] =
        f.q !== undefined && tsQueryOf(f.q) !== null
          ? [{ v: 'words' }]
          : yield* sql<{ v: string | null }>`
              SELECT max(version)::text AS v FROM conversations WHERE workspace_id = ${v.workspaceId}`
      // Team conversations are visible through the viewer's teams: their current teams are part of
      // the key, so a member who joins or leaves a team never sees the counts of before.
      const mine = v.seesAll
        ? ''
        : teams
            .filter((t) => t.member_ids.includes(v.userId))
            .map((t) => t.id)
            .sort((a, b) => a - b)
            .join(',')
      const counts = yield* memo.get(
        `${viewerKey(v, f)}|${mine}|${JSON.stringify(f)}`,
        version?.v ?? '0',
        countTabs(sql, v, f, words),
      )
      return { counts, teams }
    }),
  )

/** The newest message of a listed conversation that has the searched words, and where they are. */
export interface WordMatch {
  readonly match_id: number | null
  readonly match_snippet: string | null
}

/**
 * One page of visible conversations, most recent activity first. With a search that has words,
 * each row also names its newest message with them and a plain-text fragment around them (only
 * for the page's rows: the filter finds the conversations, this finds the place).
 */
export const list = (
  v: Viewer,
  f: ListFilter,
  tab: Tab | undefined,
  page: {
    readonly limit: number
    readonly offset: number
    /** Go on after this row of the list's order (a cursor) instead of at `offset`. */
    readonly after?: { readonly us: string | null; readonly id: number }
  },
  /** From `wordsFor`, when the caller also counts; asked here otherwise. */
  wordsBy?: WordsBy,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const a = page.after
    // Rows without a last message sort last (NULLS LAST), so a cursor on one goes on among them.
    const after =
      a === undefined
        ? sql`true`
        : a.us === null
          ? sql`(c.last_message_at IS NULL AND c.id < ${a.id})`
          : sql`((c.last_message_at, c.id) < ('epoch'::timestamptz + ${a.us}::bigint * interval '1 microsecond', ${a.id})
                 OR c.last_message_at IS NULL)`
    const tsq = f.q === undefined ? null : tsQueryOf(f.q)
    const words = wordsBy === undefined ? wordsFor(v, f) : Effect.succeed(wordsBy)
    const match =
      tsq === null
        ? sql``
        : sql`, hit.id AS match_id,
            CASE WHEN hit.id IS NULL THEN NULL ELSE ts_headline('kb_text', hit.body, to_tsquery('kb_text', ${tsq}),
              'MaxFragments=1, MaxWords=16, MinWords=6, StartSel="", StopSel="", FragmentDelimiter=" … "') END
              AS match_snippet`
    const hit =
      tsq === null
        ? sql``
        : sql`LEFT JOIN LATERAL (
            SELECT m.id, m.body FROM messages m
            WHERE m.conversation_id = c.id AND ${sql.literal(MESSAGE_WORDS)} @@ to_tsquery('kb_text', ${tsq})
            ORDER BY m.seq DESC LIMIT 1) hit ON true`
    // The page's rows are found first and only they get their names and match: a row the offset
    // skips would otherwise be given them too (page 20 read 500 rows' names, ~10 ms). The limit
    // and offset are written in (whole numbers of the validated page) rather than bound: with them
    // as parameters the planner costs a cached plan as if it read a tenth of the table, and
    // never reuses it (store/prepared.ts). The time in whole microseconds (exact, unlike a Date)
    // is for the next page's cursor.
    const limit = sql.literal(String(Math.trunc(page.limit)))
    // A page past any list (page=1e300) is an empty one, not a number SQL cannot read.
    const offset = sql.literal(
      String(a === undefined ? Math.min(Math.trunc(page.offset), Number.MAX_SAFE_INTEGER) : 0),
    )
    return Effect.flatMap(
      words,
      (by) => sql<ListItem & Partial<WordMatch> & { readonly sort_us: string | null }>`
        SELECT ${sql.literal(LIST_COLUMNS)} ${match},
          (extract(epoch FROM c.last_message_at) * 1000000)::bigint::text AS sort_us
        FROM (
          SELECT ${sql.literal(LIST_FIELDS.map((f) => `c.${f}`).join(', '))} FROM conversations c
          WHERE ${filterWhere(sql, v, f, by)} AND ${tabWhere(sql, tab)} AND ${after}
          ORDER BY c.last_message_at DESC NULLS LAST, c.id DESC
          LIMIT ${limit} OFFSET ${offset}
        ) c ${sql.literal(VIEW_JOINS)} ${hit}
        ORDER BY c.last_message_at DESC NULLS LAST, c.id DESC`,
    )
  })

/** One visible conversation with its names, or null. */
export const viewById = (v: Viewer, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ConversationView>`
      SELECT ${sql.literal(VIEW_COLUMNS)} FROM conversations c ${sql.literal(VIEW_JOINS)}
      WHERE c.id = ${id} AND ${visibleWhere(sql, v)}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

// ---------------------------------------------------------------------------------------------
// Contact merge and delete (spec 2 §4.4), each conversation through its actor
// ---------------------------------------------------------------------------------------------

/** Moves the conversation from contact `from` to `to` (null when it is not `from`'s any more). */
export const setContact = (id: number, from: number, to: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ConversationRow>`UPDATE conversations SET contact_id = ${to} WHERE id = ${id} AND contact_id = ${from}
      RETURNING *`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/**
 * Deletes the conversation with its messages (and what cascades: threads, visitors, e-mail ids)
 * and the records of the files only its messages used (not a template's, not a broadcast's, whose
 * attachment is the file of every message it sent, not another conversation's). Returns the
 * storage keys of those files, to remove from storage after commit.
 */
export const remove = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const files = yield* sql<{ id: number; storage_key: string }>`
          WITH used AS (
            SELECT file_id AS fid FROM messages WHERE conversation_id = ${id} AND file_id IS NOT NULL
            UNION
            SELECT (a->>'file_id')::bigint FROM messages m,
              jsonb_array_elements(CASE WHEN jsonb_typeof(m.payload->'email'->'attachments') = 'array'
                                        THEN m.payload->'email'->'attachments' ELSE '[]'::jsonb END) a
            WHERE m.conversation_id = ${id} AND a ? 'file_id'
          )
          SELECT f.id, f.storage_key FROM files f JOIN used ON used.fid = f.id
          WHERE NOT EXISTS (SELECT 1 FROM templates t WHERE t.file_id = f.id)
            AND NOT EXISTS (SELECT 1 FROM broadcasts b WHERE b.file_id = f.id)
            AND NOT EXISTS (SELECT 1 FROM messages o WHERE o.file_id = f.id AND o.conversation_id <> ${id})`
        const [gone] = yield* sql<{ id: number }>`DELETE FROM conversations WHERE id = ${id} RETURNING id`
        if (!gone) return null
        if (files.length > 0) yield* sql`DELETE FROM files WHERE id IN ${sql.in(files.map((f) => f.id))}`
        return files.map((f) => f.storage_key)
      }),
    ),
  )
