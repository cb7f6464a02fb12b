import * as path from 'node:path'
import { parentPort, workerData } from 'node:worker_threads'

/**
 * The embedded database's own thread: PGlite and its socket server (store/database.ts). PGlite
 * runs each statement synchronously in WebAssembly; in the node's main thread one long statement
 * would hold the event loop (no request, no health answer, no signal) until it ended. Here it
 * holds only this thread: the node talks to it over the unix socket, as before.
 *
 * workerData: { dataDir: string | 'memory', socketPath, settings }. Messages: posts `ready` once
 * the socket listens (or `failed` with the reason); on `close`, stops the socket server and closes
 * PGlite (a checkpoint), then posts `closed`.
 */
interface Start {
  readonly dataDir: string
  readonly socketPath: string
  readonly settings: Readonly<Record<string, string>>
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
  return async () => {
    await server.stop().catch(() => {})
    await db.close().catch(() => {})
  }
}

const port = parentPort
if (port) {
  let stop: (() => Promise<void>) | null = null
  port.on('message', (m: unknown) => {
    if (m !== 'close') return
    void (stop ?? (async () => {}))().then(() => port.postMessage('closed'))
  })
  start(workerData as Start).then(
    (s) => {
      stop = s
      port.postMessage('ready')
    },
    (e: unknown) => port.postMessage({ failed: e instanceof Error ? e.message : String(e) }),
  )
}
