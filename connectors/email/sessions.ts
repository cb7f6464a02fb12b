import type { SqlClient } from '@effect/sql'
import { Context, Effect, Layer, Runtime } from 'effect'
import type { ImapFlow } from 'imapflow'
import { ChannelActor } from '../../actors/channels/ChannelActor'
import type { ConversationActor } from '../../actors/inbox/ConversationActor'
import type { Bus } from '../../engine/bus/Bus'
import { WallClock, type WallClockShape } from '../../engine/clock'
import { Config } from '../../engine/config'
import { Log } from '../../engine/log'
import * as ClaimsPg from '../../engine/owner/ClaimsPg'
import * as Owned from '../../engine/owner/Owned'
import type { FileStorage } from '../../engine/storage/FileStorage'
import * as Channels from '../../store/channels'
import * as Email from '../../store/email'
import { accessOf } from './access'
import type { Policy } from './mailbox'
import { EmailNudge } from './nudge'

/**
 * EmailSessions: keeps one IMAP session per live e-mail channel, on exactly one node.
 *
 * - Which channels: every poll (EMAIL_POLL_MS) and on a local nudge, the live e-mail channels are
 *   read from PostgreSQL; new ones start, removed ones stop, a changed settings `version` restarts.
 * - One node per mailbox: a session runs only while this node owns the channel (`Owned`, with
 *   the advisory lock `(LOCK_CLASS, channel id)`). If the lock connection breaks, every session
 *   here stops and the next poll competes again. The embedded database is one node: no lock.
 * - Reading: INBOX (kept open in IDLE: new mail arrives within seconds), the chosen folders and,
 *   with `read_sent`, the Sent folder (checked every FOLDER_POLL_MS and on a sync request). The
 *   last UID read per folder is stored with the folder's UIDVALIDITY, so a restart resumes after
 *   it; the first read of a folder takes the `history_days` window.
 * - Sign-in failures: each one pauses the mailbox (EMAIL_BACKOFF_BASE_MS × 3ⁿ, at most an hour)
 *   and sets the channel status (`auth_failed` or `unreachable`, `channel.updated` through the
 *   ChannelActor); `POST /channels/{id}/sync` skips the pause.
 */
export const LOCK_CLASS = 0x4b4f

const FOLDER_POLL_MS = 60_000
const MAX_PAUSE_MS = 60 * 60_000
const BATCH = 20

type Needs =
  | SqlClient.SqlClient
  | Config
  | Log
  | ConversationActor
  | ChannelActor
  | FileStorage
  | Bus
  | WallClock

export interface EmailSessionsShape {
  /** Channels whose mailbox this node runs now. */
  readonly running: () => readonly number[]
}

export class EmailSessions extends Context.Tag('kotak/EmailSessions')<EmailSessions, EmailSessionsShape>() {}

type Run = <A, E>(e: Effect.Effect<A, E, Needs>) => Promise<A>

interface Deps {
  readonly run: Run
  readonly policy: Policy
  readonly backoffBaseMs: number
  readonly pollMs: number
  /** The node's clock, read synchronously by the session's loop. */
  readonly clock: WallClockShape
  readonly log: (msg: string, fields: Record<string, unknown>) => void
}

const setStatus = (channelId: number, status: string) =>
  Effect.flatMap(ChannelActor, (a) => a.ask(channelId, { _tag: 'SetStatus', status })).pipe(
    Effect.catchTag('ChannelNotFound', () => Effect.void),
    Effect.asVoid,
  )

/** One mailbox's reading loop; `stop` ends it and closes its connection. */
class Session {
  private stopped = false
  private kicked = false
  private inboxChanged = false
  private wake: (() => void) | null = null
  private client: ImapFlow | null = null
  readonly done: Promise<void>
  seenRequest: number

  constructor(
    readonly channelId: number,
    requestedAt: number,
    private readonly deps: Deps,
  ) {
    this.seenRequest = requestedAt
    this.done = this.loop()
  }

  kick() {
    this.kicked = true
    this.wake?.()
  }

  async stop() {
    this.stopped = true
    this.wake?.()
    this.client?.close()
    await this.done
  }

  /** Waits `ms`, or less when stopped, kicked or new mail arrived. */
  private sleep(ms: number) {
    if (this.stopped || this.kicked || this.inboxChanged) return Promise.resolve()
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.wake = null
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.wake = done
    })
  }

  private async loop() {
    while (!this.stopped) {
      try {
        await this.once()
      } catch (e) {
        if (this.stopped) break
        this.deps.log('mailbox session error', { channel_id: this.channelId, error: String(e) })
        await this.sleep(Math.min(this.deps.backoffBaseMs, 5000))
      }
    }
  }

  private async once() {
    const { run } = this.deps
    const channel = await run(Channels.byId(this.channelId))
    const mailbox = await run(Email.byChannel(this.channelId))
    if (!channel || !mailbox || channel.archived_at) {
      await this.sleep(this.deps.pollMs)
      return
    }
    const pausedFor = mailbox.paused_until
      ? mailbox.paused_until.getTime() - this.deps.clock.unsafeMillis()
      : 0
    if (pausedFor > 0 && !this.kicked) {
      await this.sleep(pausedFor)
      return
    }
    this.kicked = false
    // The mail libraries (imapflow, nodemailer) load with the first mailbox, not at start.
    const { connectImap, SignInRefused } = await import('./mailbox')
    const access = await run(accessOf(mailbox))
    let client: ImapFlow
    try {
      client = await connectImap(access.imap, this.deps.policy)
    } catch (e) {
      if (!(e instanceof SignInRefused) || this.stopped) throw e
      const failures = await run(Email.recordFailure(this.channelId, e.refusal.reason, null))
      const pause = Math.min(this.deps.backoffBaseMs * 3 ** Math.max(0, failures - 1), MAX_PAUSE_MS)
      await run(Email.setPause(this.channelId, new Date(this.deps.clock.unsafeMillis() + pause)))
      await run(setStatus(this.channelId, e.refusal.reason === 'auth' ? 'auth_failed' : 'unreachable'))
      this.deps.log('mailbox sign-in failed', {
        channel_id: this.channelId,
        reason: e.refusal.reason,
        failures,
      })
      await this.sleep(pause)
      return
    }
    this.client = client
    let closed = false
    client.once('close', () => {
      closed = true
      this.wake?.()
    })
    client.on('exists', (info: { path: string }) => {
      if (info.path.toUpperCase() === 'INBOX') {
        this.inboxChanged = true
        this.wake?.()
      }
    })
    try {
      await run(Email.recordSuccess(this.channelId))
      // Active once the first read is done: mail arriving from then on is new mail.
      await this.syncAll(client, channel, mailbox)
      await run(setStatus(this.channelId, 'active'))
      // The poll's spacing is real time: the monotonic clock.
      let lastFull = performance.now()
      while (!this.stopped && !closed) {
        await this.sleep(Math.max(0, FOLDER_POLL_MS - (performance.now() - lastFull)))
        if (this.stopped || closed) break
        if (this.kicked || performance.now() - lastFull >= FOLDER_POLL_MS) {
          this.kicked = false
          this.inboxChanged = false
          await this.syncAll(client, channel, mailbox)
          lastFull = performance.now()
        } else if (this.inboxChanged) {
          this.inboxChanged = false
          await this.reopenInbox(client, await this.syncFolder(client, channel, mailbox, 'INBOX'))
        }
      }
    } finally {
      this.client = null
      client.close()
    }
    // A dropped connection: reconnect soon, without counting it as a failed sign-in.
    if (!this.stopped) await this.sleep(1000)
  }

  private async syncAll(client: ImapFlow, channel: Channels.ChannelRow, mailbox: Email.EmailRow) {
    const folders = new Set(['INBOX', ...mailbox.folders])
    if (mailbox.read_sent && mailbox.sent_folder) folders.add(mailbox.sent_folder)
    let inboxSeen = 0
    for (const folder of folders) {
      if (this.stopped) return
      const seen = await this.syncFolder(client, channel, mailbox, folder)
      if (folder === 'INBOX') inboxSeen = seen
    }
    await this.deps.run(Email.recordSuccess(this.channelId))
    await this.reopenInbox(client, inboxSeen)
  }

  /**
   * IDLE is kept on the inbox between reads. Mail that arrived during a read (after its search)
   * may come with the re-selection rather than as an EXISTS notice: compare UIDNEXT to catch it.
   */
  private async reopenInbox(client: ImapFlow, seenUidNext: number) {
    const box = await client.mailboxOpen('INBOX', { readOnly: true })
    if (box.uidNext > seenUidNext) {
      this.inboxChanged = true
      this.wake?.()
    }
  }

  private async syncFolder(
    client: ImapFlow,
    channel: Channels.ChannelRow,
    mailbox: Email.EmailRow,
    folder: string,
  ): Promise<number> {
    const { run } = this.deps
    let box: Awaited<ReturnType<ImapFlow['mailboxOpen']>>
    try {
      box = await client.mailboxOpen(folder, { readOnly: true })
    } catch (e) {
      // A chosen folder removed on the server: the others are still read.
      this.deps.log('mailbox folder not readable', { channel_id: this.channelId, folder, error: String(e) })
      return Number.MAX_SAFE_INTEGER
    }
    const uidValidity = Number(box.uidValidity)
    const newest = Math.max(0, box.uidNext - 1)
    const state = await run(Email.folderState(this.channelId, folder))
    let uids: number[]
    if (state && state.uidvalidity === uidValidity) {
      if (newest <= state.last_uid) return box.uidNext
      const found = await client.search({ uid: `${state.last_uid + 1}:*` }, { uid: true })
      uids = (found || []).filter((u) => u > state.last_uid)
    } else if (!state && mailbox.history_days === 0) {
      await run(Email.saveFolderState(this.channelId, folder, uidValidity, newest))
      return box.uidNext
    } else {
      // First read, or the server renumbered the folder: the history window again; Message-IDs
      // already stored are skipped.
      const days = Math.max(mailbox.history_days, state ? 1 : 0)
      const found = await client.search(
        { since: new Date(this.deps.clock.unsafeMillis() - days * 86_400_000) },
        { uid: true },
      )
      uids = found || []
    }
    uids.sort((a, b) => a - b)
    const { importMail } = await import('./inbound')
    let last = state && state.uidvalidity === uidValidity ? state.last_uid : 0
    for (let i = 0; i < uids.length && !this.stopped; i += BATCH) {
      const batch = uids.slice(i, i + BATCH)
      const messages = await client.fetchAll(batch.join(','), { uid: true, source: true }, { uid: true })
      messages.sort((a, b) => a.uid - b.uid)
      for (const m of messages) {
        if (this.stopped) return box.uidNext
        if (m.source) {
          await run(
            importMail(channel, mailbox, folder, m.source, `${this.channelId}.${uidValidity}.${m.uid}`),
          )
        }
        last = Math.max(last, m.uid)
        await run(Email.saveFolderState(this.channelId, folder, uidValidity, last))
      }
    }
    if (!state || state.uidvalidity !== uidValidity) {
      await run(Email.saveFolderState(this.channelId, folder, uidValidity, Math.max(last, newest)))
    }
    return box.uidNext
  }
}

const make = Effect.gen(function* () {
  const cfg = yield* Config
  const logger = yield* Log
  const nudge = yield* EmailNudge
  const rt = yield* Effect.runtime<Needs>()
  const run: Run = (e) => Runtime.runPromise(rt)(e)
  const deps: Deps = {
    run,
    policy: { allowInsecure: cfg.emailAllowInsecure },
    backoffBaseMs: cfg.emailBackoffBaseMs,
    pollMs: cfg.emailPollMs,
    clock: Context.get(rt.context, WallClock),
    log: (msg, fields) => logger.warn(msg, fields),
  }
  const owned = yield* Owned.supervise({
    name: 'mailbox',
    pollMs: cfg.emailPollMs,
    claims: ClaimsPg.makeConfig(cfg.databaseUrl, LOCK_CLASS),
    list: Email.active,
    key: (r) => r.channel_id,
    version: (r) => r.version,
    wake: nudge.on,
    start: (r) =>
      Effect.sync(() => {
        const session = new Session(r.channel_id, r.sync_requested_at?.getTime() ?? 0, deps)
        return {
          // `POST /channels/{id}/sync` stamps the row: a newer stamp reads the mailbox now.
          listed: (row: typeof r) =>
            Effect.sync(() => {
              const requested = row.sync_requested_at?.getTime() ?? 0
              if (requested > session.seenRequest) {
                session.seenRequest = requested
                session.kick()
              }
            }),
          stop: () => Effect.promise(() => session.stop()),
        }
      }),
  })
  return { running: owned.running } satisfies EmailSessionsShape
})

export const layer = Layer.scoped(EmailSessions, make)
