import { Clock, Duration, Effect } from 'effect'
import { currentMillis, currentTime } from '../../engine/clock'
import { iso, localParts, startOfLocalDay } from '../../engine/time'
import * as Recipients from '../../store/broadcastRecipients'
import * as Broadcasts from '../../store/broadcasts'
import * as Channels from '../../store/channels'
import * as Contacts from '../../store/contacts'
import * as Files from '../../store/files'
import * as Msgapp from '../../store/msgapp'
import * as Workspaces from '../../store/workspaces'
import { warmupOf } from '../channels/msgapp'
import { ConversationActor } from '../inbox/ConversationActor'
import * as Notifications from '../notifications'
import * as Delivery from './delivery'
import { broadcastsChanged, EVENT_GAP_MS } from './events'
import { decide, render, type Settings, settingsOf } from './rules'

/**
 * BroadcastActor: the sender of one running broadcast, on the one node that owns it (senders.ts,
 * `Owned` over a PostgreSQL advisory lock per broadcast). It sends the locked list in order, one
 * message at a time, through the number's ChannelActor (30 a minute) and connector (warm-up, send
 * log, restriction detection), paced by the clock port (`decide` in rules.ts): the broadcast's
 * pace plus a random delay, quiet hours in the workspace zone, its daily cap, the number's warm-up
 * allowance.
 *
 * Exactly once. Every recipient goes queued → sending (claimed by a conditional update) → the
 * message stored in the contact's chat under the client id `bc:<recipient>:<attempt>` (a second
 * store of it returns the first) → `handed_at` written → handed to the number → sent or failed
 * recorded. The step from `handed_at` to the outcome is uninterruptible, so a stop (pause, cancel,
 * shutdown, a lost lock) waits for the message in flight. After a crash, a recipient left in
 * `sending` is resolved before anything else: not handed yet → queued again (safe: nothing left
 * the server); handed → the outcome is read from the message and the number's send log; when
 * neither knows (the node died between handing over and writing the log) it is marked failed
 * `interrupted` and NOT sent again: a broadcast never sends a recipient twice by itself (a manager
 * may choose `/retry`). docs/decisions.md, "Broadcasts", has the argument.
 */
const RESTRICTION = /\((403|463)\)\s*$/
export const INTERRUPTED =
  'Interrupted while the number was sending it: it may or may not have arrived, so it was not sent again.'

/** A stored message a cancel stopped before the number had it. */
export const CANCELLED = 'Not sent: the broadcast was cancelled before this message went out.'

const DAY = 86_400_000

/** A random delay for the next message, uniform in [0, random_delay_seconds]. */
const jitterOf = (s: Settings) => Math.floor(Math.random() * s.random_delay_seconds * 1000)

const TITLES = {
  number_restricted: {
    en: 'Broadcasts on {name} were paused: the number was restricted by the messaging service.',
    id: 'Siaran pada {name} dijeda: nomor dibatasi oleh layanan pesan.',
  },
  number_unavailable: {
    en: 'Broadcasts on {name} were paused: the number is not available.',
    id: 'Siaran pada {name} dijeda: nomor tidak tersedia.',
  },
} as const

/** Pauses every running or scheduled broadcast of the number at once and tells the managers. */
export const pauseNumber = (channel: Channels.ChannelRow, reason: keyof typeof TITLES) =>
  Effect.gen(function* () {
    const paused = yield* Broadcasts.pauseAllOnNumber(channel.id, reason)
    if (paused.length === 0) return
    for (const p of paused) yield* broadcastsChanged(p.workspace_id, p.id, 'paused', { pause_reason: reason })
    for (const m of yield* Broadcasts.managers(channel.workspace_id)) {
      yield* Notifications.notify({
        workspaceId: channel.workspace_id,
        userId: m.user_id,
        kind: 'broadcast.paused',
        title: TITLES[reason][m.locale === 'id' ? 'id' : 'en'].replace('{name}', channel.name),
        link: '/broadcasts',
        data: { channel_id: channel.id, reason, broadcast_ids: paused.map((p) => p.id) },
      })
    }
  })

/** Marks a stored message failed (the inbox shows it), ignoring a conversation gone meanwhile. */
export const failMessage = (conversationId: number, messageId: number, reason: string) =>
  Effect.flatMap(ConversationActor, (a) =>
    a.ask(conversationId, { _tag: 'Delivered', messageId, delivery: { _tag: 'Rejected', reason } }),
  ).pipe(Effect.catchAll(() => Effect.void))

/** Recipients a stopped sender left in `sending`, resolved without sending anything twice. */
export const resolveClaimed = (b: Broadcasts.BroadcastRow) =>
  Effect.gen(function* () {
    for (const r of yield* Recipients.sending(b.id)) {
      const at = yield* currentTime
      if (r.handed_at === null) {
        yield* Recipients.release(r.id)
        continue
      }
      const m = r.message_id === null ? null : yield* Recipients.messageState(r.message_id)
      if (m && ['sent', 'delivered', 'read'].includes(m.status)) {
        yield* Recipients.finish(r.id, { _tag: 'Sent', externalId: m.external_id, at })
        continue
      }
      if (m && m.status === 'failed') {
        yield* Recipients.finish(r.id, { _tag: 'Failed', reason: m.error ?? 'failed', at })
        continue
      }
      const log =
        r.message_id === null || b.channel_id === null
          ? null
          : yield* Recipients.sendLogOf(b.channel_id, r.message_id)
      if (log?.ok) yield* Recipients.finish(r.id, { _tag: 'Sent', externalId: null, at })
      else if (log) yield* Recipients.finish(r.id, { _tag: 'Failed', reason: log.error ?? 'failed', at })
      else {
        yield* Recipients.finish(r.id, { _tag: 'Failed', reason: INTERRUPTED, at })
        if (r.conversation_id !== null && r.message_id !== null)
          yield* failMessage(r.conversation_id, r.message_id, INTERRUPTED)
      }
    }
  })

/** One claimed recipient: stored, handed to the number, outcome recorded. */
const sendOne = (
  b: Broadcasts.BroadcastRow,
  workspace: Workspaces.WorkspaceRow,
  channel: Channels.ChannelRow,
  r: Recipients.RecipientRow,
) =>
  Effect.gen(function* () {
    const at = yield* currentTime
    const contact = r.contact_id === null ? null : yield* Contacts.byId(workspace.id, r.contact_id)
    // The audience was fixed at schedule; who a contact is now decides whether they get it: one
    // merged away or being deleted is gone, and one who opted out since is not messaged.
    if (!contact?.phone || contact.merged_into !== null || contact.deleting_at !== null) {
      yield* Recipients.finish(r.id, { _tag: 'Failed', reason: 'The contact or its phone was removed.', at })
      return { restricted: false }
    }
    if (contact.broadcast_opt_out) {
      yield* Recipients.finish(r.id, { _tag: 'Skipped', reason: 'opted_out' })
      return { restricted: false }
    }
    const variant = b.messages[r.variant] ?? b.messages[0]!
    const body = render(variant, contact)
    const file = b.file_id === null ? null : yield* Files.byId(workspace.id, b.file_id)
    const prepared = yield* Delivery.prepare(
      workspace,
      channel,
      contact.id,
      body,
      file,
      `bc:${r.id}:${r.attempt}`,
      { name: b.name, broadcast_id: b.id },
      { broadcast_id: b.id },
    )
    const noted = yield* Recipients.setMessage(r.id, prepared.conversation.id, prepared.message.id, body)
    if (!(yield* Recipients.markHanded(r.id, yield* currentTime))) {
      // A pause or a cancel took the claim back first: nothing is handed over. Paused, the stored
      // message waits for the resume (same client id); cancelled before it was noted on the
      // recipient (else the cancel answered it), it is shown failed rather than pending.
      if (!noted && (yield* Recipients.stateOf(r.id)) === 'skipped')
        yield* failMessage(prepared.conversation.id, prepared.message.id, CANCELLED)
      return { restricted: false }
    }
    const sent = yield* Delivery.handOver(workspace, channel, prepared).pipe(
      Effect.catchAll(() => Effect.succeed(null)),
    )
    const done = yield* currentTime
    if (sent && sent.status !== 'failed') {
      yield* Recipients.finish(r.id, { _tag: 'Sent', externalId: sent.external_id, at: done })
      return { restricted: false }
    }
    const reason = sent?.error ?? 'The message could not be recorded.'
    yield* Recipients.finish(r.id, { _tag: 'Failed', reason, at: done })
    return { restricted: RESTRICTION.test(reason) }
  })

/** Sends of this broadcast today (local day) and when it last sent; the number's warm-up use. */
const paceInput = (
  b: Broadcasts.BroadcastRow,
  workspace: Workspaces.WorkspaceRow,
  channelId: number,
  nowMs: number,
) =>
  Effect.gen(function* () {
    const l = localParts(new Date(nowMs), workspace.timezone)
    const midnight = startOfLocalDay(l.year, l.month, l.day, workspace.timezone)
    const mine = yield* Recipients.sentSince(b.id, midnight)
    const n = yield* Msgapp.byChannel(channelId)
    const w = warmupOf(n?.linked_at ?? null, nowMs)
    const warmup = w
      ? { limit: w.limit, sent24h: yield* Recipients.numberSentSince(channelId, new Date(nowMs - DAY)) }
      : null
    return { sentToday: mine.n, lastSentMs: mine.last?.getTime() ?? null, warmup }
  })

/**
 * Sleeps until the clock reads `untilMs`, looking at it at least every `tickMs` of real time (a
 * test that moves the clock is followed within one tick).
 */
const sleepUntil = (untilMs: number, tickMs: number) =>
  Effect.gen(function* () {
    for (;;) {
      const now = yield* currentMillis
      if (now >= untilMs) return
      yield* Effect.sleep(Duration.millis(Math.max(1, Math.min(tickMs, untilMs - now))))
    }
  })

/** The sender's loop for one broadcast; ends when it is completed, paused, cancelled or gone. */
export const run = (broadcastId: number, tickMs: number) =>
  Effect.gen(function* () {
    // The events' spacing is real time (Effect's Clock, which WallClock is built on), not the
    // wall clock a test moves: a moved clock must neither flood nor silence progress events.
    let lastEvent = 0
    let jitter: number | null = null
    let resolved = false
    const progress = (b: Broadcasts.BroadcastRow, force = false) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        if (!force && now - lastEvent < EVENT_GAP_MS) return
        const c = (yield* Broadcasts.countsOf([b.id])).get(b.id)
        lastEvent = yield* Clock.currentTimeMillis
        yield* broadcastsChanged(b.workspace_id, b.id, 'progress', {
          counts: c ? { ...c, reasons: undefined } : null,
        })
      })
    const wait = (b: Broadcasts.BroadcastRow, reason: string, untilMs: number) =>
      Effect.gen(function* () {
        const w = { reason, until: iso(new Date(untilMs)) }
        if (b.wait?.reason !== w.reason || b.wait?.until !== w.until) {
          yield* Broadcasts.setWait(b.id, w)
          if (reason !== 'pace') yield* broadcastsChanged(b.workspace_id, b.id, 'updated', { wait: w })
        }
        yield* sleepUntil(untilMs, tickMs)
      })
    for (;;) {
      const b = yield* Broadcasts.byIdAny(broadcastId)
      if (!b || (b.status !== 'running' && b.status !== 'scheduled')) return
      const workspace = yield* Workspaces.byId(b.workspace_id)
      if (!workspace) return
      const now = yield* currentMillis
      if (b.status === 'scheduled') {
        if (b.send_at && b.send_at.getTime() > now) {
          yield* wait(b, 'scheduled', b.send_at.getTime())
          continue
        }
        const started = yield* Broadcasts.transition(
          b.workspace_id,
          b.id,
          ['scheduled'],
          'running',
          (sql) => [sql`started_at = COALESCE(started_at, ${new Date(now)})`],
        )
        if (started) yield* broadcastsChanged(b.workspace_id, b.id, 'started')
        continue
      }
      const channel = b.channel_id === null ? null : yield* Channels.byId(b.channel_id)
      if (
        !channel ||
        channel.archived_at !== null ||
        channel.status === 'banned' ||
        channel.status === 'logged_out'
      ) {
        if (channel) yield* Effect.uninterruptible(pauseNumber(channel, 'number_unavailable'))
        else
          yield* Broadcasts.transition(b.workspace_id, b.id, ['running'], 'paused', (sql) => [
            sql`pause_reason = 'number_unavailable'`,
          ])
        return
      }
      if (!resolved) {
        yield* resolveClaimed(b)
        resolved = true
      }
      const next = yield* Recipients.nextQueued(b.id)
      if (!next) {
        if ((yield* Recipients.pending(b.id)) > 0) {
          resolved = false
          continue
        }
        yield* Effect.uninterruptible(
          Effect.gen(function* () {
            const done = yield* Broadcasts.transition(
              b.workspace_id,
              b.id,
              ['running'],
              'completed',
              (sql) => [sql`completed_at = ${new Date(now)}`, sql`wait = NULL`],
            )
            if (done) {
              yield* progress(done, true)
              yield* broadcastsChanged(b.workspace_id, b.id, 'completed')
            }
          }),
        )
        return
      }
      const settings = settingsOf(b)
      jitter ??= jitterOf(settings)
      const input = yield* paceInput(b, workspace, channel.id, now)
      const d = decide({ nowMs: now, settings, zone: workspace.timezone, jitterMs: jitter, ...input })
      if (d._tag === 'Wait') {
        yield* wait(b, d.reason, d.untilMs)
        continue
      }
      const slot = yield* Delivery.takeSlot(channel.id)
      if (slot !== null) {
        yield* wait(b, 'throttle', now + Math.max(1, slot) * 1000)
        continue
      }
      if (b.wait !== null) yield* Broadcasts.setWait(b.id, null)
      // From the claim to the recorded outcome nothing interrupts the sender (a stop waits): a
      // claim whose sender was stopped right after it would stay `sending` with nobody to finish it.
      const r = yield* Effect.uninterruptible(
        Effect.flatMap(Recipients.claim(b.id, next.id), (claimed) =>
          claimed ? sendOne(b, workspace, channel, claimed) : Effect.succeed(null),
        ),
      )
      if (!r) continue
      jitter = null
      if (r.restricted) {
        // Pausing ends this sender's ownership: what follows must not be cut short by that.
        yield* Effect.uninterruptible(
          Effect.zipRight(pauseNumber(channel, 'number_restricted'), progress(b, true)),
        )
        return
      }
      yield* progress(b)
    }
  })
