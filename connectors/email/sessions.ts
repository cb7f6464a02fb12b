import { Cause, Context, Duration, Effect, Layer, Queue } from 'effect'
import type { ImapFlow } from 'imapflow'
import { ChannelActor } from '../../actors/channels/ChannelActor'
import { WallClock, type WallClockShape } from '../../engine/clock'
import { Config } from '../../engine/config'
import { Log } from '../../engine/log'
import * as ClaimsPg from '../../engine/owner/ClaimsPg'
import * as Owned from '../../engine/owner/Owned'
import * as Channels from '../../store/channels'
import * as Database from '../../store/database'
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
 * - A mail whose import fails is read again on the next pass (the database may have been out of
 *   reach). After IMPORT_TRIES failures, with the database answering, it is the mail's own fault:
 *   it is passed over (logged, still on the mail server) so that the mail after it arrives.
 */
export const LOCK_CLASS = 0x4b4f

const FOLDER_POLL_MS = 60_000
const MAX_PAUSE_MS = 60 * 60_000
const BATCH = 20
const IMPORT_TRIES = 5

export interface EmailSessionsShape {
  /** Channels whose mailbox this node runs now. */
  readonly running: () => readonly number[]
}

export class EmailSessions extends Context.Tag('kotak/EmailSessions')<EmailSessions, EmailSessionsShape>() {}

interface Deps {
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

/**
 * One mailbox's reading loop, a fiber of its work's scope (engine/owner): it ends with the
 * ownership (interrupted, its connection closed by the finalizer that opened it). An imported
 * message and its folder position are written together, never cut in half by a stop.
 */
const session = (channelId: number, state: SessionState, deps: Deps) => {
  /** Waits `ms`, or less when kicked or new mail arrived. */
  const sleep = (ms: number) =>
    state.kicked || state.inboxChanged
      ? Effect.void
      : Effect.zipRight(
          Queue.takeAll(state.bell),
          Effect.raceFirst(Effect.sleep(Duration.millis(ms)), Queue.take(state.bell)),
        )

  /**
   * A mail's import failed: fails the pass (it is read again) until its IMPORT_TRIES-th failure
   * with the database answering, then records the folder past it and logs it.
   */
  const passOver = <R>(
    mail: { readonly key: string; readonly folder: string; readonly uid: number },
    cause: Cause.Cause<unknown>,
    skip: Effect.Effect<unknown, unknown, R>,
  ) =>
    Effect.gen(function* () {
      if (Cause.isInterruptedOnly(cause)) return yield* Effect.failCause(cause)
      const tries = (state.failedImports.get(mail.key) ?? 0) + 1
      state.failedImports.set(mail.key, tries)
      if (tries < IMPORT_TRIES) return yield* Effect.failCause(cause)
      yield* Effect.catchAll(Database.ping, () => Effect.failCause(cause))
      yield* skip
      state.failedImports.delete(mail.key)
      deps.log('mail passed over', {
        channel_id: channelId,
        folder: mail.folder,
        uid: mail.uid,
        tries,
        error: String(Cause.squash(cause)),
      })
    })

  const syncFolder = (
    client: ImapFlow,
    channel: Channels.ChannelRow,
    mailbox: Email.EmailRow,
    folder: string,
  ) =>
    Effect.gen(function* () {
      const opened = yield* Effect.either(Owned.attempt(() => client.mailboxOpen(folder, { readOnly: true })))
      if (opened._tag === 'Left') {
        // A chosen folder removed on the server: the others are still read.
        deps.log('mailbox folder not readable', { channel_id: channelId, folder, error: String(opened.left) })
        return Number.MAX_SAFE_INTEGER
      }
      const box = opened.right
      const uidValidity = Number(box.uidValidity)
      const newest = Math.max(0, box.uidNext - 1)
      const saved = yield* Email.folderState(channelId, folder)
      let uids: number[]
      if (saved && saved.uidvalidity === uidValidity) {
        if (newest <= saved.last_uid) return box.uidNext
        const found = yield* Owned.attempt(() =>
          client.search({ uid: `${saved.last_uid + 1}:*` }, { uid: true }),
        )
        uids = (found || []).filter((u) => u > saved.last_uid)
      } else if (!saved && mailbox.history_days === 0) {
        yield* Email.saveFolderState(channelId, folder, uidValidity, newest)
        return box.uidNext
      } else {
        // First read, or the server renumbered the folder: the history window again; Message-IDs
        // already stored are skipped.
        const days = Math.max(mailbox.history_days, saved ? 1 : 0)
        const found = yield* Owned.attempt(() =>
          client.search({ since: new Date(deps.clock.unsafeMillis() - days * 86_400_000) }, { uid: true }),
        )
        uids = found || []
      }
      uids.sort((a, b) => a - b)
      const { importMail } = yield* Effect.promise(() => import('./inbound'))
      let last = saved && saved.uidvalidity === uidValidity ? saved.last_uid : 0
      for (let i = 0; i < uids.length; i += BATCH) {
        const batch = uids.slice(i, i + BATCH)
        const messages = yield* Owned.attempt(() =>
          client.fetchAll(batch.join(','), { uid: true, source: true }, { uid: true }),
        )
        messages.sort((a, b) => a.uid - b.uid)
        for (const m of messages) {
          const source = m.source
          const uid = Math.max(last, m.uid)
          const done = yield* Effect.exit(
            Effect.uninterruptible(
              Effect.zipRight(
                source ? importMail(channel, mailbox, folder, source) : Effect.void,
                Email.saveFolderState(channelId, folder, uidValidity, uid),
              ),
            ),
          )
          // Numbers first: no folder name can make two mails' keys alike.
          const key = `${uidValidity}:${m.uid}:${folder}`
          if (done._tag === 'Failure')
            yield* passOver(
              { key, folder, uid: m.uid },
              done.cause,
              Email.saveFolderState(channelId, folder, uidValidity, uid),
            )
          else state.failedImports.delete(key)
          last = uid
        }
      }
      if (!saved || saved.uidvalidity !== uidValidity) {
        yield* Email.saveFolderState(channelId, folder, uidValidity, Math.max(last, newest))
      }
      return box.uidNext
    })

  /**
   * IDLE is kept on the inbox between reads. Mail that arrived during a read (after its search)
   * may come with the re-selection rather than as an EXISTS notice: compare UIDNEXT to catch it.
   */
  const reopenInbox = (client: ImapFlow, seenUidNext: number) =>
    Effect.flatMap(
      Owned.attempt(() => client.mailboxOpen('INBOX', { readOnly: true })),
      (box) =>
        Effect.sync(() => {
          if (box.uidNext > seenUidNext) {
            state.inboxChanged = true
            Queue.unsafeOffer(state.bell, undefined)
          }
        }),
    )

  const syncAll = (client: ImapFlow, channel: Channels.ChannelRow, mailbox: Email.EmailRow) =>
    Effect.gen(function* () {
      const folders = new Set(['INBOX', ...mailbox.folders])
      if (mailbox.read_sent && mailbox.sent_folder) folders.add(mailbox.sent_folder)
      let inboxSeen = 0
      for (const folder of folders) {
        const seen = yield* syncFolder(client, channel, mailbox, folder)
        if (folder === 'INBOX') inboxSeen = seen
      }
      yield* Email.recordSuccess(channelId)
      yield* reopenInbox(client, inboxSeen)
    })

  /** Reads the mailbox over `client` until its connection drops. */
  const read = (client: ImapFlow, channel: Channels.ChannelRow, mailbox: Email.EmailRow) =>
    Effect.gen(function* () {
      let closed = false
      client.once('close', () => {
        closed = true
        Queue.unsafeOffer(state.bell, undefined)
      })
      client.on('exists', (info: { path: string }) => {
        if (info.path.toUpperCase() === 'INBOX') {
          state.inboxChanged = true
          Queue.unsafeOffer(state.bell, undefined)
        }
      })
      yield* Email.recordSuccess(channelId)
      // Active once the first read is done: mail arriving from then on is new mail.
      yield* syncAll(client, channel, mailbox)
      yield* setStatus(channelId, 'active')
      // The poll's spacing is real time: the monotonic clock.
      let lastFull = performance.now()
      while (!closed) {
        yield* sleep(Math.max(0, FOLDER_POLL_MS - (performance.now() - lastFull)))
        if (closed) break
        if (state.kicked || performance.now() - lastFull >= FOLDER_POLL_MS) {
          state.kicked = false
          state.inboxChanged = false
          yield* syncAll(client, channel, mailbox)
          lastFull = performance.now()
        } else if (state.inboxChanged) {
          state.inboxChanged = false
          yield* reopenInbox(client, yield* syncFolder(client, channel, mailbox, 'INBOX'))
        }
      }
    })

  /** Signs in (a refusal pauses the mailbox) and reads until the connection drops. */
  const once = Effect.gen(function* () {
    const channel = yield* Channels.byId(channelId)
    const mailbox = yield* Email.byChannel(channelId)
    if (!channel || !mailbox || channel.archived_at) return yield* sleep(deps.pollMs)
    const pausedFor = mailbox.paused_until ? mailbox.paused_until.getTime() - deps.clock.unsafeMillis() : 0
    if (pausedFor > 0 && !state.kicked) return yield* sleep(pausedFor)
    state.kicked = false
    // The mail libraries (imapflow, nodemailer) load with the first mailbox, not at start.
    const { connectImap, SignInRefused } = yield* Effect.promise(() => import('./mailbox'))
    const access = yield* accessOf(mailbox)
    // The connection is closed when the read ends, fails or is interrupted.
    const connected = yield* Effect.scoped(
      Effect.gen(function* () {
        const client = yield* Effect.either(
          Effect.acquireRelease(
            Owned.attempt(() => connectImap(access.imap, deps.policy)),
            (c) => Effect.sync(() => c.close()),
          ),
        )
        if (client._tag === 'Left') return client.left
        yield* read(client.right, channel, mailbox)
        return null
      }),
    )
    if (connected === null) {
      // A dropped connection: reconnect soon, without counting it as a failed sign-in.
      return yield* sleep(1000)
    }
    if (!(connected instanceof SignInRefused)) return yield* Effect.fail(connected)
    const refusal = connected.refusal
    // The failure's count, pause and status are written whole, even when the session is stopping.
    const pause = yield* Effect.uninterruptible(
      Effect.gen(function* () {
        const failures = yield* Email.recordFailure(channelId, refusal.reason, null)
        const pause = Math.min(deps.backoffBaseMs * 3 ** Math.max(0, failures - 1), MAX_PAUSE_MS)
        yield* Email.setPause(channelId, new Date(deps.clock.unsafeMillis() + pause))
        yield* setStatus(channelId, refusal.reason === 'auth' ? 'auth_failed' : 'unreachable')
        deps.log('mailbox sign-in failed', { channel_id: channelId, reason: refusal.reason, failures })
        return pause
      }),
    )
    yield* sleep(pause)
  })

  return Effect.forever(
    once.pipe(
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.failCause(cause)
          : Effect.zipRight(
              Effect.sync(() =>
                deps.log('mailbox session error', {
                  channel_id: channelId,
                  error: String(Cause.squash(cause)),
                }),
              ),
              sleep(Math.min(deps.backoffBaseMs, 5000)),
            ),
      ),
    ),
  )
}

/** What the supervisor and the session's loop share. */
interface SessionState {
  /** The newest sync request this session has seen (`sync_requested_at`). */
  seenRequest: number
  kicked: boolean
  inboxChanged: boolean
  /** Failed imports by folder, UIDVALIDITY and UID: how many times each failed (IMPORT_TRIES). */
  readonly failedImports: Map<string, number>
  /** Rings when the loop should look again (a kick, new mail, the connection closed). */
  readonly bell: Queue.Queue<void>
}

const make = Effect.gen(function* () {
  const cfg = yield* Config
  const logger = yield* Log
  const nudge = yield* EmailNudge
  const deps: Deps = {
    policy: { allowInsecure: cfg.emailAllowInsecure },
    backoffBaseMs: cfg.emailBackoffBaseMs,
    pollMs: cfg.emailPollMs,
    clock: yield* WallClock,
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
      Effect.gen(function* () {
        const state: SessionState = {
          seenRequest: r.sync_requested_at?.getTime() ?? 0,
          kicked: false,
          inboxChanged: false,
          failedImports: new Map(),
          bell: yield* Queue.sliding<void>(1),
        }
        // Runs while this node owns the mailbox: the work's scope interrupts it on stop.
        yield* Effect.forkScoped(Effect.interruptible(session(r.channel_id, state, deps)))
        return {
          // `POST /channels/{id}/sync` stamps the row: a newer stamp reads the mailbox now.
          listed: (row: typeof r) =>
            Effect.sync(() => {
              const requested = row.sync_requested_at?.getTime() ?? 0
              if (requested > state.seenRequest) {
                state.seenRequest = requested
                state.kicked = true
                Queue.unsafeOffer(state.bell, undefined)
              }
            }),
        }
      }),
  })
  return { running: owned.running } satisfies EmailSessionsShape
})

export const layer = Layer.scoped(EmailSessions, make)
