import { SqlClient } from '@effect/sql'
import type { Fragment } from '@effect/sql/Statement'
import { Data, Effect } from 'effect'
import { pgArray } from './arrays'
import * as Segments from './segments'

/**
 * Broadcasts (spec 2 §2, §3, §4.8): the draft, its state changes as conditional updates (the
 * database is the guard between nodes), the audience compiled to one SQL query with its skip
 * reasons, the locked recipient list, and the counts every answer shows. Recipient progress and
 * the sender's claims are in store/broadcastRecipients.ts.
 */
export type Status = 'draft' | 'scheduled' | 'running' | 'paused' | 'completed' | 'cancelled'
export const STATUSES: readonly Status[] = [
  'draft',
  'scheduled',
  'running',
  'paused',
  'completed',
  'cancelled',
]

export interface Audience {
  readonly segment_ids?: readonly number[]
  readonly label_ids?: readonly number[]
  readonly contact_ids?: readonly number[]
}

export interface Variant {
  readonly text: string
  readonly footer?: string | undefined
}

export interface BroadcastRow {
  readonly id: number
  readonly workspace_id: number
  readonly name: string
  readonly channel_id: number | null
  readonly status: Status
  readonly audience: Audience
  readonly messages: readonly Variant[]
  readonly settings: Readonly<Record<string, unknown>>
  readonly file_id: number | null
  readonly pause_reason: string | null
  readonly wait: { readonly reason: string; readonly until: string | null } | null
  readonly risk: Readonly<Record<string, unknown>> | null
  readonly risk_ack_at: Date | null
  readonly risk_ack_by: number | null
  readonly locked_at: Date | null
  readonly send_at: Date | null
  readonly started_at: Date | null
  readonly completed_at: Date | null
  readonly cancelled_at: Date | null
  readonly created_by: number | null
  readonly created_at: Date
  readonly updated_at: Date
}

export const byId = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<BroadcastRow>`SELECT * FROM broadcasts WHERE id = ${id} AND workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** Any workspace's broadcast (the sender knows only the id). */
export const byIdAny = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<BroadcastRow>`SELECT * FROM broadcasts WHERE id = ${id}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

export interface ListFilter {
  readonly status?: Status
  readonly channelId?: number
  /** The caller's channel access (null = every channel): a broadcast without a number stays listed. */
  readonly channelIds?: readonly number[] | null
  readonly q?: string
}

/** Broadcasts on channels in `ids` (a member's channel access), or on no number yet. */
export const accessWhere = (sql: SqlClient.SqlClient, ids: readonly number[]) =>
  sql`(b.channel_id IS NULL OR b.channel_id = ANY(${pgArray(ids)}::int[]))`

const whereOf = (sql: SqlClient.SqlClient, workspaceId: number, f: ListFilter, withStatus: boolean) => {
  const parts: Fragment[] = [sql`b.workspace_id = ${workspaceId}`]
  if (withStatus && f.status) parts.push(sql`b.status = ${f.status}`)
  if (f.channelId !== undefined) parts.push(sql`b.channel_id = ${f.channelId}`)
  if (f.channelIds) parts.push(accessWhere(sql, f.channelIds))
  if (f.q) parts.push(sql`b.name ILIKE ${`%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`)
  return sql.and(parts)
}

export const list = (workspaceId: number, f: ListFilter, limit: number, offset: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<BroadcastRow>`SELECT * FROM broadcasts b WHERE ${whereOf(sql, workspaceId, f, true)}
      ORDER BY b.id DESC LIMIT ${limit} OFFSET ${offset}`,
  )

export const count = (workspaceId: number, f: ListFilter) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      n: number
    }>`SELECT count(*)::int AS n FROM broadcasts b WHERE ${whereOf(sql, workspaceId, f, true)}`.pipe(
      Effect.map((r) => r[0]?.n ?? 0),
    ),
  )

/** Broadcasts per status under the other filters (`stats`). */
export const statusCounts = (workspaceId: number, f: ListFilter) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ status: Status; n: number }>`SELECT b.status, count(*)::int AS n FROM broadcasts b
      WHERE ${whereOf(sql, workspaceId, f, false)} GROUP BY b.status`.pipe(
      Effect.map((rows) => {
        const out: Record<string, number> = { all: 0 }
        for (const s of STATUSES) out[s] = 0
        for (const r of rows) {
          out[r.status] = r.n
          out.all = (out.all ?? 0) + r.n
        }
        return out
      }),
    ),
  )

export interface NewBroadcast {
  readonly name: string
  readonly channelId: number | null
  readonly audience: Audience
  readonly messages: readonly Variant[]
  readonly settings: Readonly<Record<string, unknown>>
  readonly fileId: number | null
  readonly createdBy: number | null
}

export const insert = (workspaceId: number, b: NewBroadcast, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<BroadcastRow>`
      INSERT INTO broadcasts (workspace_id, name, channel_id, audience, messages, settings, file_id, created_by,
                              created_at, updated_at)
      VALUES (${workspaceId}, ${b.name}, ${b.channelId}, ${JSON.stringify(b.audience)}::jsonb,
              ${JSON.stringify(b.messages)}::jsonb, ${JSON.stringify(b.settings)}::jsonb, ${b.fileId},
              ${b.createdBy}, ${at}, ${at})
      RETURNING *`.pipe(Effect.map((r) => r[0]!)),
  )

export interface DraftPatch {
  readonly name?: string
  readonly channelId?: number | null
  readonly audience?: Audience
  readonly messages?: readonly Variant[]
  readonly settings?: Readonly<Record<string, unknown>>
  readonly fileId?: number | null
}

/** Changes a draft; null when it is no longer a draft. */
export const updateDraft = (id: number, p: DraftPatch, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const sets: Fragment[] = [sql`updated_at = ${at}`]
    if (p.name !== undefined) sets.push(sql`name = ${p.name}`)
    if (p.channelId !== undefined) sets.push(sql`channel_id = ${p.channelId}`)
    if (p.audience !== undefined) sets.push(sql`audience = ${JSON.stringify(p.audience)}::jsonb`)
    if (p.messages !== undefined) sets.push(sql`messages = ${JSON.stringify(p.messages)}::jsonb`)
    if (p.settings !== undefined) sets.push(sql`settings = ${JSON.stringify(p.settings)}::jsonb`)
    if (p.fileId !== undefined) sets.push(sql`file_id = ${p.fileId}`)
    return sql<BroadcastRow>`UPDATE broadcasts SET ${sql.csv(sets)} WHERE id = ${id} AND status = 'draft' RETURNING *`.pipe(
      Effect.map((r) => r[0] ?? null),
    )
  })

/** Deletes a draft, completed or cancelled broadcast; returns its file id, or 'refused'/'missing'. */
export const remove = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ file_id: number | null }>`DELETE FROM broadcasts WHERE id = ${id} AND workspace_id = ${workspaceId}
      AND status IN ('draft', 'completed', 'cancelled') RETURNING file_id`.pipe(
      Effect.map((r) => (r[0] ? { fileId: r[0].file_id } : null)),
    ),
  )

/**
 * Whether a file is still used: by another broadcast (duplicates share their attachment) or by a
 * message, which every sent or test-sent broadcast message is (the inbox shows it from the file).
 */
export const fileInUse = (fileId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ used: boolean }>`SELECT EXISTS (SELECT 1 FROM broadcasts WHERE file_id = ${fileId})
        OR EXISTS (SELECT 1 FROM messages WHERE file_id = ${fileId}) AS used`.pipe(
      Effect.map((r) => r[0]?.used === true),
    ),
  )

/**
 * Moves a broadcast from one of `from` to `to` with the other columns given; null when it was in
 * none of them (someone else changed it first).
 */
export const transition = (
  workspaceId: number,
  id: number,
  from: readonly Status[],
  to: Status,
  extra: (sql: SqlClient.SqlClient) => readonly Fragment[] = () => [],
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<BroadcastRow>`UPDATE broadcasts SET ${sql.csv([sql`status = ${to}`, sql`updated_at = now()`, ...extra(sql)])}
      WHERE id = ${id} AND workspace_id = ${workspaceId} AND status = ANY(${pgArray(from)}::text[]) RETURNING *`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** The sender's wait (shown as `wait`); written only when it changed. */
export const setWait = (id: number, wait: { reason: string; until: string | null } | null) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`UPDATE broadcasts SET wait = ${wait === null ? null : JSON.stringify(wait)}::jsonb
      WHERE id = ${id} AND wait IS DISTINCT FROM ${wait === null ? null : JSON.stringify(wait)}::jsonb`,
  )

/**
 * A stopped broadcast's claims taken back, in the transaction that stopped it: a recipient claimed
 * but not yet handed to the number goes back to queued (paused) or is skipped (cancelled), so its
 * sender, which may be on its way to the number, finds the claim gone and hands nothing over
 * (store/broadcastRecipients.ts `markHanded`). One already handed over is the sender's to finish.
 * A cancel skips the queued ones too, and answers the stored messages that will never leave.
 */
const takeBack = (sql: SqlClient.SqlClient, ids: readonly number[], to: 'paused' | 'cancelled') =>
  to === 'paused'
    ? sql<{ conversation_id: number | null; message_id: number | null }>`
        UPDATE broadcast_recipients SET state = 'queued'
        WHERE broadcast_id = ANY(${pgArray(ids)}::int[]) AND state = 'sending' AND handed_at IS NULL
        RETURNING NULL::bigint AS conversation_id, NULL::bigint AS message_id`
    : sql<{ conversation_id: number | null; message_id: number | null }>`
        UPDATE broadcast_recipients SET state = 'skipped', reason = 'cancelled'
        WHERE broadcast_id = ANY(${pgArray(ids)}::int[])
          AND (state = 'queued' OR (state = 'sending' AND handed_at IS NULL))
        RETURNING conversation_id, message_id`

/**
 * Pauses or cancels a broadcast (`from` one of its states) with its claims taken back (`takeBack`),
 * in one transaction; null when it was in none of `from`. `unsent`: the stored messages of
 * recipients a cancel skipped after their message was stored (never handed to the number).
 */
export const halt = (
  workspaceId: number,
  id: number,
  from: readonly Status[],
  to: 'paused' | 'cancelled',
  extra: (sql: SqlClient.SqlClient) => readonly Fragment[] = () => [],
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [row] = yield* sql<BroadcastRow>`UPDATE broadcasts
          SET ${sql.csv([sql`status = ${to}`, sql`updated_at = now()`, ...extra(sql)])}
          WHERE id = ${id} AND workspace_id = ${workspaceId} AND status = ANY(${pgArray(from)}::text[])
          RETURNING *`
        if (!row) return null
        const back = yield* takeBack(sql, [id], to)
        const unsent = back.flatMap((r) =>
          r.conversation_id !== null && r.message_id !== null
            ? [{ conversationId: Number(r.conversation_id), messageId: Number(r.message_id) }]
            : [],
        )
        return { row, unsent }
      }),
    ),
  )

/** Every running or scheduled broadcast of a number paused at once (a restriction), claims back. */
export const pauseAllOnNumber = (channelId: number, reason: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const paused = yield* sql<{ id: number; workspace_id: number }>`
          UPDATE broadcasts SET status = 'paused', pause_reason = ${reason}, wait = NULL, updated_at = now()
          WHERE channel_id = ${channelId} AND status IN ('running', 'scheduled') RETURNING id, workspace_id`
        if (paused.length > 0)
          yield* takeBack(
            sql,
            paused.map((p) => p.id),
            'paused',
          )
        return paused
      }),
    ),
  )

/** What the sender supervisor should run now, on some node. */
export const live = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ id: number; workspace_id: number; status: Status; updated: number }>`
    SELECT id, workspace_id, status, 1 AS updated FROM broadcasts WHERE status IN ('scheduled', 'running') ORDER BY id`,
)

// ---- The audience ------------------------------------------------------------------------------

export type SkipReason = 'opted_out' | 'no_phone' | 'invalid_number' | 'duplicate' | 'recent'
export const SKIP_REASONS: readonly SkipReason[] = [
  'opted_out',
  'no_phone',
  'invalid_number',
  'duplicate',
  'recent',
]

/** The audience as one condition over `contacts c`: any of the segments, labels or contacts. */
const audienceWhere = (
  sql: SqlClient.SqlClient,
  workspaceId: number,
  a: Audience,
  segments: ReadonlyArray<{ readonly match: 'all' | 'any'; readonly conds: readonly Segments.Cond[] }>,
): Fragment => {
  const any: Fragment[] = []
  if (a.contact_ids && a.contact_ids.length > 0)
    any.push(sql`c.id = ANY(${pgArray(a.contact_ids)}::bigint[])`)
  if (a.label_ids && a.label_ids.length > 0)
    any.push(
      sql`EXISTS (SELECT 1 FROM contact_labels cl WHERE cl.contact_id = c.id AND cl.label_id = ANY(${pgArray(a.label_ids)}::int[]))`,
    )
  for (const s of segments) any.push(sql`(${Segments.whereOf(sql, workspaceId, s.match, s.conds)})`)
  const base = sql.and([sql`c.workspace_id = ${workspaceId}`, sql.literal(Segments.LIVE)])
  return any.length === 0 ? sql`false` : sql.and([base, sql.or(any)])
}

export interface AudienceQuery {
  readonly workspaceId: number
  readonly channelId: number
  readonly audience: Audience
  readonly segments: ReadonlyArray<{
    readonly match: 'all' | 'any'
    readonly conds: readonly Segments.Cond[]
  }>
  /** Contacts sent anything on the number after this are skipped as messaged recently (null: none). */
  readonly recentSince: Date | null
}

/**
 * The audience with each contact's skip reason (null = will be sent), in send order (contact id),
 * as one query: opted out, no phone, a phone that is not E.164, a phone already taken by an
 * earlier contact of the audience, or messaged on this number recently.
 */
const audienceRows = (sql: SqlClient.SqlClient, q: AudienceQuery) => sql`
  WITH aud AS (
    SELECT c.id, c.name, NULLIF(c.phone, '') AS phone, c.broadcast_opt_out FROM contacts c
    WHERE ${audienceWhere(sql, q.workspaceId, q.audience, q.segments)}
  ), ranked AS (
    SELECT aud.*, row_number() OVER (PARTITION BY phone ORDER BY broadcast_opt_out DESC, id) AS rn FROM aud
  )
  SELECT id, name, phone,
    CASE WHEN broadcast_opt_out THEN 'opted_out'
         WHEN phone IS NULL THEN 'no_phone'
         WHEN phone !~ '^\\+[1-9][0-9]{6,14}$' THEN 'invalid_number'
         WHEN rn > 1 THEN 'duplicate'
         WHEN ${q.recentSince}::timestamptz IS NOT NULL AND EXISTS (
           SELECT 1 FROM conversations cv JOIN messages m ON m.conversation_id = cv.id
           WHERE cv.contact_id = ranked.id AND cv.channel_id = ${q.channelId} AND m.direction = 'out'
             AND m.type <> 'note' AND m.created_at >= ${q.recentSince}::timestamptz) THEN 'recent'
    END AS skip
  FROM ranked`

/** Counts of the audience by skip reason (the estimate of a draft). */
export const audienceCounts = (q: AudienceQuery) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      skip: SkipReason | null
      n: number
    }>`SELECT skip, count(*)::int AS n FROM (${audienceRows(sql, q)}) a GROUP BY skip`.pipe(
      Effect.map((rows) => {
        const skipped: Record<SkipReason, number> = {
          opted_out: 0,
          no_phone: 0,
          invalid_number: 0,
          duplicate: 0,
          recent: 0,
        }
        let recipients = 0
        for (const r of rows) {
          if (r.skip === null) recipients = r.n
          else skipped[r.skip] = r.n
        }
        return { recipients, skipped, audience: rows.reduce((s, r) => s + r.n, 0) }
      }),
    ),
  )

/** The first `limit` contacts that would be sent (previews). */
export const audienceSample = (q: AudienceQuery, limit: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{
        id: number
      }>`SELECT id FROM (${audienceRows(sql, q)}) a WHERE skip IS NULL ORDER BY id LIMIT ${limit}`,
  )

/** Contacts that would be sent who never wrote to the number (strangers to it). */
export const audienceCold = (q: AudienceQuery) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM (${audienceRows(sql, q)}) a WHERE skip IS NULL
      AND NOT EXISTS (SELECT 1 FROM conversations cv JOIN messages m ON m.conversation_id = cv.id
        WHERE cv.contact_id = a.id AND cv.channel_id = ${q.channelId} AND m.direction = 'in')`.pipe(
      Effect.map((r) => r[0]?.n ?? 0),
    ),
  )

/** Of a locked list: recipients to send who never wrote to the number. */
export const lockedCold = (broadcastId: number, channelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      n: number
    }>`SELECT count(*)::int AS n FROM broadcast_recipients r WHERE r.broadcast_id = ${broadcastId}
      AND r.state <> 'skipped' AND NOT EXISTS (SELECT 1 FROM conversations cv JOIN messages m ON m.conversation_id = cv.id
        WHERE cv.contact_id = r.contact_id AND cv.channel_id = ${channelId} AND m.direction = 'in')`.pipe(
      Effect.map((r) => r[0]?.n ?? 0),
    ),
  )

// ---- Test sends ----------------------------------------------------------------------------------

export type TestSendTake =
  | { readonly _tag: 'Taken'; readonly id: number; readonly used: number }
  | { readonly _tag: 'Full'; readonly first: Date | null }

/**
 * Takes one of the workspace's test sends of the hour (`limit` since `since`), or answers when the
 * oldest of them was taken. The count and the insert run under a per-workspace advisory lock, so
 * test sends fired at once cannot all read the same count and pass the cap together.
 */
export const takeTestSend = (
  workspaceId: number,
  broadcastId: number,
  phone: string,
  at: Date,
  since: Date,
  limit: number,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(${workspaceId}, hashtext('broadcast_tests'))`
        const [hour] = yield* sql<{ n: number; first: Date | null }>`
          SELECT count(*)::int AS n, min(at) AS first FROM broadcast_test_sends
          WHERE workspace_id = ${workspaceId} AND at >= ${since}`
        const n = hour?.n ?? 0
        if (n >= limit) return { _tag: 'Full', first: hour?.first ?? null } as TestSendTake
        const [row] = yield* sql<{ id: number }>`
          INSERT INTO broadcast_test_sends (workspace_id, broadcast_id, phone, at)
          VALUES (${workspaceId}, ${broadcastId}, ${phone}, ${at}) RETURNING id`
        return { _tag: 'Taken', id: Number(row!.id), used: n + 1 } as TestSendTake
      }),
    ),
  )

/** A test send taken but not sent (the number had no slot): it does not count. */
export const dropTestSend = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM broadcast_test_sends WHERE id = ${id}`)

/** Monthly quota use: sent this period plus what live broadcasts still hold queued. */
export const quotaUsed = (workspaceId: number, since: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`
      SELECT (SELECT count(*) FROM broadcast_recipients r JOIN broadcasts b ON b.id = r.broadcast_id
              WHERE b.workspace_id = ${workspaceId} AND r.state = 'sent' AND r.sent_at >= ${since})
           + (SELECT count(*) FROM broadcast_recipients r JOIN broadcasts b ON b.id = r.broadcast_id
              WHERE b.workspace_id = ${workspaceId} AND r.state IN ('queued', 'sending')
                AND b.status IN ('scheduled', 'running', 'paused')) AS n`.pipe(
      Effect.map((r) => Number(r[0]?.n ?? 0)),
    ),
  )

export interface Lock {
  readonly query: AudienceQuery
  readonly segmentIds: readonly number[]
  readonly variants: number
  readonly quotaLimit: number
  readonly quotaSince: Date
  readonly to: 'scheduled' | 'running'
  readonly at: Date
  readonly sendAt: Date | null
  readonly userId: number
  readonly risk: Readonly<Record<string, unknown>>
}

export type LockResult =
  | { readonly _tag: 'Locked'; readonly row: BroadcastRow; readonly recipients: number }
  | { readonly _tag: 'NotDraft' }
  | { readonly _tag: 'Empty' }
  | { readonly _tag: 'Quota'; readonly needed: number; readonly remaining: number }

/**
 * Locks the recipient list of a draft: one transaction writes every audience row (queued, or
 * skipped with its reason; variants in turn) and moves the broadcast on. The quota check runs
 * under a per-workspace advisory lock, so two schedules cannot both take the last of it; the
 * segments are share-locked so none is deleted meanwhile.
 */
export const lock = (workspaceId: number, id: number, l: Lock) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          yield* sql`SELECT pg_advisory_xact_lock(${workspaceId}, hashtext('broadcast_quota'))`
          const [row] = yield* sql<BroadcastRow>`
            SELECT * FROM broadcasts WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`
          if (row?.status !== 'draft') return { _tag: 'NotDraft' } as LockResult
          if (l.segmentIds.length > 0)
            yield* sql`SELECT id FROM segments WHERE id = ANY(${pgArray(l.segmentIds)}::int[]) FOR SHARE`
          yield* sql`DELETE FROM broadcast_recipients WHERE broadcast_id = ${id}`
          yield* sql`
            INSERT INTO broadcast_recipients (broadcast_id, position, contact_id, name, phone, variant, state, reason)
            SELECT ${id}, p, id, name, phone,
                   CASE WHEN skip IS NULL THEN (q - 1) % ${Math.max(1, l.variants)} ELSE 0 END,
                   CASE WHEN skip IS NULL THEN 'queued' ELSE 'skipped' END, skip
            FROM (SELECT a.*, row_number() OVER (ORDER BY a.id) AS p,
                         row_number() OVER (PARTITION BY a.skip IS NULL ORDER BY a.id) AS q
                  FROM (${audienceRows(sql, l.query)}) a) x`
          const [n] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM broadcast_recipients
            WHERE broadcast_id = ${id} AND state = 'queued'`
          const needed = n?.n ?? 0
          if (needed === 0) return yield* Effect.fail(new Rollback({ result: { _tag: 'Empty' } }))
          if (l.quotaLimit > 0) {
            const used = yield* quotaUsed(workspaceId, l.quotaSince)
            const remaining = Math.max(0, l.quotaLimit - used)
            if (needed > remaining)
              return yield* Effect.fail(new Rollback({ result: { _tag: 'Quota', needed, remaining } }))
          }
          const [locked] = yield* sql<BroadcastRow>`
            UPDATE broadcasts SET status = ${l.to}, locked_at = ${l.at}, risk_ack_at = ${l.at},
              risk_ack_by = ${l.userId}, risk = ${JSON.stringify(l.risk)}::jsonb, send_at = ${l.sendAt},
              pause_reason = NULL, wait = NULL, started_at = ${l.to === 'running' ? l.at : null},
              updated_at = ${l.at}
            WHERE id = ${id} RETURNING *`
          return { _tag: 'Locked', row: locked!, recipients: needed } as LockResult
        }),
      )
      .pipe(Effect.catchTag('Rollback', (r) => Effect.succeed(r.result))),
  )

/** Ends the transaction without writing anything, answering `result`. */
class Rollback extends Data.TaggedError('Rollback')<{ readonly result: LockResult }> {}

export type RetryResult =
  | { readonly _tag: 'Retried'; readonly row: BroadcastRow; readonly requeued: number }
  | { readonly _tag: 'State'; readonly status: Status | null }
  | { readonly _tag: 'Nothing' }
  | { readonly _tag: 'Quota'; readonly needed: number; readonly remaining: number }

/**
 * `/retry`: a running, paused or completed broadcast's failed recipients queued again as a new
 * attempt, and a completed one running again, in one transaction that holds the broadcast's row:
 * a cancel at the same moment either comes after it (and skips what it queued) or before it (and
 * the retry finds the broadcast cancelled). The quota (`quotaLimit` since `quotaSince`, 0 = none)
 * is checked under the same per-workspace advisory lock as a schedule's, so two retries, or a
 * retry and a schedule, cannot both take the last of it.
 */
export const retry = (
  workspaceId: number,
  id: number,
  quota: { readonly limit: number; readonly since: Date },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(${workspaceId}, hashtext('broadcast_quota'))`
        const [row] = yield* sql<BroadcastRow>`
          SELECT * FROM broadcasts WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`
        if (!row || !['running', 'paused', 'completed'].includes(row.status))
          return { _tag: 'State', status: row?.status ?? null } as RetryResult
        if (quota.limit > 0) {
          const [f] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM broadcast_recipients
            WHERE broadcast_id = ${id} AND state = 'failed'`
          const needed = f?.n ?? 0
          const remaining = Math.max(0, quota.limit - (yield* quotaUsed(workspaceId, quota.since)))
          if (needed > remaining) return { _tag: 'Quota', needed, remaining } as RetryResult
        }
        const requeued = yield* sql<{ id: number }>`
          UPDATE broadcast_recipients SET state = 'queued', attempt = attempt + 1, reason = NULL,
            message_id = NULL, external_id = NULL, handed_at = NULL, failed_at = NULL, body = NULL
          WHERE broadcast_id = ${id} AND state = 'failed' RETURNING id`
        if (requeued.length === 0) return { _tag: 'Nothing' } as RetryResult
        if (row.status !== 'completed')
          return { _tag: 'Retried', row, requeued: requeued.length } as RetryResult
        const [running] = yield* sql<BroadcastRow>`
          UPDATE broadcasts SET status = 'running', completed_at = NULL, updated_at = now()
          WHERE id = ${id} RETURNING *`
        return { _tag: 'Retried', row: running!, requeued: requeued.length } as RetryResult
      }),
    ),
  )

/** Back to draft: the locked list is dropped. */
export const unlock = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [row] = yield* sql<BroadcastRow>`
          UPDATE broadcasts SET status = 'draft', locked_at = NULL, risk_ack_at = NULL, risk_ack_by = NULL,
            send_at = NULL, wait = NULL, updated_at = now()
          WHERE id = ${id} AND workspace_id = ${workspaceId} AND status = 'scheduled' RETURNING *`
        if (!row) return null
        yield* sql`DELETE FROM broadcast_recipients WHERE broadcast_id = ${id}`
        return row
      }),
    ),
  )

// ---- Counts ----------------------------------------------------------------------------------

export interface Counts {
  readonly total: number
  readonly queued: number
  readonly sent: number
  readonly delivered: number
  readonly read: number
  readonly replied: number
  readonly failed: number
  readonly skipped: number
}

/**
 * A recipient's cumulative status as SQL over `broadcast_recipients r` joined to its message `m`:
 * queued, sent, delivered, read, replied (the contact wrote after it), failed or skipped.
 */
export const STATUS_EXPR = `CASE
  WHEN r.state = 'skipped' THEN 'skipped'
  WHEN r.state IN ('queued', 'sending') THEN 'queued'
  WHEN r.state = 'failed' THEN 'failed'
  WHEN EXISTS (SELECT 1 FROM messages mi WHERE mi.conversation_id = r.conversation_id
               AND mi.direction = 'in' AND mi.id > r.message_id) THEN 'replied'
  WHEN m.status = 'read' THEN 'read'
  WHEN m.status = 'delivered' THEN 'delivered'
  ELSE 'sent' END`

/**
 * Counts per broadcast, cumulative (a read message also counts as delivered and sent, a reply as
 * read too); `total` excludes the skipped.
 */
export const countsOf = (ids: readonly number[]) =>
  ids.length === 0
    ? Effect.succeed(new Map<number, Counts & { readonly reasons: Record<string, number> }>())
    : Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ broadcast_id: number; status: string; reason: string | null; n: number }>`
          SELECT broadcast_id, status, CASE WHEN status = 'skipped' THEN reason END AS reason, count(*)::int AS n FROM (
            SELECT r.broadcast_id, r.reason, ${sql.literal(STATUS_EXPR)} AS status
            FROM broadcast_recipients r LEFT JOIN messages m ON m.id = r.message_id
            WHERE r.broadcast_id = ANY(${pgArray(ids)}::int[])) x
          GROUP BY 1, 2, 3`.pipe(
          Effect.map((rows) => {
            const raw = new Map<number, { n: Record<string, number>; reasons: Record<string, number> }>()
            for (const id of ids) raw.set(id, { n: {}, reasons: {} })
            for (const r of rows) {
              const c = raw.get(r.broadcast_id)!
              c.n[r.status] = (c.n[r.status] ?? 0) + r.n
              if (r.status === 'skipped' && r.reason) c.reasons[r.reason] = (c.reasons[r.reason] ?? 0) + r.n
            }
            const out = new Map<number, Counts & { readonly reasons: Record<string, number> }>()
            for (const [id, { n, reasons }] of raw) {
              // Cumulative: replied ⊂ read ⊂ delivered ⊂ sent.
              const replied = n.replied ?? 0
              const read = (n.read ?? 0) + replied
              const delivered = (n.delivered ?? 0) + read
              const sent = (n.sent ?? 0) + delivered
              const queued = n.queued ?? 0
              const failed = n.failed ?? 0
              out.set(id, {
                total: sent + queued + failed,
                queued,
                sent,
                delivered,
                read,
                replied,
                failed,
                skipped: n.skipped ?? 0,
                reasons,
              })
            }
            return out
          }),
        ),
      )

/** Members who manage broadcasts (and the Owner and admins), with their language. */
export const managers = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ user_id: number; locale: string | null }>`
      SELECT m.user_id, u.locale FROM members m JOIN roles r ON r.id = m.role_id JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = ${workspaceId} AND m.status = 'active'
        AND (r.is_owner OR r.is_admin OR 'broadcasts.manage' = ANY(r.permissions))`,
  )

/** The broadcasts a stored message was sent for (a receipt for it changes their counts). */
export const ofMessage = (messageId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ id: number; workspace_id: number }>`
      SELECT DISTINCT b.id, b.workspace_id FROM broadcast_recipients r JOIN broadcasts b ON b.id = r.broadcast_id
      WHERE r.message_id = ${messageId} AND r.state = 'sent'`,
  )

/**
 * The broadcasts whose recipient in this conversation the inbound message `messageId` is the
 * first reply to (see STATUS_EXPR): sent messages of theirs after the conversation's previous
 * inbound message.
 */
export const repliedBy = (conversationId: number, messageId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ id: number; workspace_id: number }>`
      SELECT DISTINCT b.id, b.workspace_id FROM messages m
        JOIN broadcast_recipients r ON r.message_id = m.id AND r.state = 'sent'
        JOIN broadcasts b ON b.id = r.broadcast_id
      WHERE m.conversation_id = ${conversationId} AND m.id < ${messageId} AND m.id > COALESCE((
        SELECT max(p.id) FROM messages p WHERE p.conversation_id = ${conversationId}
          AND p.direction = 'in' AND p.id < ${messageId}), 0)`,
  )
