import type uws from 'uWebSockets.js'
import { STATUS_CODES } from 'node:http'
import { Cause, Effect, Exit } from 'effect'
import { pickLocale } from '../../actors/i18n'
import type { BusShape } from '../../engine/bus/Bus'
import { systemMillis } from '../../engine/clock'
import {
  type ControlMessage,
  CREDENTIALS_TOPIC,
  type CredentialScope,
  RECHECK_FRAME,
  userControlTopic,
} from '../../engine/events'
import type { Logger } from '../../engine/log'
import * as Livechat from '../../store/livechat'
import * as Members from '../../store/members'
import { unavailableIn } from '../../store/pool'
import * as Sessions from '../../store/sessions'
import { failureResponse } from '../pipeline'
import type { Services } from '../route'
import { authorize } from './channels'
import { makeHub } from './hub'
import { type ClientFrame, closeCodes, parseFrame, SLOW_CONSUMER_BYTES } from './protocol'
import { type Grant, verify } from './token'

/**
 * The WebSocket side of the real-time gateway. A socket authenticates once, at upgrade, with a
 * signed token; every channel is authorised when subscribed (deny by default); access lost later
 * arrives as a control message on the user's control topic and unsubscribes or closes.
 */
export const REALTIME_PATH = '/v1/realtime'

interface SocketData {
  /** 0 for a live chat visitor's socket. */
  readonly userId: number
  readonly workspaceId: number
  readonly visitor: string | undefined
  /** The app session the socket's token was asked with, if it names one. */
  readonly session: number | undefined
  readonly initial: readonly string[]
  readonly channels: Set<string>
  closed: boolean
}

type Socket = uws.WebSocket<SocketData>

export interface GatewayDeps {
  readonly signingKey: Buffer
  readonly bus: BusShape
  readonly log: Logger
  readonly idleSeconds: number
  /** Runs an effect on the node's runtime. */
  readonly run: <A, E>(e: Effect.Effect<A, E, Services>) => Promise<A>
}

export interface Gateway {
  readonly configure: (app: uws.TemplatedApp) => void
  readonly connections: () => number
  readonly close: () => void
}

const text = (v: unknown) => JSON.stringify(v)

/**
 * Why a socket's channel check failed, logged: the database busy or out of reach (a warning, and
 * returned: the socket is closed to reconnect) or a fault (an error, with its cause).
 */
const diagnose = (
  log: Logger,
  what: string,
  cause: Cause.Cause<unknown>,
  context: Record<string, unknown>,
) => {
  const busy = unavailableIn(Cause.squash(cause))
  if (busy) log.warn(`${what}: database unavailable`, { ...context, error: busy.error.message })
  else log.error(`${what} failed`, { ...context, cause: Cause.pretty(cause) })
  return busy
}
const CONTROL_PREFIX = userControlTopic(0).slice(0, -1)
const RECHECK = Buffer.from(RECHECK_FRAME)
const whoOf = (d: SocketData) =>
  d.visitor === undefined
    ? { userId: d.userId, workspaceId: d.workspaceId }
    : { userId: 0, workspaceId: d.workspaceId, visitor: d.visitor }

export const makeGateway = (deps: GatewayDeps): Gateway => {
  const sockets = new Set<Socket>()
  const byUser = new Map<number, Set<Socket>>()
  const byTopic = new Map<string, Set<Socket>>()
  let hub: ReturnType<typeof makeHub> | undefined
  let sweeper: NodeJS.Timeout | undefined
  let stopCredentials: Effect.Effect<void> | undefined
  const fire = <A>(e: Effect.Effect<A>) => {
    deps.run(e).catch((err: unknown) => deps.log.error('realtime bus call failed', { cause: String(err) }))
  }

  const send = (ws: Socket, frame: unknown) => {
    if (!ws.getUserData().closed) ws.send(text(frame), false)
  }

  const leave = (ws: Socket, channel: string) => {
    const data = ws.getUserData()
    if (!data.channels.delete(channel)) return false
    const holders = byTopic.get(channel)
    holders?.delete(ws)
    if (holders?.size === 0) byTopic.delete(channel)
    if (!data.closed) ws.unsubscribe(channel)
    hub?.leave(channel)
    return true
  }

  const onControl = (userId: number, payload: Uint8Array) => {
    const msg = JSON.parse(Buffer.from(payload).toString('utf8')) as ControlMessage
    for (const ws of [...(byUser.get(userId) ?? [])]) {
      if (msg.op === 'revoke') {
        if (leave(ws, msg.topic)) send(ws, { op: 'unsubscribed', channel: msg.topic, reason: 'access_lost' })
      } else if (msg.session === undefined || msg.session === ws.getUserData().session) {
        ws.end(closeCodes.accessLost.code, closeCodes.accessLost.reason)
      }
    }
  }

  const subscribe = async (ws: Socket, channel: string, since: string | undefined, ref: unknown) => {
    const data = ws.getUserData()
    const exit = await deps
      .run(Effect.exit(authorize(whoOf(data), channel)))
      .catch((e: unknown) => Exit.die(e))
    // The database unable to serve now is no answer about the channel: a `refused` would stand
    // until the client reconnects. The socket closes with a code that reconnects (with backoff)
    // and resumes every channel from its cursor, so nothing is missed meanwhile.
    const verdict = Exit.isSuccess(exit)
      ? exit.value
      : diagnose(deps.log, 'realtime subscribe', exit.cause, { channel })
        ? ('unavailable' as const)
        : ('error' as const)
    if (data.closed) return
    if (verdict === 'unavailable') {
      ws.end(closeCodes.unavailable.code, closeCodes.unavailable.reason)
      return
    }
    if (verdict !== 'granted') {
      const code = verdict === 'error' ? 'server_error' : verdict
      send(ws, { op: 'refused', channel, code, message: refusalText[code], ref })
      return
    }
    if (!data.channels.has(channel)) {
      data.channels.add(channel)
      let holders = byTopic.get(channel)
      if (!holders) {
        holders = new Set()
        byTopic.set(channel, holders)
      }
      holders.add(ws)
      const joined = hub!.join(channel)
      ws.subscribe(channel)
      // `subscribed` promises every event from now on: not before the bus delivers the topic.
      await joined
      if (data.closed || !data.channels.has(channel)) return
    }
    send(ws, { op: 'subscribed', channel, ref })
    if (since !== undefined) {
      const missed = hub!.since(channel, since)
      if (missed === null) send(ws, { op: 'reload', channel, ref })
      else for (const bytes of missed) ws.send(bytes, false)
    }
  }

  /**
   * Access to a topic may have changed: re-authorise this node's subscribers of it. A check that
   * cannot be made (the database unable to serve, or a fault) closes the socket with 4013 rather
   * than leave the subscription as it was: the change may have taken the access away, and the
   * client reconnects and has every channel authorised again.
   */
  const recheckOne = (ws: Socket, topic: string) => {
    const data = ws.getUserData()
    deps
      .run(Effect.exit(authorize(whoOf(data), topic)))
      .catch((e: unknown) => Exit.die(e))
      .then((exit) => {
        if (data.closed || !data.channels.has(topic)) return
        if (Exit.isFailure(exit)) {
          diagnose(deps.log, 'realtime recheck', exit.cause, { topic })
          ws.end(closeCodes.unavailable.code, closeCodes.unavailable.reason)
        } else if (exit.value !== 'granted' && leave(ws, topic)) {
          send(ws, { op: 'unsubscribed', channel: topic, reason: 'access_lost' })
        }
      })
  }
  const recheck = (topic: string) => {
    for (const ws of [...(byTopic.get(topic) ?? [])]) recheckOne(ws, topic)
  }

  /**
   * A member, role, team or workspace changed (every such change drops the cached credentials it
   * made stale, engine/events.ts `invalidateCredentials`): what its sockets may see can have
   * changed with it (view-all turned off, channel access narrowed, a team left, a role's
   * permissions), so their conversation and ticket channels are authorised again. Workspace and
   * user channels need only the membership, whose end closes the sockets (`disconnect`). A
   * visitor's socket is checked again too: an archived channel ends its chats' subscriptions.
   */
  const onCredentials = (payload: Uint8Array) => {
    let scope: CredentialScope
    try {
      scope = JSON.parse(Buffer.from(payload).toString('utf8')) as CredentialScope
    } catch {
      scope = { all: true }
    }
    const affected =
      'userId' in scope
        ? [...(byUser.get(scope.userId) ?? [])]
        : 'workspaceId' in scope
          ? [...sockets].filter((ws) => ws.getUserData().workspaceId === scope.workspaceId)
          : [...sockets]
    for (const ws of affected) {
      const data = ws.getUserData()
      // A visitor's one channel lives while its chat's channel does (archived: no longer).
      for (const channel of data.channels)
        if (data.visitor !== undefined || channel.startsWith('conv:') || channel.startsWith('ticket:'))
          recheckOne(ws, channel)
    }
  }

  const onFrame = (ws: Socket, frame: ClientFrame) => {
    switch (frame.op) {
      case 'ping':
        send(ws, { op: 'pong', ref: frame.ref })
        return
      case 'unsubscribe':
        leave(ws, frame.channel)
        send(ws, { op: 'unsubscribed', channel: frame.channel, reason: 'requested', ref: frame.ref })
        return
      case 'subscribe':
        void subscribe(ws, frame.channel, frame.since, frame.ref)
        return
    }
  }

  return {
    connections: () => sockets.size,
    configure: (app) => {
      // Control topics travel the bus like any topic but are handled here, not sent to clients.
      hub = makeHub(app, deps.bus, fire, (topic, payload) => {
        if (topic.startsWith(CONTROL_PREFIX)) {
          onControl(Number(topic.slice(CONTROL_PREFIX.length)), payload)
          return true
        }
        if (payload.length === RECHECK.length && Buffer.from(payload).equals(RECHECK)) {
          recheck(topic)
          return true
        }
        return false
      })
      fire(
        Effect.map(deps.bus.subscribe(CREDENTIALS_TOPIC, onCredentials), (unsubscribe) => {
          stopCredentials = unsubscribe
        }),
      )
      // Slow consumers: uWS keeps unsent bytes per socket; past the limit the socket is closed
      // with its own code rather than letting memory grow (the client resumes with a cursor).
      sweeper = setInterval(() => {
        for (const ws of sockets) {
          if (ws.getBufferedAmount() > SLOW_CONSUMER_BYTES) {
            ws.end(closeCodes.slowConsumer.code, closeCodes.slowConsumer.reason)
          }
        }
      }, 100)
      sweeper.unref()

      app.ws<SocketData>(REALTIME_PATH, {
        maxPayloadLength: 16 * 1024,
        // uWS pings a quiet socket and closes it when nothing (no pong) came back in time.
        idleTimeout: deps.idleSeconds,
        sendPingsAutomatically: true,
        // Far above the slow-consumer limit: the sweep (every 100 ms) closes a socket long before
        // uWS would skip its messages, and the close frame still fits behind the buffered data.
        maxBackpressure: 16 * SLOW_CONSUMER_BYTES,
        upgrade: (res, req, context) => {
          const query = new URLSearchParams(req.getQuery() ?? '')
          const key = req.getHeader('sec-websocket-key')
          const protocol = req.getHeader('sec-websocket-protocol')
          const extensions = req.getHeader('sec-websocket-extensions')
          const locale = pickLocale(req.getHeader('x-locale') || undefined)
          let aborted = false
          res.onAborted(() => {
            aborted = true
          })
          const refuse = (status: string, code: string, message: string) =>
            res.cork(() => {
              res
                .writeStatus(status)
                .writeHeader('Content-Type', 'application/json')
                .end(text({ error: { code, message } }))
            })
          // Answered as the request pipeline answers a failure (the database busy or out of reach
          // is 503 with Retry-After, which the app's reconnect waits out; a fault is a logged 500).
          const failed = (cause: Cause.Cause<unknown>) => {
            const out = failureResponse(cause, { headers: [], locale, requestId: '' }, deps.log, {
              route: REALTIME_PATH,
              method: 'GET',
            })
            res.cork(() => {
              res.writeStatus(`${out.status} ${STATUS_CODES[out.status] ?? ''}`)
              for (const [k, v] of out.headers) res.writeHeader(k, v)
              res.end(out.body)
            })
          }
          const grant: Grant | null = verify(deps.signingKey, query.get('token'), systemMillis())
          if (!grant) {
            refuse('401 Unauthorized', 'unauthorized', 'Missing, invalid or expired real-time token.')
            return
          }
          // A member's token needs a live membership and the session that asked for it still
          // going (a token taken just before signing out opens nothing); a visitor's token a live
          // chat session.
          const admitted: Effect.Effect<boolean, unknown, Services> =
            grant.v === undefined
              ? Effect.flatMap(Members.activeMembership(grant.u, grant.w), (m) =>
                  m === null
                    ? Effect.succeed(false)
                    : grant.s === undefined
                      ? Effect.succeed(true)
                      : Sessions.isActive(grant.s),
                )
              : Effect.map(Livechat.liveSession(grant.v, grant.w), (v) => v !== null)
          deps.run(Effect.exit(admitted)).then(
            (exit) => {
              if (aborted) return
              if (exit._tag === 'Failure') {
                failed(exit.cause)
                return
              }
              if (!exit.value) {
                refuse(
                  '401 Unauthorized',
                  'unauthorized',
                  'No longer a member of this workspace, or signed out.',
                )
                return
              }
              res.cork(() => {
                res.upgrade<SocketData>(
                  {
                    userId: grant.v === undefined ? grant.u : 0,
                    workspaceId: grant.w,
                    visitor: grant.v,
                    session: grant.s,
                    initial: grant.ch,
                    channels: new Set(),
                    closed: false,
                  },
                  key,
                  protocol,
                  extensions,
                  context,
                )
              })
            },
            (e: unknown) => {
              if (!aborted) failed(Cause.die(e))
            },
          )
        },
        open: (ws) => {
          const data = ws.getUserData()
          sockets.add(ws)
          if (data.visitor !== undefined) {
            for (const channel of data.initial) void subscribe(ws, channel, undefined, undefined)
            return
          }
          let mine = byUser.get(data.userId)
          if (!mine) {
            mine = new Set()
            byUser.set(data.userId, mine)
            void hub!.join(userControlTopic(data.userId))
          }
          mine.add(ws)
          for (const channel of data.initial) void subscribe(ws, channel, undefined, undefined)
        },
        message: (ws, message) => {
          // The buffer is only valid during this call: decode it now.
          const frame = parseFrame(Buffer.from(message).toString('utf8'))
          if (!frame) {
            send(ws, {
              op: 'error',
              code: 'invalid_message',
              message: 'Expected a JSON frame with a known op.',
            })
            return
          }
          onFrame(ws, frame)
        },
        close: (ws) => {
          const data = ws.getUserData()
          data.closed = true
          sockets.delete(ws)
          for (const channel of [...data.channels]) leave(ws, channel)
          if (data.visitor !== undefined) return
          const mine = byUser.get(data.userId)
          mine?.delete(ws)
          if (mine && mine.size === 0) {
            byUser.delete(data.userId)
            hub!.leave(userControlTopic(data.userId))
          }
        },
      })
    },
    close: () => {
      if (sweeper) clearInterval(sweeper)
      for (const ws of [...sockets]) ws.end(1001, 'going_away')
      if (stopCredentials) fire(stopCredentials)
      hub?.close()
    },
  }
}

const refusalText: Record<string, string> = {
  forbidden: 'You may not subscribe to this channel.',
  unknown_channel: 'No such channel type.',
  server_error: 'Server fault; retry later.',
}
