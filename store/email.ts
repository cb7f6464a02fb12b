import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { pgArray } from './arrays'
import type { ChannelRow } from './channels'

/**
 * E-mail channels (spec 1 §4.4): mailbox settings with sealed passwords, the session's sync state,
 * the read position per folder (UIDVALIDITY + last UID) and the Message-IDs that thread mail.
 */
export type Security = 'ssl' | 'starttls'

export interface EmailRow {
  readonly channel_id: number
  readonly address: string
  readonly username: string
  readonly password_sealed: string
  readonly imap_host: string
  readonly imap_port: number
  readonly imap_security: Security
  readonly smtp_host: string
  readonly smtp_port: number
  readonly smtp_security: Security
  readonly smtp_username: string | null
  readonly smtp_password_sealed: string | null
  readonly folders: readonly string[]
  readonly sent_folder: string | null
  readonly read_sent: boolean
  readonly save_sent: boolean
  readonly history_days: number
  readonly sender_name: string
  readonly sender_with_agent: boolean
  readonly signature_html: string
  readonly ignore: readonly string[]
  readonly version: number
  readonly failures: number
  readonly paused_until: Date | null
  readonly last_error: string | null
  readonly last_sync_at: Date | null
  readonly sync_requested_at: Date | null
  readonly created_at: Date
}

export interface EmailSettings {
  readonly address: string
  readonly username: string
  readonly passwordSealed: string
  readonly imapHost: string
  readonly imapPort: number
  readonly imapSecurity: Security
  readonly smtpHost: string
  readonly smtpPort: number
  readonly smtpSecurity: Security
  readonly smtpUsername: string | null
  readonly smtpPasswordSealed: string | null
  readonly folders: readonly string[]
  readonly sentFolder: string | null
  readonly readSent: boolean
  readonly saveSent: boolean
  readonly historyDays: number
  readonly senderName: string
  readonly senderWithAgent: boolean
  readonly signatureHtml: string
  readonly ignore: readonly string[]
}

export const byChannel = (channelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<EmailRow>`SELECT * FROM channel_email WHERE channel_id = ${channelId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** Whether a live channel of any workspace has this address already. */
export const addressTaken = (address: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      SELECT 1 FROM channel_email e JOIN channels c ON c.id = e.channel_id
      WHERE lower(e.address) = ${address.toLowerCase()} AND c.archived_at IS NULL LIMIT 1`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )

export type CreateOutcome =
  | { readonly _tag: 'Created'; readonly channel: ChannelRow; readonly email: EmailRow }
  | { readonly _tag: 'QuotaFull' }
  | { readonly _tag: 'AddressTaken'; readonly sameWorkspace: boolean }

/**
 * Creates the channel and its mailbox unless the quota (shared by every type; 0 = unlimited) is
 * used up or the address is connected already (in any workspace: an address lives in one only).
 * The workspace row and the address (a transaction-level advisory lock on its lower-case form)
 * are locked for the checks, so concurrent connects cannot overshoot or connect one address twice.
 */
export const createWithinQuota = (workspaceId: number, limit: number, name: string, s: EmailSettings) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT id FROM workspaces WHERE id = ${workspaceId} FOR UPDATE`
        yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`email:${s.address.toLowerCase()}`}))`
        const [taken] = yield* sql<{ workspace_id: number }>`
          SELECT c.workspace_id FROM channel_email e JOIN channels c ON c.id = e.channel_id
          WHERE lower(e.address) = ${s.address.toLowerCase()} AND c.archived_at IS NULL LIMIT 1`
        if (taken) return { _tag: 'AddressTaken', sameWorkspace: taken.workspace_id === workspaceId } as const
        const [{ n }] = (yield* sql<{ n: number }>`
          SELECT count(*) AS n FROM channels WHERE workspace_id = ${workspaceId} AND archived_at IS NULL`) as [
          { n: number },
        ]
        if (limit > 0 && n >= limit) return { _tag: 'QuotaFull' } as const
        const [channel] = yield* sql<ChannelRow>`
          INSERT INTO channels (workspace_id, type, name, status)
          VALUES (${workspaceId}, 'email', ${name}, 'connecting') RETURNING *`
        const [email] = yield* sql<EmailRow>`
          INSERT INTO channel_email (channel_id, address, username, password_sealed, imap_host, imap_port,
            imap_security, smtp_host, smtp_port, smtp_security, smtp_username, smtp_password_sealed, folders,
            sent_folder, read_sent, save_sent, history_days, sender_name, sender_with_agent, signature_html, ignore)
          VALUES (${channel!.id}, ${s.address}, ${s.username}, ${s.passwordSealed}, ${s.imapHost}, ${s.imapPort},
            ${s.imapSecurity}, ${s.smtpHost}, ${s.smtpPort}, ${s.smtpSecurity}, ${s.smtpUsername},
            ${s.smtpPasswordSealed}, ${pgArray(s.folders)}::text[], ${s.sentFolder}, ${s.readSent}, ${s.saveSent},
            ${s.historyDays}, ${s.senderName}, ${s.senderWithAgent}, ${s.signatureHtml}, ${pgArray(s.ignore)}::text[])
          RETURNING *`
        return { _tag: 'Created', channel: channel!, email: email! } as const
      }),
    ),
  )

/**
 * Replaces the settings (a new version: the running session restarts with them) and clears any
 * pause. A changed address is checked like a new one: null when it is connected elsewhere.
 */
export const update = (channelId: number, s: Omit<EmailSettings, 'historyDays'>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`email:${s.address.toLowerCase()}`}))`
        const [taken] = yield* sql`
          SELECT 1 FROM channel_email e JOIN channels c ON c.id = e.channel_id
          WHERE lower(e.address) = ${s.address.toLowerCase()} AND c.archived_at IS NULL
            AND e.channel_id <> ${channelId} LIMIT 1`
        if (taken) return { _tag: 'AddressTaken' } as const
        const [row] = yield* sql<EmailRow>`
          UPDATE channel_email SET address = ${s.address}, username = ${s.username},
            password_sealed = ${s.passwordSealed},
            imap_host = ${s.imapHost}, imap_port = ${s.imapPort}, imap_security = ${s.imapSecurity},
            smtp_host = ${s.smtpHost}, smtp_port = ${s.smtpPort}, smtp_security = ${s.smtpSecurity},
            smtp_username = ${s.smtpUsername}, smtp_password_sealed = ${s.smtpPasswordSealed},
            folders = ${pgArray(s.folders)}::text[], sent_folder = ${s.sentFolder}, read_sent = ${s.readSent},
            save_sent = ${s.saveSent}, sender_name = ${s.senderName}, sender_with_agent = ${s.senderWithAgent},
            signature_html = ${s.signatureHtml}, ignore = ${pgArray(s.ignore)}::text[],
            version = version + 1, failures = 0, paused_until = NULL
          WHERE channel_id = ${channelId} RETURNING *`
        return row ? ({ _tag: 'Updated', email: row } as const) : null
      }),
    ),
  )

/** Asks the node running the mailbox to check it now, skipping a pause after failed sign-ins. */
export const requestSync = (channelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<EmailRow>`
      UPDATE channel_email SET sync_requested_at = clock_timestamp(), paused_until = NULL
      WHERE channel_id = ${channelId} RETURNING *`.pipe(Effect.map((r) => r[0] ?? null)),
  )

export interface ActiveMailbox {
  readonly channel_id: number
  readonly version: number
  readonly sync_requested_at: Date | null
}

/** Every live e-mail channel: what the session supervisors keep running. */
export const active = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql<ActiveMailbox>`
    SELECT e.channel_id, e.version, e.sync_requested_at FROM channel_email e
    JOIN channels c ON c.id = e.channel_id WHERE c.archived_at IS NULL ORDER BY e.channel_id`,
)

export const recordSuccess = (channelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE channel_email SET failures = 0, paused_until = NULL, last_error = NULL, last_sync_at = now()
        WHERE channel_id = ${channelId}`.pipe(Effect.asVoid),
  )

/** One more failed sign-in; answers the failure count. */
export const recordFailure = (channelId: number, error: string, pausedUntil: Date | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ failures: number }>`
      UPDATE channel_email SET failures = failures + 1, last_error = ${error.slice(0, 500)},
        paused_until = ${pausedUntil}
      WHERE channel_id = ${channelId} RETURNING failures`.pipe(Effect.map((r) => r[0]?.failures ?? 0)),
  )

export const setPause = (channelId: number, pausedUntil: Date | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE channel_email SET paused_until = ${pausedUntil} WHERE channel_id = ${channelId}`.pipe(
      Effect.asVoid,
    ),
  )

// ---- Read position per folder ----------------------------------------------------------------

export interface FolderState {
  readonly uidvalidity: number
  readonly last_uid: number
}

export const folderState = (channelId: number, folder: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<FolderState>`
      SELECT uidvalidity, last_uid FROM email_folder_state WHERE channel_id = ${channelId} AND folder = ${folder}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const saveFolderState = (channelId: number, folder: string, uidvalidity: number, lastUid: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      INSERT INTO email_folder_state (channel_id, folder, uidvalidity, last_uid)
      VALUES (${channelId}, ${folder}, ${uidvalidity}, ${lastUid})
      ON CONFLICT (channel_id, folder) DO UPDATE SET uidvalidity = EXCLUDED.uidvalidity,
        last_uid = GREATEST(CASE WHEN email_folder_state.uidvalidity = EXCLUDED.uidvalidity
                                 THEN email_folder_state.last_uid ELSE 0 END, EXCLUDED.last_uid)`.pipe(
      Effect.asVoid,
    ),
  )

// ---- Threading --------------------------------------------------------------------------------

/** The conversation of the newest known Message-ID among `ids` (References, In-Reply-To), or null. */
export const conversationOf = (channelId: number, ids: readonly string[]) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    ids.length === 0
      ? Effect.succeed(null)
      : sql<{ conversation_id: number }>`
          SELECT e.conversation_id FROM email_message_ids e JOIN conversations c ON c.id = e.conversation_id
          WHERE e.channel_id = ${channelId} AND e.message_id = ANY(${pgArray(ids)}::text[])
          ORDER BY e.created_at DESC LIMIT 1`.pipe(Effect.map((r) => r[0]?.conversation_id ?? null)),
  )

export const knownMessageId = (channelId: number, messageId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT 1 FROM email_message_ids WHERE channel_id = ${channelId} AND message_id = ${messageId}`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )

export const rememberMessageId = (
  channelId: number,
  messageId: string,
  conversationId: number,
  messageRowId: number | null,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      INSERT INTO email_message_ids (channel_id, message_id, conversation_id, message_row_id)
      VALUES (${channelId}, ${messageId}, ${conversationId}, ${messageRowId})
      ON CONFLICT (channel_id, message_id) DO NOTHING`.pipe(Effect.asVoid),
  )

/** Message-IDs of a conversation, oldest first: the `References` of a reply. */
export const threadIds = (conversationId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ message_id: string }>`
      SELECT message_id FROM email_message_ids WHERE conversation_id = ${conversationId}
      ORDER BY created_at, message_id LIMIT 50`.pipe(Effect.map((r) => r.map((x) => x.message_id))),
  )

/** The workspace's contact with this address (the oldest), or null. */
export const contactByEmail = (workspaceId: number, address: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      SELECT COALESCE(merged_into, id) AS id FROM contacts WHERE workspace_id = ${workspaceId}
        AND lower(email) = ${address.toLowerCase()} AND deleting_at IS NULL
      ORDER BY id LIMIT 1`.pipe(Effect.map((r) => r[0]?.id ?? null)),
  )

export interface PreviousMail {
  readonly body: string
  readonly created_at: Date
  readonly sender: Readonly<Record<string, unknown>> | null
  readonly email: Readonly<Record<string, unknown>>
}

/** The newest received mail of a conversation: what a reply answers, quotes and threads under. */
export const lastReceived = (conversationId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<PreviousMail>`
      SELECT body, created_at, sender, payload->'email' AS email FROM messages
      WHERE conversation_id = ${conversationId} AND direction = 'in' AND deleted_at IS NULL
        AND jsonb_typeof(payload->'email') = 'object'
      ORDER BY seq DESC LIMIT 1`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/** Who wrote a message (the agent's name on an outgoing mail). */
export const senderNameOf = (messageId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ name: string | null }>`SELECT sender->>'name' AS name FROM messages WHERE id = ${messageId}`.pipe(
      Effect.map((r) => r[0]?.name ?? null),
    ),
  )
