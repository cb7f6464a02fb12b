import { Context, Effect, Schema } from 'effect'
import { currentMillis } from '../../engine/clock'
import { invalidateCredentials } from '../../engine/events'
import { iso } from '../../engine/time'
import * as Channels from '../../store/channels'
import * as Msgapp from '../../store/msgapp'
import { limitsOf } from '../../store/plans'
import type { WorkspaceRow } from '../../store/workspaces'
import { ApiError, invalid, notFound } from '../errors'
import { publish, topics } from '../events'
import { Text } from '../fields'
import { addMessages } from '../i18n'
import { ChannelActor } from './ChannelActor'
import { quotaFull } from './channels'
import { grantSelectedMembers } from './grants'
import { presentChannel } from './presenters'

/**
 * Messaging-app numbers (spec 1 §4.4): add a number, link it (QR or pairing code), status and
 * health, logout, reconnect, history import, business labels. The number's socket runs on
 * whichever node holds its lock (connectors/msgapp/sessions.ts); these operations write requests
 * and read state, so any node can answer them, and nudge this node's sessions to act at once.
 */
addMessages({
  'msgapp.linked': {
    en: 'This number is already linked; log it out first to link another phone.',
    id: 'Nomor ini sudah tertaut; keluarkan dulu untuk menautkan ponsel lain.',
  },
  'msgapp.not_linked': {
    en: 'This number is not connected; link it or reconnect it first.',
    id: 'Nomor ini tidak terhubung; tautkan atau sambungkan ulang dulu.',
  },
  'msgapp.pair_timeout': {
    en: 'The messaging service did not answer with a pairing code; try again.',
    id: 'Layanan pesan tidak memberikan kode pemasangan; coba lagi.',
  },
  'field.phone_number': {
    en: 'Must be a phone number in international format, 8 to 15 digits.',
    id: 'Harus nomor telepon dalam format internasional, 8 sampai 15 digit.',
  },
  'field.history_days': { en: 'Must be 7, 30 or 90.', id: 'Harus 7, 30 atau 90.' },
})

/** What these operations need from the number's connector (connectors/msgapp/numbers.ts). */
export interface NumberLinkShape {
  /** This node's session supervisor looks at the numbers' requests now, not at its next poll. */
  readonly nudge: () => void
  /** `+digits` of a chat id that carries a phone number, else null. */
  readonly phoneOf: (jid: string) => string | null
}

/** The number-link port; connectors/msgapp/numbers.ts is its adapter (http/app.ts provides it). */
export class NumberLink extends Context.Tag('kotak/NumberLink')<NumberLink, NumberLinkShape>() {}

export const CreateBody = Schema.Struct({
  name: Text(1, 100),
  grant_selected_members: Schema.optional(Schema.Boolean),
})

const PAIR_WAIT_MS = 20_000
const LOG_SIZE = 50
const HISTORY_DAYS = [7, 30, 90]

/**
 * Warm-up: a number linked less than WARMUP_DAYS ago may send WARMUP_BASE × (days since link + 1)
 * messages per rolling 24 hours (the connector refuses beyond that).
 */
export const WARMUP_DAYS = 7
export const WARMUP_BASE = 100

/** The warm-up allowance of a number linked at `linkedAt` (null once warmed up or unlinked). */
export const warmupOf = (linkedAt: Date | null, nowMs: number) => {
  if (!linkedAt) return null
  const days = Math.floor((nowMs - linkedAt.getTime()) / 86_400_000)
  if (days >= WARMUP_DAYS) return null
  return {
    limit: WARMUP_BASE * (Math.max(0, days) + 1),
    endsAt: new Date(linkedAt.getTime() + WARMUP_DAYS * 86_400_000),
  }
}

/** `channel.updated` with the history import's progress. */
export const publishHistory = (channelId: number) =>
  Effect.gen(function* () {
    const c = yield* Channels.byId(channelId)
    const n = yield* Msgapp.byChannel(channelId)
    if (!c || !n) return
    yield* publish(topics.workspace(c.workspace_id), 'channel.updated', {
      channel_id: c.id,
      status: c.status,
      history: { days: n.history_days, progress: n.history_progress, imported: n.history_imported },
    })
  })

const numberOr404 = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const c = yield* Channels.liveInWorkspace(workspaceId, id)
    const n = c?.type === 'msgapp' ? yield* Msgapp.byChannel(c.id) : null
    if (!c || !n) return yield* Effect.fail(notFound())
    return { channel: c, number: n }
  })

/** A number that is linked already cannot be linked again (409) until it is logged out. */
const unlinkedOr409 = (workspaceId: number, id: number) =>
  Effect.flatMap(numberOr404(workspaceId, id), (found) =>
    found.channel.status === 'active'
      ? Effect.fail(new ApiError({ code: 'conflict', message: 'msgapp.linked' }))
      : Effect.succeed(found),
  )

const setStatus = (channelId: number, status: string) =>
  Effect.flatMap(ChannelActor, (a) => a.ask(channelId, { _tag: 'SetStatus', status }))

const presentStatus = (c: Channels.ChannelRow, n: Msgapp.NumberRow, nowMs: number) => ({
  channel_id: c.id,
  status: c.status,
  phone: n.phone,
  linked_at: iso(n.linked_at),
  last_connected_at: iso(n.last_connected_at),
  last_close_code: n.last_close_code,
  qr_available: n.qr !== null && (n.qr_expires_at?.getTime() ?? 0) > nowMs,
  history: n.history_days
    ? {
        days: n.history_days,
        progress: n.history_progress,
        imported: n.history_imported,
        requested_at: iso(n.history_requested_at),
      }
    : null,
})

/** The number's status as it is now in the database (after a request the session acts on). */
const statusNow = (channel: Channels.ChannelRow) =>
  Effect.flatMap(Msgapp.byChannel(channel.id), (n) =>
    n ? Effect.map(currentMillis, (nowMs) => presentStatus(channel, n, nowMs)) : Effect.fail(notFound()),
  )

/**
 * Number health: the last sends (newest first), the 24-hour counts, and the warm-up allowance of
 * a new number (null once warmed up).
 */
const healthOf = (link: NumberLinkShape, n: Msgapp.NumberRow) =>
  Effect.map(
    Effect.zip(Msgapp.sendLog(n.channel_id, LOG_SIZE), currentMillis),
    ([{ rows, counts }, nowMs]) => {
      const warmup = warmupOf(n.linked_at, nowMs)
      return {
        sent_24h: counts.sent,
        failed_24h: counts.failed,
        warmup: warmup
          ? {
              limit: warmup.limit,
              remaining: Math.max(0, warmup.limit - counts.sent),
              ends_at: iso(warmup.endsAt),
            }
          : null,
        log: rows.map((r) => ({
          at: iso(r.at),
          message_id: r.message_id,
          to: link.phoneOf(r.jid) ?? (r.jid || null),
          ok: r.ok,
          error: r.error,
        })),
      }
    },
  )

// ---- Operations ------------------------------------------------------------------------------

/** A new number within the channel quota, to be linked next; the quota after it. */
export const add = (workspace: WorkspaceRow, body: typeof CreateBody.Type) =>
  Effect.gen(function* () {
    const link = yield* NumberLink
    const limit = limitsOf(workspace).channels
    const made = yield* Msgapp.createWithinQuota(workspace.id, limit, body.name.trim())
    if (!made) return yield* Effect.fail(quotaFull())
    yield* invalidateCredentials({ workspaceId: workspace.id })
    yield* publish(topics.workspace(workspace.id), 'channel.updated', {
      channel_id: made.channel.id,
      status: made.channel.status,
    })
    yield* grantSelectedMembers(body.grant_selected_members, made.channel)
    link.nudge()
    return {
      channel: presentChannel(made.channel),
      quota: { used: yield* Channels.countLive(workspace.id), limit },
    }
  })

/** The current QR code as a PNG data URL with its lifetime in seconds (null while none is ready). */
export const qr = (workspace: WorkspaceRow, id: number) =>
  Effect.gen(function* () {
    const { channel, number } = yield* unlinkedOr409(workspace.id, id)
    const lifetime = Math.floor(((number.qr_expires_at?.getTime() ?? 0) - (yield* currentMillis)) / 1000)
    const code = number.qr && lifetime > 0 ? number.qr : null
    const png = code
      ? yield* Effect.promise(async () =>
          // Loaded when a number is being linked, not at start.
          (await import('qrcode')).default.toDataURL(code, { type: 'image/png', margin: 2, width: 320 }),
        )
      : null
    return { qr: png, lifetime: png ? lifetime : 0, status: channel.status }
  })

/** Asks the number's session for a pairing code for `phone` and waits for it (503 after 20 s). */
export const pair = (workspace: WorkspaceRow, id: number, phone: string) =>
  Effect.gen(function* () {
    const link = yield* NumberLink
    const digits = phone.replace(/[\s().+-]/g, '')
    if (!/^\d{8,15}$/.test(digits))
      return yield* Effect.fail(invalid({ phone: { key: 'field.phone_number' } }))
    const { channel } = yield* unlinkedOr409(workspace.id, id)
    const requested = yield* Msgapp.requestPair(channel.id, `+${digits}`)
    if (!requested?.pair_requested_at) return yield* Effect.fail(notFound())
    link.nudge()
    // A wait of real time, not a time of day: the monotonic clock.
    const deadline = performance.now() + PAIR_WAIT_MS
    while (performance.now() < deadline) {
      yield* Effect.sleep('100 millis')
      const n = yield* Msgapp.byChannel(channel.id)
      if (n?.pair_code && n.pair_requested_at?.getTime() === requested.pair_requested_at.getTime()) {
        return { phone: `+${digits}`, code: n.pair_code }
      }
    }
    return yield* Effect.fail(new ApiError({ code: 'unavailable', message: 'msgapp.pair_timeout' }))
  })

/** Link, connection and history import, with the number's health. */
export const status = (workspace: WorkspaceRow, id: number) =>
  Effect.gen(function* () {
    const link = yield* NumberLink
    const { channel, number } = yield* numberOr404(workspace.id, id)
    return { ...presentStatus(channel, number, yield* currentMillis), health: yield* healthOf(link, number) }
  })

/** Logs the number out; its link and auth state go (the running session logs the socket out first). */
export const logout = (workspace: WorkspaceRow, id: number) =>
  Effect.gen(function* () {
    const link = yield* NumberLink
    const { channel } = yield* numberOr404(workspace.id, id)
    // Status first: from then on no node lists the number, so none starts a session for it in
    // the moment between the two writes (the bump alone, still active, restarted it: a second
    // socket). The session dropped for `logged_out` logs its socket out (connectors/msgapp).
    const row = yield* setStatus(channel.id, 'logged_out')
    yield* Msgapp.bump(channel.id, true)
    link.nudge()
    yield* Msgapp.unlinked(channel.id)
    return yield* statusNow(row)
  })

/** Reconnects now; after a logout, linking starts again. */
export const reconnect = (workspace: WorkspaceRow, id: number) =>
  Effect.gen(function* () {
    const link = yield* NumberLink
    const { channel } = yield* numberOr404(workspace.id, id)
    yield* Msgapp.bump(channel.id, false)
    const row = yield* setStatus(channel.id, 'connecting')
    link.nudge()
    return yield* statusNow(row)
  })

/** Asks a linked number for the chat history of the last 7, 30 or 90 days. */
export const importHistory = (workspace: WorkspaceRow, id: number, days: number) =>
  Effect.gen(function* () {
    const link = yield* NumberLink
    if (!HISTORY_DAYS.includes(days))
      return yield* Effect.fail(invalid({ days: { key: 'field.history_days' } }))
    const { channel } = yield* numberOr404(workspace.id, id)
    if (channel.status !== 'active')
      return yield* Effect.fail(new ApiError({ code: 'conflict', message: 'msgapp.not_linked' }))
    const n = yield* Msgapp.requestHistory(channel.id, days)
    yield* publishHistory(channel.id)
    link.nudge()
    if (!n) return yield* Effect.fail(notFound())
    return presentStatus(channel, n, yield* currentMillis)
  })

/** The business labels read from the phone. */
export const labels = (workspace: WorkspaceRow, id: number) =>
  Effect.gen(function* () {
    const { channel } = yield* numberOr404(workspace.id, id)
    const rows = yield* Msgapp.labels(channel.id)
    return rows.map((l) => ({ id: l.label_id, name: l.name, color: l.color }))
  })
