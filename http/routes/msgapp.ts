import { Effect, Schema } from 'effect'
import QRCode from 'qrcode'
import { ChannelActor } from '../../actors/channels/ChannelActor'
import { grantSelectedMembers } from '../../actors/channels/grants'
import { presentChannel } from '../../actors/channels/presenters'
import { ApiError, invalid, notFound } from '../../actors/errors'
import { IdFromString, Text } from '../../actors/fields'
import { addMessages } from '../../actors/i18n'
import { warmupOf } from '../../connectors/msgapp/adapter'
import { phoneOf } from '../../connectors/msgapp/inbound'
import { nudge } from '../../connectors/msgapp/live'
import { publishHistory } from '../../connectors/msgapp/sessions'
import { invalidateCredentials, publishEvent } from '../../engine/events'
import { iso } from '../../engine/time'
import type { ChannelRow } from '../../store/channels'
import * as Channels from '../../store/channels'
import * as Msgapp from '../../store/msgapp'
import { limitsOf } from '../../store/plans'
import { created, ok, type Route, route } from '../route'

/**
 * Spec 1 §4.4, messaging-app numbers: add a number, link it (QR or pairing code), status, logout,
 * reconnect, history import, business labels. The number's socket runs on whichever node holds
 * its lock (connectors/msgapp/sessions.ts); these endpoints write requests and read state, so any
 * node can answer them.
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

const Id = Schema.Struct({ id: IdFromString })
const PAIR_WAIT_MS = 20_000

const numberOr404 = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const c = yield* Channels.liveInWorkspace(workspaceId, id)
    const n = c?.type === 'msgapp' ? yield* Msgapp.byChannel(c.id) : null
    if (!c || !n) return yield* Effect.fail(notFound())
    return { channel: c, number: n }
  })

const setStatus = (channelId: number, status: string) =>
  Effect.flatMap(ChannelActor, (a) => a.ask(channelId, { _tag: 'SetStatus', status })).pipe(
    Effect.catchTag('ChannelNotFound', () => Effect.fail(notFound())),
  )

const LOG_SIZE = 50

/**
 * Number health: the last sends (newest first), the 24-hour counts, and the warm-up allowance of
 * a new number (null once warmed up).
 */
const healthOf = (n: Msgapp.NumberRow) =>
  Effect.map(Msgapp.sendLog(n.channel_id, LOG_SIZE), ({ rows, counts }) => {
    const warmup = warmupOf(n.linked_at, Date.now())
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
        to: phoneOf(r.jid) ?? (r.jid || null),
        ok: r.ok,
        error: r.error,
      })),
    }
  })

const presentStatus = (c: ChannelRow, n: Msgapp.NumberRow) => ({
  channel_id: c.id,
  status: c.status,
  phone: n.phone,
  linked_at: iso(n.linked_at),
  last_connected_at: iso(n.last_connected_at),
  last_close_code: n.last_close_code,
  qr_available: n.qr !== null && (n.qr_expires_at?.getTime() ?? 0) > Date.now(),
  history: n.history_days
    ? {
        days: n.history_days,
        progress: n.history_progress,
        imported: n.history_imported,
        requested_at: iso(n.history_requested_at),
      }
    : null,
})

export const routes: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/channels',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary:
      'Add a messaging-app number (channel quota checked); link it next with the QR code or a pairing code',
    body: Schema.Struct({ name: Text(1, 100), grant_selected_members: Schema.optional(Schema.Boolean) }),
    handler: ({ workspace, body }) =>
      Effect.gen(function* () {
        const made = yield* Msgapp.createWithinQuota(
          workspace.id,
          limitsOf(workspace).channels,
          body.name.trim(),
        )
        if (!made)
          return yield* Effect.fail(new ApiError({ code: 'plan_required', message: 'channels.quota' }))
        yield* invalidateCredentials({ workspaceId: workspace.id })
        yield* publishEvent(`ws:${workspace.id}`, 'channel.updated', {
          channel_id: made.channel.id,
          status: made.channel.status,
        })
        yield* grantSelectedMembers(body.grant_selected_members, made.channel)
        nudge()
        const used = yield* Channels.countLive(workspace.id)
        return created(presentChannel(made.channel), { quota: { used, limit: limitsOf(workspace).channels } })
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}/qr',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'The current QR code as a PNG data URL, with its lifetime in seconds (null while none is ready)',
    params: Id,
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        const { channel, number } = yield* numberOr404(workspace.id, params.id)
        if (channel.status === 'active')
          return yield* Effect.fail(new ApiError({ code: 'conflict', message: 'msgapp.linked' }))
        const lifetime = Math.floor(((number.qr_expires_at?.getTime() ?? 0) - Date.now()) / 1000)
        const qr =
          number.qr && lifetime > 0
            ? yield* Effect.promise(() =>
                QRCode.toDataURL(number.qr!, { type: 'image/png', margin: 2, width: 320 }),
              )
            : null
        return ok({ qr, lifetime: qr ? lifetime : 0, status: channel.status })
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/pair',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Link by phone number instead of QR: answers the pairing code to type on the phone',
    params: Id,
    body: Schema.Struct({ phone: Schema.String.pipe(Schema.maxLength(40)) }),
    handler: ({ workspace, params, body }) =>
      Effect.gen(function* () {
        const digits = body.phone.replace(/[\s().+-]/g, '')
        if (!/^\d{8,15}$/.test(digits))
          return yield* Effect.fail(invalid({ phone: { key: 'field.phone_number' } }))
        const { channel } = yield* numberOr404(workspace.id, params.id)
        if (channel.status === 'active')
          return yield* Effect.fail(new ApiError({ code: 'conflict', message: 'msgapp.linked' }))
        const requested = yield* Msgapp.requestPair(channel.id, `+${digits}`)
        if (!requested?.pair_requested_at) return yield* Effect.fail(notFound())
        nudge()
        const deadline = Date.now() + PAIR_WAIT_MS
        while (Date.now() < deadline) {
          yield* Effect.sleep('100 millis')
          const n = yield* Msgapp.byChannel(channel.id)
          if (n?.pair_code && n.pair_requested_at?.getTime() === requested.pair_requested_at.getTime()) {
            return ok({ phone: `+${digits}`, code: n.pair_code })
          }
        }
        return yield* Effect.fail(new ApiError({ code: 'unavailable', message: 'msgapp.pair_timeout' }))
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}/status',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary:
      'Latest status of the number (link, connection, history import) and its health: send log, 24-hour counts, warm-up allowance',
    params: Id,
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        const { channel, number } = yield* numberOr404(workspace.id, params.id)
        return ok({ ...presentStatus(channel, number), health: yield* healthOf(number) })
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/logout',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Log the number out of the messaging service (its link and auth state are removed)',
    params: Id,
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        const { channel } = yield* numberOr404(workspace.id, params.id)
        yield* Msgapp.bump(channel.id, true)
        const row = yield* setStatus(channel.id, 'logged_out')
        // The running session logs the socket out first; the auth state goes either way.
        nudge()
        yield* Msgapp.unlinked(channel.id)
        const n = yield* Msgapp.byChannel(channel.id)
        return ok(presentStatus(row, n!))
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/reconnect',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Reconnect the number now (after a logout: start linking again)',
    params: Id,
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        const { channel } = yield* numberOr404(workspace.id, params.id)
        yield* Msgapp.bump(channel.id, false)
        const row = yield* setStatus(channel.id, 'connecting')
        nudge()
        const n = yield* Msgapp.byChannel(channel.id)
        return ok(presentStatus(row, n!))
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/history',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Import chat history of the last 7, 30 or 90 days; progress arrives as channel.updated',
    params: Id,
    body: Schema.Struct({ days: Schema.Number }),
    handler: ({ workspace, params, body }) =>
      Effect.gen(function* () {
        if (![7, 30, 90].includes(body.days))
          return yield* Effect.fail(invalid({ days: { key: 'field.history_days' } }))
        const { channel } = yield* numberOr404(workspace.id, params.id)
        if (channel.status !== 'active')
          return yield* Effect.fail(new ApiError({ code: 'conflict', message: 'msgapp.not_linked' }))
        const n = yield* Msgapp.requestHistory(channel.id, body.days)
        yield* publishHistory(channel.id)
        nudge()
        return ok(presentStatus(channel, n!))
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}/labels',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Business labels read from the phone',
    params: Id,
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        const { channel } = yield* numberOr404(workspace.id, params.id)
        const rows = yield* Msgapp.labels(channel.id)
        return ok(rows.map((l) => ({ id: l.label_id, name: l.name, color: l.color })))
      }),
  }),
]
