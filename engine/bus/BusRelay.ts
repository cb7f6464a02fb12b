import * as fs from 'node:fs'
import * as net from 'node:net'
import * as path from 'node:path'
import { Deferred, Effect, Layer, Runtime, type Scope } from 'effect'
import { Bus, type BusShape } from './Bus'
import { logThrown, make as makeMemory, makeRegistry } from './BusMemory'

/**
 * The bus of one node without Redis, shared with processes beside it on the same machine (the
 * operator's CLI): the node is the hub and listens on a unix socket under DATA_DIR; a process
 * beside it connects as a spoke. Without it, a CLI command that changes what the node holds in
 * memory (a cached plan, a frozen workspace) would not reach the node until it restarted.
 *
 * Same contract as the other adapters (Bus.ts), with the hub as the deployment's one node: the
 * hub dispatches its own publishes locally and forwards them to the spokes subscribed to the
 * topic; a spoke dispatches locally and hands the message to the hub, which dispatches it and
 * forwards it to the other spokes. A spoke's publish and subscribe complete once the hub has
 * acknowledged them, so a CLI that exits has been heard. Who may connect is who may open the
 * socket: the directory's and the socket's permissions (owner only), as for the embedded
 * database's own socket beside it.
 *
 * Frames: the length of the rest (4 bytes), the op (1), an id (4), the topic's length (2), the
 * topic (UTF-8), the payload; numbers big-endian.
 */
export const socketOf = (dataDir: string): string => path.join(dataDir, '.kotak-bus.sock')

const OPS = ['pub', 'sub', 'unsub', 'ack', 'msg'] as const
type Op = (typeof OPS)[number]
type Frame = readonly [op: Op, id: number, topic: string, payload: Uint8Array]
const MAX_FRAME = 16 * 1024 * 1024
const HEAD = 4 + 1 + 4 + 2

const encodeFrame = ([op, id, topic, payload]: Frame): Buffer => {
  const t = Buffer.from(topic, 'utf8')
  const head = Buffer.allocUnsafe(HEAD)
  head.writeUInt32BE(HEAD - 4 + t.length + payload.length, 0)
  head.writeUInt8(OPS.indexOf(op), 4)
  head.writeUInt32BE(id, 5)
  head.writeUInt16BE(t.length, 9)
  return Buffer.concat([head, t, payload])
}

/** Feeds a socket's bytes in, calls `onFrame` per whole frame; a malformed one ends the socket. */
const reader = (socket: net.Socket, onFrame: (f: Frame) => void) => {
  let pending: Buffer = Buffer.alloc(0)
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    while (pending.length >= 4) {
      const size = pending.readUInt32BE(0)
      if (size > MAX_FRAME || size < HEAD - 4) return socket.destroy()
      if (pending.length < 4 + size) return
      const frame = pending.subarray(0, 4 + size)
      pending = pending.subarray(4 + size)
      const op = OPS[frame.readUInt8(4)]
      const topicEnd = HEAD + frame.readUInt16BE(9)
      if (op === undefined || topicEnd > frame.length) return socket.destroy()
      // A copy: handlers may keep the payload, and `pending` is reused.
      const payload = new Uint8Array(frame.subarray(topicEnd))
      onFrame([op, frame.readUInt32BE(5), frame.toString('utf8', HEAD, topicEnd), payload])
    }
  })
}

const EMPTY = new Uint8Array(0)

/** Whether nothing listens at `socketPath` (no file, or a file nobody serves). */
const isAbsent = (e: unknown) => {
  const code = (e as NodeJS.ErrnoException | undefined)?.code
  return code === 'ENOENT' || code === 'ECONNREFUSED'
}

/** A connection to whatever listens at `socketPath`; null when nothing does. */
const dial = (socketPath: string) =>
  Effect.async<net.Socket | null, Error>((resume) => {
    const s = net.createConnection(socketPath)
    s.once('connect', () => {
      s.removeAllListeners('error')
      s.on('error', () => {})
      resume(Effect.succeed(s))
    })
    s.once('error', (e) =>
      resume(
        isAbsent(e) ? Effect.succeed(null) : Effect.fail(new Error(`bus socket ${socketPath}: ${e.message}`)),
      ),
    )
  })

/**
 * The node's side: listens on `socketPath` for the life of the scope. Fails when another process
 * already serves it (a second node on the same DATA_DIR), so that one keeps its socket.
 */
export const makeHub = (socketPath: string): Effect.Effect<BusShape, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const other = yield* dial(socketPath)
    if (other) {
      other.destroy()
      return yield* Effect.fail(new Error(`another process serves the bus socket ${socketPath}`))
    }
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const local = makeRegistry()
    /** Each connected spoke and the topics it has handlers for. */
    const spokes = new Map<net.Socket, Set<string>>()
    const forward = (topic: string, payload: Uint8Array, except?: net.Socket) => {
      let frame: Buffer | undefined
      for (const [socket, topics] of spokes) {
        if (socket === except || !topics.has(topic)) continue
        frame ??= encodeFrame(['msg', 0, topic, payload])
        socket.write(frame)
      }
    }
    const server = net.createServer((socket) => {
      const topics = new Set<string>()
      spokes.set(socket, topics)
      socket.on('error', () => {})
      socket.on('close', () => spokes.delete(socket))
      reader(socket, ([op, id, topic, payload]) => {
        if (op === 'pub') {
          runFork(logThrown(topic, local.dispatch(topic, payload)))
          forward(topic, payload, socket)
        } else if (op === 'sub') topics.add(topic)
        else if (op === 'unsub') topics.delete(topic)
        else return socket.destroy()
        socket.write(encodeFrame(['ack', id, '', EMPTY]))
      })
    })
    yield* Effect.acquireRelease(
      Effect.async<void, Error>((resume) => {
        // A socket file left by a node that was killed: nobody answers on it (dialled above).
        fs.rmSync(socketPath, { force: true })
        // DATA_DIR is made on first start on PostgreSQL too (the embedded database makes its own).
        try {
          fs.mkdirSync(path.dirname(socketPath), { recursive: true })
        } catch (e) {
          return resume(Effect.fail(new Error(`cannot create ${path.dirname(socketPath)} (DATA_DIR): ${e}`)))
        }
        server.once('error', (e) =>
          resume(
            Effect.fail(new Error(`cannot listen on the bus socket ${socketPath} (DATA_DIR): ${e.message}`)),
          ),
        )
        server.listen(socketPath, () => {
          fs.chmodSync(socketPath, 0o600)
          resume(Effect.void)
        })
      }),
      () =>
        Effect.async<void>((resume) => {
          for (const s of spokes.keys()) s.destroy()
          server.close(() => resume(Effect.void))
        }),
    )
    return {
      publish: (topic, payload) =>
        Effect.suspend(() => {
          forward(topic, payload)
          return logThrown(topic, local.dispatch(topic, payload))
        }),
      subscribe: (topic, handler) =>
        Effect.sync(() => {
          const { remove } = local.add(topic, handler)
          return Effect.sync(() => {
            remove()
          })
        }),
    }
  })

/**
 * A process beside the node: null when no node listens at `socketPath`. Calls wait up to
 * `timeoutMs` (default 5 s) for the hub's acknowledgement; a failure is logged, never returned.
 */
export const connect = (
  socketPath: string,
  options: { readonly timeoutMs?: number } = {},
): Effect.Effect<BusShape | null, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const timeoutMs = options.timeoutMs ?? 5_000
    const socket = yield* Effect.acquireRelease(dial(socketPath), (s) => Effect.sync(() => s?.destroy()))
    if (!socket) return null
    const local = makeRegistry()
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const waiting = new Map<number, Deferred.Deferred<void>>()
    /** Topic → the hub's acknowledgement of its subscription, awaited by every later subscriber. */
    const joined = new Map<string, Deferred.Deferred<void>>()
    let nextId = 1
    reader(socket, ([op, id, topic, payload]) => {
      if (op === 'ack') {
        const d = waiting.get(id)
        waiting.delete(id)
        if (d) Deferred.unsafeDone(d, Effect.void)
      } else if (op === 'msg') runFork(logThrown(topic, local.dispatch(topic, payload)))
    })
    const call = (op: 'pub' | 'sub' | 'unsub', topic: string, payload: Uint8Array) =>
      Effect.gen(function* () {
        const id = nextId++
        const done = yield* Deferred.make<void>()
        waiting.set(id, done)
        if (socket.destroyed) return yield* Effect.fail(new Error('the node closed the bus socket'))
        socket.write(encodeFrame([op, id, topic, payload]))
        yield* Deferred.await(done).pipe(
          Effect.timeoutFail({ duration: timeoutMs, onTimeout: () => new Error('the node did not answer') }),
        )
      }).pipe(
        Effect.catchAll((e) =>
          Effect.logError(`bus relay: ${op} failed`).pipe(Effect.annotateLogs({ topic, error: e.message })),
        ),
      )
    return {
      publish: (topic, payload) =>
        Effect.suspend(() =>
          Effect.zipRight(logThrown(topic, local.dispatch(topic, payload)), call('pub', topic, payload)),
        ),
      subscribe: (topic, handler) =>
        Effect.gen(function* () {
          const { first, remove } = local.add(topic, handler)
          const off = Effect.suspend(() => {
            if (!remove()) return Effect.void
            joined.delete(topic)
            return call('unsub', topic, EMPTY)
          })
          if (first) {
            const acked = yield* Deferred.make<void>()
            joined.set(topic, acked)
            yield* call('sub', topic, EMPTY)
            yield* Deferred.succeed(acked, undefined)
          } else {
            const acked = joined.get(topic)
            if (acked) yield* Deferred.await(acked)
          }
          return off
        }),
    } satisfies BusShape
  })

/** The node's bus when no Redis joins it to others: a hub at `socketPath`. */
export const layerHub = (socketPath: string): Layer.Layer<Bus, Error> =>
  Layer.scoped(Bus, makeHub(socketPath))

/**
 * A process beside a node: a spoke of the node's hub when one listens at `socketPath`; else
 * (no node runs) a bus of its own, or a failure when `required`.
 */
export const layerBeside = (socketPath: string, required: string | null): Layer.Layer<Bus, Error> =>
  Layer.scoped(
    Bus,
    Effect.flatMap(connect(socketPath), (bus) =>
      bus ? Effect.succeed(bus) : required ? Effect.fail(new Error(required)) : Effect.sync(makeMemory),
    ),
  )
