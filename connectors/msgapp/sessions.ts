import type { BaileysEventMap, WAMessage } from 'baileys'
import { Cause, Context, Duration, Effect, Layer, Queue, Runtime } from 'effect'
import { ChannelActor } from '../../actors/channels/ChannelActor'
import { publishHistory } from '../../actors/channels/msgapp'
import * as Notifications from '../../actors/notifications'
import { currentMillis, systemMillis } from '../../engine/clock'
import { Config } from '../../engine/config'
import { Log } from '../../engine/log'
import * as ClaimsPg from '../../engine/owner/ClaimsPg'
import * as Owned from '../../engine/owner/Owned'
import { storableInPlace } from '../../engine/storable'
import * as Channels from '../../store/channels'
import * as Msgapp from '../../store/msgapp'
import type * as AuthStateModule from './authState'
import type * as InboundModule from './inbound'
import { isJidGroup, ownMessageId, phoneOf } from './jid'
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
 *   Each close is logged once (`msgapp connection closed`: the number, the code, what follows).
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
        link: `/channels/${c.id}`,
        data: { channel_id: c.id, status: kind },
      })
    }
  })

/** What the supervisor (`listed`, `stop`) and a number's session share. */
interface NumberState {
  /** The open connection's socket (also before it opens: pairing asks through it). */
  socket: MsgappSocket | null
  attempts: number
  qrCount: number
  seenPair: number
  seenHistory: number
  historyWindow: { since: number } | null
  /** Set by `stop` before the session is interrupted: the number is logged out as it ends. */
  logout: boolean
}

/**
 * One number's session, a fiber of its work's scope (engine/owner): connects, handles the
 * socket's events in order (each batch whole: a stop waits for the one in progress), and on close
 * reconnects, backs off or stays down. Interrupted when the ownership ends; the connection's
 * finalizer logs out when asked and ends the socket.
 */
const numberSession = (channelId: number, st: NumberState, deps: Deps) => {
  /**
   * One message (or update) of a batch on its own: its failure is logged with its id and the rest
   * of the batch goes on, since a batch carries other customers' messages (a catch-up after a
   * reconnect, dozens of chats), which the service does not hand over again.
   */
  /**
   * Ids of the call replies this session sent. Not conversation messages, but the service reports
   * every send back (`emitOwnEvents`): their echo is dropped, not filed in the caller's
   * conversation as the team's reply from the phone. Kept small: an echo comes at once.
   */
  const callReplies = new Set<string>()
  const alone = <A, E, R>(what: string, id: string | null | undefined, effect: Effect.Effect<A, E, R>) =>
    effect.pipe(
      Effect.catchAllCause((cause) =>
        Effect.sync(() => {
          deps.log('msgapp event failed', {
            channel_id: channelId,
            event: what,
            id: id ?? null,
            error: String(Cause.squash(cause)),
          })
          return null
        }),
      ),
    )

  const importHistory = (
    channel: Channels.ChannelRow,
    sock: MsgappSocket,
    messages: readonly WAMessage[],
    progress: number | null,
  ) =>
    Effect.gen(function* () {
      const window = st.historyWindow
      if (!window) return
      const { Inbound } = yield* Effect.promise(deps.loadStack)
      let imported = 0
      for (const m of messages) {
        if (Number(m.messageTimestamp ?? 0) * 1000 < window.since) continue
        const r = yield* alone('history', m.key?.id, Inbound.importMessage(channel, sock, m, { live: false }))
        if (r === 'imported') imported++
      }
      const pct = Math.max(0, Math.min(100, Math.round(progress ?? 100)))
      yield* Msgapp.historyProgress(channelId, pct, imported)
      yield* publishHistory(channelId)
      if (pct >= 100) st.historyWindow = null
    })

  /** One batch of the socket's events; the close code when the batch closed the connection. */
  const handle = (
    sock: MsgappSocket,
    events: Partial<BaileysEventMap>,
    auth: Awaited<ReturnType<typeof AuthStateModule.load>>,
  ) =>
    Effect.gen(function* () {
      const { Inbound } = yield* Effect.promise(deps.loadStack)
      const credsUpdate = events['creds.update']
      if (credsUpdate) {
        // Baileys' own socket merges updates into the creds too; merging twice changes nothing.
        Object.assign(auth.state.creds, credsUpdate)
        yield* Owned.attempt(auth.saveCreds)
      }
      const conn = events['connection.update']
      if (conn?.qr) {
        st.qrCount++
        const ttl = st.qrCount === 1 ? FIRST_QR_SECONDS : NEXT_QR_SECONDS
        const qr = conn.qr
        yield* Effect.flatMap(currentMillis, (now) => Msgapp.setQr(channelId, qr, new Date(now + ttl * 1000)))
        yield* setStatus(channelId, 'qr')
      }
      if (conn?.connection === 'open') {
        st.attempts = 0
        deps.live.setOpen(channelId, sock)
        yield* Msgapp.opened(channelId, phoneOf(normalizeJid(sock.user?.id)))
        yield* setStatus(channelId, 'active')
      }
      const channel = yield* Channels.byId(channelId)
      if (channel && !channel.archived_at) {
        // What the service hands over (a customer's text, names, history) may hold NUL, which no
        // store takes: it arrives with U+FFFD instead of failing and being lost (issue 50 item 2).
        for (const [kind, data] of Object.entries(events)) if (kind !== 'creds.update') storableInPlace(data)
        const up = events['messages.upsert']
        if (up) {
          for (const m of up.messages) {
            if (m.key?.fromMe && m.key.id && callReplies.delete(m.key.id)) continue
            yield* alone(
              'messages.upsert',
              m.key?.id,
              Inbound.importMessage(channel, sock, m, { live: up.type === 'notify' }),
            )
          }
        }
        for (const u of events['messages.update'] ?? []) {
          const restriction = yield* alone('messages.update', u.key?.id, Inbound.messageUpdate(channel, u))
          // A refusal that came after the send left restricts the number as a refused send does.
          if (restriction) deps.live.trouble.fire(channelId, restriction)
        }
        if (events['messages.reaction']) yield* Inbound.reactions(channel, events['messages.reaction'])
        if (events['presence.update']) yield* Inbound.presence(channel, events['presence.update'])
        for (const g of [...(events['groups.upsert'] ?? []), ...(events['groups.update'] ?? [])]) {
          if (g.id)
            yield* Msgapp.upsertGroup(
              channel.workspace_id,
              channel.id,
              Inbound.groupRecord({ ...g, id: g.id }),
            )
        }
        for (const c of events['contacts.update'] ?? []) {
          if (c.id && isJidGroup(c.id) && (c.imgUrl === 'changed' || c.imgUrl === 'removed'))
            yield* Inbound.groupPicture(channel, sock, c.id, c.imgUrl === 'removed')
        }
        const label = events['labels.edit']
        if (label) {
          yield* Inbound.labelEdit(channel, {
            label_id: label.id,
            name: label.name,
            color: label.color ?? 0,
            deleted: label.deleted === true,
          })
        }
        if (events['labels.association'])
          yield* Inbound.labelAssociation(channel, events['labels.association'])
        const history = events['messaging-history.set']
        if (history) yield* importHistory(channel, sock, history.messages, history.progress ?? null)
        for (const call of events.call ?? []) {
          if (call.status !== 'offer' || channel.settings.reject_calls !== true) continue
          yield* Effect.promise(() => sock.rejectCall(call.id, call.from).catch(() => {}))
          const reply =
            typeof channel.settings.call_reply === 'string' ? channel.settings.call_reply.trim() : ''
          if (!reply) continue
          // Not a conversation message, but a send of this number all the same: logged (and counted).
          const id = ownMessageId()
          callReplies.add(id)
          if (callReplies.size > 100) callReplies.delete(callReplies.values().next().value as string)
          const error = yield* Effect.promise(() =>
            sock.sendMessage(call.from, { text: reply }, { messageId: id }).then(
              () => null,
              (e: unknown) => (e instanceof Error ? e.message : String(e)),
            ),
          )
          yield* Msgapp.logSend(channel.id, { messageId: null, jid: call.from, ok: error === null, error })
        }
      }
      if (conn?.connection === 'close') {
        const err = conn.lastDisconnect?.error as { output?: { statusCode?: number } } | undefined
        return { closed: err?.output?.statusCode ?? null }
      }
      return null
    })

  /** Connects and handles the socket's events until it closes; its close code. */
  const connection = Effect.gen(function* () {
    const { AuthState } = yield* Owned.attempt(deps.loadStack)
    const auth = yield* Owned.attempt(() => AuthState.load(channelId, deps.run))
    const events = yield* Queue.unbounded<Partial<BaileysEventMap>>()
    let closedByService = false
    const sock = yield* Effect.acquireRelease(
      Owned.attempt(() => deps.transport.connect(channelId, auth.state)),
      (sock) =>
        Effect.promise(async () => {
          deps.live.clearOpen(channelId, sock)
          if (st.socket === sock) st.socket = null
          if (closedByService) return
          if (st.logout) await sock.logout().catch(() => {})
          sock.end(undefined)
        }),
    )
    st.socket = sock
    st.qrCount = 0
    sock.ev.process((batch) => {
      Queue.unsafeOffer(events, batch)
    })
    for (;;) {
      const batch = yield* Queue.take(events)
      const outcome = yield* Effect.uninterruptible(handle(sock, batch, auth)).pipe(
        Effect.catchAllCause((cause) =>
          Effect.sync(() => {
            deps.log('msgapp event failed', { channel_id: channelId, error: String(Cause.squash(cause)) })
            return null
          }),
        ),
      )
      if (outcome) {
        closedByService = true
        return outcome.closed
      }
    }
  }).pipe(
    Effect.scoped,
    Effect.catchAll((e) =>
      Effect.sync(() => {
        deps.log('msgapp connect failed', { channel_id: channelId, error: String(e) })
        return null
      }),
    ),
  )

  /**
   * Records the close and decides what follows: the wait before connecting again, or null when
   * the number stays down. Whole once begun: the status it sets (a logout's) may stop the session.
   */
  const afterClose = (code: number | null) =>
    Effect.gen(function* () {
      yield* Msgapp.closed(channelId, code)
      // One line per close: the number, the service's code and what follows (no creds, no QR).
      const closedLog = (next: string, fields: Record<string, unknown> = {}) =>
        deps.log('msgapp connection closed', { channel_id: channelId, code, next, ...fields })
      if (code === 515) {
        closedLog('reconnect now')
        return 0
      }
      if (code === 401 || code === 403) {
        if (code === 401) yield* Msgapp.unlinked(channelId)
        const status = code === 401 ? 'logged_out' : 'banned'
        yield* setStatus(channelId, status)
        yield* notifyManagers(channelId, status)
        closedLog(`stay down (${status})`)
        return null
      }
      st.attempts++
      const base = Math.min(MAX_BACKOFF_MS, deps.backoffBaseMs * 2 ** (st.attempts - 1))
      const wait = Math.min(MAX_BACKOFF_MS, Math.round(base * (0.5 + Math.random())))
      yield* setStatus(channelId, 'reconnecting')
      closedLog('reconnect', { wait_ms: wait, attempt: st.attempts })
      return wait
    })

  return Effect.gen(function* () {
    for (;;) {
      const code = yield* connection
      const wait = yield* Effect.uninterruptible(afterClose(code))
      if (wait === null) return
      if (wait > 0) yield* Effect.sleep(Duration.millis(wait))
    }
  }).pipe(
    Effect.tapErrorCause((cause) =>
      Effect.sync(() =>
        deps.log('msgapp session failed', { channel_id: channelId, error: String(Cause.squash(cause)) }),
      ),
    ),
  )
}

/** Carries out pair and history requests made since the last look. */
const syncRequests = (channelId: number, st: NumberState, deps: Deps, row: Msgapp.NumberRow) =>
  Effect.gen(function* () {
    const sock = st.socket
    const pairAt = row.pair_requested_at?.getTime() ?? 0
    if (
      sock &&
      pairAt > st.seenPair &&
      row.pair_phone &&
      !row.pair_code &&
      !deps.live.openSocket(channelId)
    ) {
      st.seenPair = pairAt
      const phone = row.pair_phone
      yield* Owned.attempt(() => sock.requestPairingCode(phone.replace(/\D/g, ''))).pipe(
        Effect.flatMap((code) => Msgapp.setPairCode(channelId, row.pair_requested_at!, code)),
        Effect.catchAllCause((cause) =>
          Effect.sync(() =>
            deps.log('msgapp pairing code failed', {
              channel_id: channelId,
              error: String(Cause.squash(cause)),
            }),
          ),
        ),
      )
    }
    const historyAt = row.history_requested_at?.getTime() ?? 0
    const open = deps.live.openSocket(channelId)
    if (open && historyAt > st.seenHistory && row.history_days) {
      st.seenHistory = historyAt
      st.historyWindow = { since: historyAt - row.history_days * 86_400_000 }
      const chats = yield* Msgapp.oldestPerChat(channelId)
      for (const c of chats) {
        yield* Effect.promise(() =>
          open
            .fetchMessageHistory(
              HISTORY_BATCH,
              { remoteJid: c.jid, id: c.wa_id, fromMe: c.from_me },
              Math.floor(c.at.getTime() / 1000),
            )
            .catch((e: unknown) => deps.log('msgapp history request failed', { error: String(e) })),
        )
      }
      if (chats.length === 0) {
        yield* Msgapp.historyProgress(channelId, 100, 0)
        yield* publishHistory(channelId)
      }
    }
  })

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
      Effect.gen(function* () {
        // Compared with logout_requested_at, the database's now(): the process clock.
        const startedAt = systemMillis()
        const st: NumberState = {
          socket: null,
          attempts: 0,
          qrCount: 0,
          seenPair: 0,
          seenHistory: 0,
          historyWindow: null,
          logout: false,
        }
        // Runs while this node owns the number: the work's scope interrupts it on stop.
        yield* Effect.forkScoped(Effect.interruptible(numberSession(r.channel_id, st, deps)))
        // A logout asked for while this session ran (a bumped version) logs the number out on stop.
        const logoutAsked = (row: Msgapp.NumberRow | null) =>
          (row?.logout_requested_at?.getTime() ?? 0) >= startedAt
        return {
          listed: (row: typeof r) => syncRequests(r.channel_id, st, deps, row),
          stop: (why: Owned.Stop<typeof r>) =>
            Effect.promise(async () => {
              st.logout =
                why._tag === 'Changed'
                  ? logoutAsked(why.row)
                  : why._tag === 'Dropped' &&
                    // Dropped because the number was logged out (its status changes before its
                    // version), or a logout asked for while it ran.
                    ((await run(Channels.byId(r.channel_id)).catch(() => null))?.status === 'logged_out' ||
                      logoutAsked(await run(Msgapp.byChannel(r.channel_id)).catch(() => null)))
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
