import type { BaileysEventMap, WAMessage } from 'baileys'
import { Context, Effect, Layer, Runtime } from 'effect'
import { ChannelActor } from '../../actors/channels/ChannelActor'
import { publishHistory } from '../../actors/channels/msgapp'
import * as Notifications from '../../actors/notifications'
import { currentMillis, systemMillis } from '../../engine/clock'
import { Config } from '../../engine/config'
import { Log } from '../../engine/log'
import * as ClaimsPg from '../../engine/owner/ClaimsPg'
import * as Owned from '../../engine/owner/Owned'
import * as Channels from '../../store/channels'
import * as Msgapp from '../../store/msgapp'
import type * as AuthStateModule from './authState'
import type * as InboundModule from './inbound'
import { isJidGroup, phoneOf } from './jid'
import { MsgappLive, type MsgappLiveShape } from './live'
import type { Needs, Run } from './run'
import { type MsgappSocket, Transport, type TransportShape } from './Transport'

/**
 * MsgappSessions: one socket per live messaging-app number, on exactly one node (`Owned`, with a
 * PostgreSQL advisory lock `(LOCK_CLASS, channel id)` per number; the embedded database is one node).
 *
 * - Which numbers: every MSGAPP_POLL_MS and on a local nudge, the live numbers are read; new ones
 *   start, removed ones stop, a bumped `version` (reconnect, logout) restarts or stops.
 * - Close codes: 515 (restart required, as after linking) reconnects at once; 401 (logged out)
 *   clears the auth state, sets `logged_out` and notifies the channel managers, and stays down;
 *   403 (forbidden: the number is banned) sets `banned`, notifies, stays down; anything else backs
 *   off exponentially (MSGAPP_BACKOFF_BASE_MS × 2ⁿ, ±50 % jitter, at most MAX_BACKOFF_MS) with at
 *   most one pending reconnect per number, so a flapping connection never storms.
 * - Status changes go through the ChannelActor (`channel.updated`); requests (pair, history) are
 *   rows carried out by the node that runs the number.
 */
/** The advisory-lock space of numbers (mailboxes use 0x4b4f). */
export const LOCK_CLASS = 0x4b4d

const MAX_BACKOFF_MS = 5 * 60_000
const FIRST_QR_SECONDS = 60
const NEXT_QR_SECONDS = 20
const HISTORY_BATCH = 50

export interface MsgappSessionsShape {
  readonly running: () => readonly number[]
}
export class MsgappSessions extends Context.Tag('kotak/MsgappSessions')<
  MsgappSessions,
  MsgappSessionsShape
>() {}

/**
 * What a running number needs of Baileys besides its socket (the auth state's codecs, the import
 * of messages and media): loaded with the first number this node runs, so a deployment without
 * numbers never loads Baileys (docs/decisions.md, "Production start and footprint").
 */
interface Stack {
  readonly AuthState: typeof AuthStateModule
  readonly Inbound: typeof InboundModule
}
const stackLoader = () => {
  let stack: Promise<Stack> | undefined
  return () =>
    (stack ??= Promise.all([import('./authState'), import('./inbound')]).then(([AuthState, Inbound]) => ({
      AuthState,
      Inbound,
    })))
}

interface Deps {
  readonly run: Run
  readonly live: MsgappLiveShape
  readonly loadStack: () => Promise<Stack>
  readonly transport: TransportShape
  readonly backoffBaseMs: number
  readonly log: (msg: string, fields: Record<string, unknown>) => void
}

const setStatus = (channelId: number, status: string) =>
  Effect.flatMap(ChannelActor, (a) => a.ask(channelId, { _tag: 'SetStatus', status })).pipe(
    Effect.catchTag('ChannelNotFound', () => Effect.void),
    Effect.asVoid,
  )

const TITLES: Record<string, { en: string; id: string }> = {
  logged_out: {
    en: 'The number {name} was logged out; link it again with a new QR code.',
    id: 'Nomor {name} telah keluar; tautkan lagi dengan kode QR baru.',
  },
  banned: {
    en: 'The number {name} was refused by the messaging service (banned or restricted).',
    id: 'Nomor {name} ditolak oleh layanan pesan (diblokir atau dibatasi).',
  },
  restricted: {
    en: 'The number {name} is restricted from sending for now.',
    id: 'Nomor {name} sedang dibatasi untuk mengirim.',
  },
}

/** Tells every channel manager of the workspace, in their language. */
export const notifyManagers = (channelId: number, kind: keyof typeof TITLES) =>
  Effect.gen(function* () {
    const c = yield* Channels.byId(channelId)
    if (!c) return
    for (const m of yield* Msgapp.channelManagers(c.workspace_id)) {
      const title = TITLES[kind]![m.locale === 'id' ? 'id' : 'en'].replace('{name}', c.name)
      yield* Notifications.notify({
        workspaceId: c.workspace_id,
        userId: m.user_id,
        kind: `channel.${kind}`,
        title,
        link: `/settings/channels/${c.id}`,
        data: { channel_id: c.id, status: kind },
      })
    }
  })

class Session {
  private stopped = false
  private socket: MsgappSocket | null = null
  private generation = 0
  private timer: ReturnType<typeof setTimeout> | null = null
  private attempts = 0
  private queue: Promise<void> = Promise.resolve()
  private qrCount = 0
  private seenPair = 0
  private seenHistory = 0
  private historyWindow: { since: number } | null = null

  constructor(
    readonly channelId: number,
    readonly startedAt: number,
    private readonly deps: Deps,
  ) {
    this.schedule(0)
  }

  /** At most one pending reconnect: a second request while one waits is dropped. */
  private schedule(ms: number) {
    if (this.stopped || this.timer) return
    this.timer = setTimeout(() => {
      this.timer = null
      void this.connect()
    }, ms)
  }

  private async connect() {
    if (this.stopped) return
    const gen = ++this.generation
    try {
      const { AuthState } = await this.deps.loadStack()
      const auth = await AuthState.load(this.channelId, this.deps.run)
      if (this.stopped) return
      const sock = await this.deps.transport.connect(this.channelId, auth.state)
      if (this.stopped) {
        sock.end(undefined)
        return
      }
      this.socket = sock
      this.qrCount = 0
      sock.ev.process((events) => {
        this.queue = this.queue
          .then(() =>
            gen === this.generation && !this.stopped
              ? this.handle(sock, events, auth.state, auth.saveCreds)
              : undefined,
          )
          .catch((e: unknown) =>
            this.deps.log('msgapp event failed', { channel_id: this.channelId, error: String(e) }),
          )
      })
    } catch (e) {
      this.deps.log('msgapp connect failed', { channel_id: this.channelId, error: String(e) })
      await this.afterClose(null)
    }
  }

  private async handle(
    sock: MsgappSocket,
    events: Partial<BaileysEventMap>,
    auth: Awaited<ReturnType<typeof AuthStateModule.load>>['state'],
    saveCreds: () => Promise<void>,
  ) {
    const { run } = this.deps
    const { Inbound } = await this.deps.loadStack()
    const credsUpdate = events['creds.update']
    if (credsUpdate) {
      // Baileys' own socket merges updates into the creds too; merging twice changes nothing.
      Object.assign(auth.creds, credsUpdate)
      await saveCreds()
    }
    const conn = events['connection.update']
    if (conn?.qr) {
      this.qrCount++
      const ttl = this.qrCount === 1 ? FIRST_QR_SECONDS : NEXT_QR_SECONDS
      const qr = conn.qr
      await run(
        Effect.flatMap(currentMillis, (now) => Msgapp.setQr(this.channelId, qr, new Date(now + ttl * 1000))),
      )
      await run(setStatus(this.channelId, 'qr'))
    }
    if (conn?.connection === 'open') {
      this.attempts = 0
      this.deps.live.setOpen(this.channelId, sock)
      await run(Msgapp.opened(this.channelId, phoneOf(normalizeJid(sock.user?.id))))
      await run(setStatus(this.channelId, 'active'))
    }
    const channel = await run(Channels.byId(this.channelId))
    if (channel && !channel.archived_at) {
      const up = events['messages.upsert']
      if (up) {
        for (const m of up.messages) {
          await run(Inbound.importMessage(channel, sock, m, { live: up.type === 'notify' }))
        }
      }
      for (const u of events['messages.update'] ?? []) await run(Inbound.messageUpdate(channel, u))
      if (events['messages.reaction']) await run(Inbound.reactions(channel, events['messages.reaction']))
      if (events['presence.update']) await run(Inbound.presence(channel, events['presence.update']))
      for (const g of [...(events['groups.upsert'] ?? []), ...(events['groups.update'] ?? [])]) {
        if (g.id)
          await run(
            Msgapp.upsertGroup(channel.workspace_id, channel.id, Inbound.groupRecord({ ...g, id: g.id })),
          )
      }
      for (const c of events['contacts.update'] ?? []) {
        if (c.id && isJidGroup(c.id) && (c.imgUrl === 'changed' || c.imgUrl === 'removed'))
          await run(Inbound.groupPicture(channel, sock, c.id, c.imgUrl === 'removed'))
      }
      const label = events['labels.edit']
      if (label) {
        await run(
          Inbound.labelEdit(channel, {
            label_id: label.id,
            name: label.name,
            color: label.color ?? 0,
            deleted: label.deleted === true,
          }),
        )
      }
      if (events['labels.association'])
        await run(Inbound.labelAssociation(channel, events['labels.association']))
      const history = events['messaging-history.set']
      if (history) await this.importHistory(channel, sock, history.messages, history.progress ?? null)
      for (const call of events.call ?? []) {
        if (call.status !== 'offer' || channel.settings.reject_calls !== true) continue
        await sock.rejectCall(call.id, call.from).catch(() => {})
        const reply =
          typeof channel.settings.call_reply === 'string' ? channel.settings.call_reply.trim() : ''
        if (!reply) continue
        // Not a conversation message, but a send of this number all the same: logged (and counted).
        const error = await sock.sendMessage(call.from, { text: reply }).then(
          () => null,
          (e: unknown) => (e instanceof Error ? e.message : String(e)),
        )
        await run(Msgapp.logSend(channel.id, { messageId: null, jid: call.from, ok: error === null, error }))
      }
    }
    if (conn?.connection === 'close') {
      const err = conn.lastDisconnect?.error as { output?: { statusCode?: number } } | undefined
      await this.afterClose(err?.output?.statusCode ?? null, sock)
    }
  }

  private async afterClose(code: number | null, sock?: MsgappSocket) {
    const { run } = this.deps
    if (sock) this.deps.live.clearOpen(this.channelId, sock)
    this.socket = null
    if (this.stopped) return
    await run(Msgapp.closed(this.channelId, code))
    if (code === 515) {
      this.schedule(0)
      return
    }
    if (code === 401 || code === 403) {
      this.stopped = true
      if (code === 401) await run(Msgapp.unlinked(this.channelId))
      const status = code === 401 ? 'logged_out' : 'banned'
      await run(setStatus(this.channelId, status))
      await run(notifyManagers(this.channelId, status))
      this.deps.log('msgapp number stopped', { channel_id: this.channelId, code })
      return
    }
    this.attempts++
    const base = Math.min(MAX_BACKOFF_MS, this.deps.backoffBaseMs * 2 ** (this.attempts - 1))
    const wait = Math.round(base * (0.5 + Math.random()))
    await run(setStatus(this.channelId, 'reconnecting'))
    this.schedule(Math.min(MAX_BACKOFF_MS, wait))
  }

  /** Carries out pair and history requests made since the last look. */
  async sync(row: Msgapp.NumberRow) {
    const { run } = this.deps
    const sock = this.socket
    const pairAt = row.pair_requested_at?.getTime() ?? 0
    if (
      sock &&
      pairAt > this.seenPair &&
      row.pair_phone &&
      !row.pair_code &&
      !this.deps.live.openSocket(this.channelId)
    ) {
      this.seenPair = pairAt
      try {
        const code = await sock.requestPairingCode(row.pair_phone.replace(/\D/g, ''))
        await run(Msgapp.setPairCode(this.channelId, row.pair_requested_at!, code))
      } catch (e) {
        this.deps.log('msgapp pairing code failed', { channel_id: this.channelId, error: String(e) })
      }
    }
    const historyAt = row.history_requested_at?.getTime() ?? 0
    const open = this.deps.live.openSocket(this.channelId)
    if (open && historyAt > this.seenHistory && row.history_days) {
      this.seenHistory = historyAt
      this.historyWindow = { since: historyAt - row.history_days * 86_400_000 }
      const chats = await run(Msgapp.oldestPerChat(this.channelId))
      for (const c of chats) {
        await open
          .fetchMessageHistory(
            HISTORY_BATCH,
            { remoteJid: c.jid, id: c.wa_id, fromMe: c.from_me },
            Math.floor(c.at.getTime() / 1000),
          )
          .catch((e: unknown) => this.deps.log('msgapp history request failed', { error: String(e) }))
      }
      if (chats.length === 0) {
        await run(Msgapp.historyProgress(this.channelId, 100, 0))
        await run(publishHistory(this.channelId))
      }
    }
  }

  private async importHistory(
    channel: Channels.ChannelRow,
    sock: MsgappSocket,
    messages: readonly WAMessage[],
    progress: number | null,
  ) {
    const window = this.historyWindow
    if (!window) return
    const { run } = this.deps
    const { Inbound } = await this.deps.loadStack()
    let imported = 0
    for (const m of messages) {
      if (Number(m.messageTimestamp ?? 0) * 1000 < window.since) continue
      if ((await run(Inbound.importMessage(channel, sock, m, { live: false }))) === 'imported') imported++
    }
    const pct = Math.max(0, Math.min(100, Math.round(progress ?? 100)))
    await run(Msgapp.historyProgress(this.channelId, pct, imported))
    await run(publishHistory(this.channelId))
    if (pct >= 100) this.historyWindow = null
  }

  async stop(logout: boolean) {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    const sock = this.socket
    this.socket = null
    this.deps.live.clearOpen(this.channelId, sock ?? undefined)
    if (!sock) return
    if (logout) await sock.logout().catch(() => {})
    sock.end(undefined)
    await this.queue
  }
}

const normalizeJid = (jid: string | undefined) => (jid ? jid.replace(/:\d+@/, '@') : undefined)

const make = Effect.gen(function* () {
  const cfg = yield* Config
  const logger = yield* Log
  const transport = yield* Transport
  const live = yield* MsgappLive
  const rt = yield* Effect.runtime<Needs>()
  const run: Run = (e) => Runtime.runPromise(rt)(e)
  const deps: Deps = {
    run,
    live,
    loadStack: stackLoader(),
    transport,
    backoffBaseMs: cfg.msgappBackoffBaseMs,
    log: (msg, fields) => logger.warn(msg, fields),
  }
  const owned = yield* Owned.supervise({
    name: 'msgapp',
    pollMs: cfg.msgappPollMs,
    claims: ClaimsPg.makeConfig(cfg.databaseUrl, LOCK_CLASS),
    list: Msgapp.active,
    key: (r) => r.channel_id,
    version: (r) => r.version,
    wake: live.nudge.on,
    start: (r) =>
      Effect.sync(() => {
        // Compared with logout_requested_at, the database's now(): the process clock.
        const session = new Session(r.channel_id, systemMillis(), deps)
        // A logout asked for while this session ran (a bumped version) logs the number out on stop.
        const logoutAsked = (row: Msgapp.NumberRow | null) =>
          (row?.logout_requested_at?.getTime() ?? 0) >= session.startedAt
        return {
          listed: (row: typeof r) => Effect.tryPromise(() => session.sync(row)),
          stop: (why: Owned.Stop<typeof r>) =>
            Effect.promise(async () => {
              const logout =
                why._tag === 'Changed'
                  ? logoutAsked(why.row)
                  : why._tag === 'Dropped' &&
                    // Dropped because the number was logged out (its status changes before its
                    // version), or a logout asked for while it ran.
                    ((await run(Channels.byId(r.channel_id)).catch(() => null))?.status === 'logged_out' ||
                      logoutAsked(await run(Msgapp.byChannel(r.channel_id)).catch(() => null)))
              await session.stop(logout)
            }),
        }
      }),
  })

  const onTrouble = (channelId: number, reason: string | null) => {
    if (!owned.owns(channelId)) return
    if (reason === null) {
      // A restricted number sends again: back to active, no notification.
      void run(setStatus(channelId, 'active')).catch(() => {})
      return
    }
    void run(
      Effect.zipRight(setStatus(channelId, 'restricted'), notifyManagers(channelId, 'restricted')),
    ).catch(() => {})
    logger.warn('msgapp number restricted', { channel_id: channelId, reason })
  }

  yield* Effect.acquireRelease(
    Effect.sync(() => live.trouble.on(onTrouble)),
    (off) => Effect.sync(off),
  )
  return { running: owned.running } satisfies MsgappSessionsShape
})

/**
 * The transport the configuration names: Baileys, or the test transport (`MSGAPP_TRANSPORT=test`).
 * Chosen here, loaded at the first `connect`: a node that runs no number never loads Baileys.
 */
export const transportLayer = Layer.effect(
  Transport,
  Effect.map(Config, (cfg): TransportShape => {
    let chosen: Promise<TransportShape> | undefined
    const transport = () =>
      (chosen ??=
        cfg.msgappTransport === 'test'
          ? import('./TransportTest').then((m) => m.make(cfg.msgappTestService))
          : import('./TransportBaileys').then((m) => m.make()))
    return { connect: (channelId, auth) => transport().then((t) => t.connect(channelId, auth)) }
  }),
)

export const layer = Layer.scoped(MsgappSessions, make).pipe(Layer.provide(transportLayer))
