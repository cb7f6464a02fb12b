import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { digest, randomToken } from '../engine/tokens'
import { pgArray } from './arrays'
import type { ChannelRow } from './channels'
import type { MessageRow } from './conversations'

/**
 * API channels (spec 1 §4.4 `/channels/api`, §4.7): the channel key (`svca_ch_…`, kept as its
 * SHA-256 like workspace keys), the webhook settings and secret, the customer's conversations,
 * and the webhook outbox (`webhook_deliveries`).
 */
export const CHANNEL_KEY_PREFIX = 'svca_ch_'
export const CHANNEL_KEY_PATTERN = /^svca_ch_[A-Za-z0-9_-]{43}$/
export const WEBHOOK_EVENTS = ['message.created', 'conversation.updated'] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]
export const DELIVERIES_LISTED = 50

export interface ChannelApiRow {
  readonly channel_id: number
  readonly key_prefix: string
  readonly key_last_used_at: Date | null
  readonly webhook_secret: string
  readonly webhook_url: string | null
  readonly events: readonly string[]
  readonly retries: number
  readonly out_cursor: number
}

const API_COLUMNS =
  'channel_id, key_prefix, key_last_used_at, webhook_secret, webhook_url, events, retries, out_cursor'

const newKey = () => {
  const key = CHANNEL_KEY_PREFIX + randomToken(32)
  return { key, prefix: key.slice(0, CHANNEL_KEY_PREFIX.length + 8), digest: digest(key) }
}
/** `whsec_` + 32 random bytes: what the receiver uses to check signatures. */
const newSecret = () => `whsec_${randomToken(32)}`

export const byChannel = (channelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ChannelApiRow>`SELECT ${sql.literal(API_COLUMNS)} FROM channel_api WHERE channel_id = ${channelId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export interface NewApiChannel {
  readonly name: string
  readonly webhookUrl: string | null
  readonly events: readonly string[]
  readonly retries: number
}

/**
 * Creates the channel and its credentials unless the workspace's channel quota (shared by every
 * type; 0 = unlimited) is used up. The workspace row is locked for the count, so concurrent
 * creations cannot overshoot. Null when the quota is full.
 */
export const createWithinQuota = (workspaceId: number, limit: number, input: NewApiChannel) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT id FROM workspaces WHERE id = ${workspaceId} FOR UPDATE`
        const [{ n }] = (yield* sql<{ n: number }>`
          SELECT count(*) AS n FROM channels WHERE workspace_id = ${workspaceId} AND archived_at IS NULL`) as [
          { n: number },
        ]
        if (limit > 0 && n >= limit) return null
        const [channel] = yield* sql<ChannelRow>`
          INSERT INTO channels (workspace_id, type, name, status)
          VALUES (${workspaceId}, 'api', ${input.name}, 'active') RETURNING *`
        const k = newKey()
        const secret = newSecret()
        const [api] = yield* sql<ChannelApiRow>`
          INSERT INTO channel_api (channel_id, key_digest, key_prefix, webhook_secret, webhook_url, events, retries)
          VALUES (${channel!.id}, ${k.digest}, ${k.prefix}, ${secret}, ${input.webhookUrl},
                  ${pgArray(input.events)}::text[], ${input.retries})
          RETURNING ${sql.literal(API_COLUMNS)}`
        return { channel: channel!, api: api!, key: k.key }
      }),
    ),
  )

export const update = (
  channelId: number,
  patch: {
    readonly webhookUrl?: string | null
    readonly events?: readonly string[]
    readonly retries?: number
  },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ChannelApiRow>`
      UPDATE channel_api SET
        webhook_url = CASE WHEN ${patch.webhookUrl !== undefined} THEN ${patch.webhookUrl ?? null} ELSE webhook_url END,
        events = CASE WHEN ${patch.events !== undefined} THEN ${pgArray(patch.events ?? [])}::text[] ELSE events END,
        retries = COALESCE(${patch.retries ?? null}::int, retries)
      WHERE channel_id = ${channelId}
      RETURNING ${sql.literal(API_COLUMNS)}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/** A new channel key; the old digest is gone in the same statement, so the old key fails at once. */
export const replaceKey = (channelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const k = newKey()
    return sql<ChannelApiRow>`
      UPDATE channel_api SET key_digest = ${k.digest}, key_prefix = ${k.prefix}, key_last_used_at = NULL
      WHERE channel_id = ${channelId} RETURNING ${sql.literal(API_COLUMNS)}`.pipe(
      Effect.map((r) => (r[0] ? { api: r[0], key: k.key } : null)),
    )
  })

export const replaceSecret = (channelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ChannelApiRow>`
      UPDATE channel_api SET webhook_secret = ${newSecret()}
      WHERE channel_id = ${channelId} RETURNING ${sql.literal(API_COLUMNS)}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/**
 * The live (not archived) API channel whose key this is, or null. Marks the key used at most once
 * a minute.
 */
export const findByKey = (key: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const hash = digest(key)
    return sql<ChannelRow>`
      WITH touched AS (
        UPDATE channel_api SET key_last_used_at = now()
        WHERE key_digest = ${hash}
          AND (key_last_used_at IS NULL OR key_last_used_at < now() - interval '1 minute')
        RETURNING channel_id)
      SELECT c.* FROM channel_api a JOIN channels c ON c.id = a.channel_id
      WHERE a.key_digest = ${hash} AND c.archived_at IS NULL AND c.type = 'api'`.pipe(
      Effect.map((r) => r[0] ?? null),
    )
  })

// ---- The customer's conversations ----------------------------------------------------------

export interface ThreadRow {
  readonly channel_id: number
  readonly external_id: string
  readonly conversation_id: number
  readonly contact: Readonly<Record<string, unknown>>
}

export const threadByExternalId = (channelId: number, externalId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ThreadRow>`
      SELECT * FROM channel_api_threads WHERE channel_id = ${channelId} AND external_id = ${externalId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** Merges what the customer's system said of the contact into the thread's copy; null without a thread. */
export const mergeThreadContact = (
  channelId: number,
  externalId: string,
  contact: Readonly<Record<string, unknown>>,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ThreadRow>`
      UPDATE channel_api_threads SET contact = contact || ${JSON.stringify(contact)}::jsonb
      WHERE channel_id = ${channelId} AND external_id = ${externalId} RETURNING *`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** A conversation for a thread, without contact yet (the thread must be won first). */
export const insertThreadConversation = (workspaceId: number, channelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      INSERT INTO conversations (workspace_id, channel_id) VALUES (${workspaceId}, ${channelId})
      RETURNING id`.pipe(Effect.map((r) => r[0]!.id)),
  )

/** The thread of `externalId` on this conversation, or null when another one holds it already. */
export const insertThread = (
  channelId: number,
  externalId: string,
  conversationId: number,
  contact: Readonly<Record<string, unknown>>,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ThreadRow>`
      INSERT INTO channel_api_threads (channel_id, external_id, conversation_id, contact)
      VALUES (${channelId}, ${externalId}, ${conversationId}, ${JSON.stringify(contact)}::jsonb)
      ON CONFLICT (channel_id, external_id) DO NOTHING RETURNING *`.pipe(Effect.map((r) => r[0] ?? null)),
  )

export const setThreadConversationContact = (conversationId: number, contactId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`UPDATE conversations SET contact_id = ${contactId} WHERE id = ${conversationId}`,
  )

/** Removes the empty conversation of a thread lost to a concurrent first message. */
export const dropThreadConversation = (conversationId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM conversations WHERE id = ${conversationId}`)

export const threadOfConversation = (conversationId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ThreadRow>`SELECT * FROM channel_api_threads WHERE conversation_id = ${conversationId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** An agent reply of this channel (never an internal note): what the customer's system may mark. */
export const replyOf = (channelId: number, messageId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number; conversation_id: number; status: string }>`
      SELECT m.id, m.conversation_id, m.status FROM messages m
      JOIN conversations c ON c.id = m.conversation_id AND c.channel_id = ${channelId}
      WHERE m.id = ${messageId} AND m.direction = 'out' AND m.type <> 'note'`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

// ---- Webhook outbox ------------------------------------------------------------------------

export interface DeliveryRow {
  readonly id: number
  readonly uid: string
  readonly channel_id: number
  readonly event: string
  readonly subject: string | null
  readonly body: string
  readonly status: 'pending' | 'delivered' | 'failed'
  readonly attempts: number
  readonly max_attempts: number
  readonly next_attempt_at: Date
  readonly http_status: number | null
  readonly duration_ms: number | null
  readonly error: string | null
  readonly log: readonly AttemptLog[]
  readonly created_at: Date
  readonly updated_at: Date
}

export interface AttemptLog {
  readonly at: string
  readonly http_status: number | null
  readonly duration_ms: number
  readonly error: string | null
}

export const newDeliveryId = () => `dlv_${randomToken(16)}`

/** Queues a delivery; one with the same subject on this channel is kept instead (null). */
export const enqueue = (
  channelId: number,
  d: {
    readonly uid: string
    readonly event: string
    readonly subject: string | null
    readonly body: string
    readonly maxAttempts: number
    /** Born claimed: the worker leaves it alone for this long (a delivery the request sends itself). */
    readonly leaseSeconds?: number
  },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<DeliveryRow>`
      INSERT INTO webhook_deliveries (uid, channel_id, event, subject, body, max_attempts, next_attempt_at)
      VALUES (${d.uid}, ${channelId}, ${d.event}, ${d.subject}, ${d.body}, ${d.maxAttempts},
        now() + make_interval(secs => ${d.leaseSeconds ?? 0}))
      ON CONFLICT (channel_id, subject) DO NOTHING RETURNING *`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/** A delivery that failed for good, due again now with `attempts` more tries (its log is kept). */
export const requeueFailed = (channelId: number, subject: string, attempts: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`
      UPDATE webhook_deliveries SET status = 'pending', max_attempts = attempts + ${attempts},
        next_attempt_at = now(), updated_at = now()
      WHERE channel_id = ${channelId} AND subject = ${subject} AND status = 'failed'`,
  )

export const latestDeliveries = (channelId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<DeliveryRow>`
      SELECT * FROM webhook_deliveries WHERE channel_id = ${channelId}
      ORDER BY id DESC LIMIT ${DELIVERIES_LISTED}`,
  )

/**
 * Claims due deliveries for one attempt: their next attempt is pushed out by `leaseSeconds`
 * under `SKIP LOCKED`, so two nodes never send the same attempt and a node that dies mid-send
 * only delays it.
 */
export const claimDue = (limit: number, leaseSeconds: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<DeliveryRow>`
      UPDATE webhook_deliveries SET next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
      WHERE id IN (
        SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()
        ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING *`,
  )

/** Records one attempt: delivered, failed for good, or pending again after `retryInSeconds`. */
export const recordAttempt = (
  id: number,
  a: AttemptLog & { readonly delivered: boolean; readonly retryInSeconds: number | null },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<DeliveryRow>`
      UPDATE webhook_deliveries SET
        attempts = attempts + 1,
        status = CASE WHEN ${a.delivered} THEN 'delivered' WHEN ${a.retryInSeconds === null} THEN 'failed' ELSE 'pending' END,
        next_attempt_at = now() + make_interval(secs => ${a.retryInSeconds ?? 0}),
        http_status = ${a.http_status}, duration_ms = ${a.duration_ms}, error = ${a.error},
        log = log || ${JSON.stringify([{ at: a.at, http_status: a.http_status, duration_ms: a.duration_ms, error: a.error }])}::jsonb,
        updated_at = now()
      WHERE id = ${id} RETURNING *`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/**
 * Ends a delivery without sending it (a reply unsent before it went out): `failed`, with the
 * reason in its log, as an attempt that never left.
 */
export const dropUnsent = (id: number, at: string, error: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      UPDATE webhook_deliveries SET status = 'failed', error = ${error}, http_status = NULL, duration_ms = 0,
        log = log || ${JSON.stringify([{ at, http_status: null, duration_ms: 0, error }])}::jsonb,
        updated_at = now()
      WHERE id = ${id} AND status = 'pending'`.pipe(Effect.asVoid),
  )

/**
 * Agent replies of API channels not queued yet: outgoing messages (never internal notes) of live
 * channels with a webhook URL, above the channel's cursor, without a `message.created` delivery. Several nodes may run
 * this at once; the unique `(channel_id, subject)` keeps each reply queued once.
 */
export const pendingReplies = (limit: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{
      channel_id: number
      message_id: number
      conversation_id: number
      external_id: string | null
    }>`
      SELECT a.channel_id, m.id AS message_id, m.conversation_id, t.external_id
      FROM channel_api a
      JOIN channels c ON c.id = a.channel_id AND c.archived_at IS NULL
      JOIN conversations cv ON cv.channel_id = a.channel_id
      JOIN messages m ON m.conversation_id = cv.id AND m.direction = 'out' AND m.type <> 'note'
        AND m.id > a.out_cursor
      LEFT JOIN channel_api_threads t ON t.conversation_id = cv.id
      WHERE a.webhook_url IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                        WHERE d.channel_id = a.channel_id AND d.subject = 'message.created:' || m.id)
      ORDER BY m.id LIMIT ${limit}`,
  )

/**
 * Seconds a reply stays above the cursor (checked again every tick) before the cursor may pass
 * it: a transaction that inserted a lower id but committed later is still seen within this time.
 */
export const CURSOR_LAG_SECONDS = 30

/**
 * Moves each channel's cursor up to the newest reply older than the lag — any channel's, so that a
 * channel whose agents are quiet does not hold its cursor back while others reply — but never past
 * one of its own replies not queued yet. Monotonic and idempotent, so concurrent nodes may all run
 * it. Both this and `pendingReplies` read replies through the partial index `messages_replies_idx`
 * (migration 0101): their conditions on `direction` and `type` are its predicate.
 */
export const advanceCursors = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    UPDATE channel_api a SET out_cursor = GREATEST(a.out_cursor, COALESCE((
      SELECT max(m.id) FROM messages m
      WHERE m.direction = 'out' AND m.type <> 'note'
        AND m.id > a.out_cursor AND m.created_at < now() - make_interval(secs => ${CURSOR_LAG_SECONDS})
        AND m.id < COALESCE((
          SELECT min(m2.id) FROM messages m2 JOIN conversations cv2 ON cv2.id = m2.conversation_id
          WHERE cv2.channel_id = a.channel_id AND m2.direction = 'out' AND m2.type <> 'note'
            AND m2.id > a.out_cursor
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                            WHERE d.channel_id = a.channel_id AND d.subject = 'message.created:' || m2.id)
        ), 9223372036854775807)
    ), a.out_cursor))
    WHERE a.webhook_url IS NOT NULL`,
)

/**
 * Threads of channels subscribed to `conversation.updated` whose conversation changed status,
 * assignee or team since a tick last looked (`change_seq` past `notified_seq`, counted by a
 * trigger in the changing transaction; migration 0104), with the conversation's state now and
 * whether it differs from what was last announced (`notified`). Nodes running this at once tell
 * each change once: `lockForNotice` lets only the first look at a count through.
 */
export const changedConversations = (limit: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{
      channel_id: number
      external_id: string
      change_seq: number
      conversation_id: number
      status: string
      assignee_id: number | null
      team_id: number | null
      updated_at: Date
      retries: number
      differs: boolean
    }>`
      SELECT t.channel_id, t.external_id, t.change_seq::float8 AS change_seq, cv.id AS conversation_id,
             cv.status, cv.assignee_id, cv.team_id, cv.updated_at, a.retries,
             t.notified IS DISTINCT FROM
               jsonb_build_object('status', cv.status, 'assignee_id', cv.assignee_id, 'team_id', cv.team_id)
               AS differs
      FROM channel_api a
      JOIN channels c ON c.id = a.channel_id AND c.archived_at IS NULL
      JOIN channel_api_threads t ON t.channel_id = a.channel_id AND t.change_seq > t.notified_seq
      JOIN conversations cv ON cv.id = t.conversation_id
      WHERE a.webhook_url IS NOT NULL AND 'conversation.updated' = ANY(a.events)
      LIMIT ${limit}`,
  )

export interface ThreadState {
  readonly status: string
  readonly assignee_id: number | null
  readonly team_id: number | null
}

/**
 * Threads a tick read whose state was the one announced already (changed and changed back): their
 * count is taken as looked at, in one statement. Only where `notified` is still that state and no
 * newer look was recorded; otherwise the thread stays counted and the next tick compares it again.
 */
export const markSeen = (
  seen: ReadonlyArray<{
    readonly channel_id: number
    readonly external_id: string
    readonly seq: number
    readonly state: ThreadState
  }>,
) =>
  seen.length === 0
    ? Effect.void
    : Effect.flatMap(
        SqlClient.SqlClient,
        // Rows another transaction holds (a message write reopening the conversation, another
        // node telling it) are skipped, not waited for: many rows locked in no fixed order could
        // deadlock with them. A skipped thread stays counted for the next tick.
        (sql) => sql`
          WITH v AS (
            SELECT * FROM json_to_recordset(${JSON.stringify(seen)}::json)
              AS v(channel_id integer, external_id text, seq bigint, state jsonb)
          ), locked AS (
            SELECT t.channel_id, t.external_id, v.seq
            FROM channel_api_threads t
            JOIN v ON t.channel_id = v.channel_id AND t.external_id = v.external_id
            WHERE t.notified_seq < v.seq AND t.notified = v.state
            FOR UPDATE OF t SKIP LOCKED
          )
          UPDATE channel_api_threads t SET notified_seq = locked.seq
          FROM locked WHERE t.channel_id = locked.channel_id AND t.external_id = locked.external_id`,
      )

/**
 * Locks a thread for announcing the state a tick read at `seq`: null when another look at that
 * count or a later one was recorded (a node that read earlier must not tell an older state), else
 * whether the state differs from the one last announced. Run in the transaction that queues the
 * event and records the look (`setNotified`).
 */
export const lockForNotice = (channelId: number, externalId: string, seq: number, state: ThreadState) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ differs: boolean }>`
      SELECT notified IS DISTINCT FROM ${JSON.stringify(state)}::jsonb AS differs
      FROM channel_api_threads
      WHERE channel_id = ${channelId} AND external_id = ${externalId} AND notified_seq < ${seq}
      FOR UPDATE`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/** Records what a tick announced of a thread, and the count it read (see `lockForNotice`). */
export const setNotified = (channelId: number, externalId: string, seq: number, state: ThreadState) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`
      UPDATE channel_api_threads SET notified = ${JSON.stringify(state)}::jsonb, notified_seq = ${seq}
      WHERE channel_id = ${channelId} AND external_id = ${externalId}`,
  )

/** Starts the cursor at the newest message, so agent replies sent before a webhook URL existed are not replayed. */
export const resetCursorToNow = (channelId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`UPDATE channel_api SET out_cursor = (SELECT COALESCE(max(id), 0) FROM messages) WHERE channel_id = ${channelId}`,
  )

/** The message a client id already stored in this conversation, or null. */
export const storedMessage = (conversationId: number, clientId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<MessageRow>`SELECT * FROM messages WHERE conversation_id = ${conversationId} AND client_id = ${clientId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )
