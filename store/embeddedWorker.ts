import * as path from 'node:path'
import * as v8 from 'node:v8'
import { parentPort, workerData } from 'node:worker_threads'
import type { EmbeddedMemory } from '../engine/metrics'

/**
 * The embedded database's own thread: PGlite and its socket server (store/database.ts). PGlite
 * runs each statement synchronously in WebAssembly; in the node's main thread one long statement
 * would hold the event loop (no request, no health answer, no signal) until it ended. Here it
 * holds only this thread: the node talks to it over the unix socket, as before.
 *
 * workerData: { dataDir: string | 'memory', socketPath, settings }. Messages: posts `ready` once
 * the socket listens (or `failed` with the reason); on `close`, stops the socket server and closes
 * PGlite (a checkpoint), then posts `closed`; on `{ memory: id }`, answers `{ memory: id, figures }`
 * with this thread's memory (`memoryOf`), for the node's metrics.
 */
interface Start {
  readonly dataDir: string
  readonly socketPath: string
  readonly settings: Readonly<Record<string, string>>
}

/** The parts of PGlite's Emscripten module read here (PGlite's `Module`; not in its types). */
interface PgModule {
  readonly HEAPU8?: Uint8Array
  /** The address of PostgreSQL's `TopMemoryContext` variable (an exported data symbol). */
  readonly _TopMemoryContext?: number
  readonly _MemoryContextMemAllocated?: (context: number, recurse: number) => number
}

/**
 * This thread's memory: PGlite's WebAssembly memory (PostgreSQL's whole address space: shared
 * buffers, its memory contexts, malloc's free space; it grows and never shrinks), how much of it
 * PostgreSQL's memory contexts hold now (TopMemoryContext and all below it: caches, plans, the
 * current statement's memory), and this thread's own V8 heap (PGlite's JavaScript and the socket
 * server). Read between statements: a statement runs to its end synchronously on this thread.
 */
const memoryOf = (mod: PgModule | undefined): EmbeddedMemory => {
  const heap = v8.getHeapStatistics()
  const buffer = mod?.HEAPU8?.buffer
  let contexts: number | null = null
  if (buffer && mod?._TopMemoryContext !== undefined && mod._MemoryContextMemAllocated) {
    const top = new DataView(buffer).getUint32(mod._TopMemoryContext, true)
    if (top !== 0) contexts = mod._MemoryContextMemAllocated(top, 1)
  }
  return {
    wasmBytes: buffer?.byteLength ?? 0,
    contextBytes: contexts,
    heapUsedBytes: heap.used_heap_size,
    heapTotalBytes: heap.total_heap_size,
  }
}

const start = async ({ dataDir, socketPath, settings }: Start) => {
  const [{ PGlite }, { pg_trgm }, { unaccent }, { vector }, { PGLiteSocketServer }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
    import('@electric-sql/pglite/contrib/unaccent'),
    import('@electric-sql/pglite-pgvector'),
    import('@electric-sql/pglite-socket'),
  ])
  // pg_trgm serves the inbox search's indexes (migration 0012), as on PostgreSQL; unaccent and
  // pgvector the knowledge base's keyword and semantic search (migration 0075).
  const options = {
    extensions: { pg_trgm, unaccent, vector },
    startParams: [
      ...PGlite.defaultStartParams,
      ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    ],
  }
  const db = dataDir === 'memory' ? new PGlite(options) : new PGlite(path.join(dataDir, 'pg'), options)
  await db.waitReady
  // The node's pool takes one connection; the others are for an operator's tool on the same
  // machine, and a reconnect while a closed connection is still being cleaned up. PGlite runs one
  // session's statements at a time (a transaction's to its end).
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 4 })
  await server.start()
  // Closing, PostgreSQL shuts down and its memory contexts go: not read from then on.
  let closing = false
  return {
    memory: () => memoryOf(closing ? undefined : (db.Module as unknown as PgModule)),
    stop: async () => {
      closing = true
      await server.stop().catch(() => {})
      await db.close().catch(() => {})
    },
  }
}

const port = parentPort
if (port) {
  let running: Awaited<ReturnType<typeof start>> | null = null
  port.on('message', (m: unknown) => {
    if (m === 'close') {
      void (running?.stop() ?? Promise.resolve()).then(() => port.postMessage('closed'))
      return
    }
    const id = (m as { memory?: unknown } | null)?.memory
    if (typeof id === 'number')
      port.postMessage({ memory: id, figures: running?.memory() ?? memoryOf(undefined) })
  })
  start(workerData as Start).then(
    (s) => {
      running = s
      port.postMessage('ready')
    },
    (e: unknown) => port.postMessage({ failed: e instanceof Error ? e.message : String(e) }),
  )
}
