import * as http from 'node:http'
import { Cause, Effect, Exit, Runtime, type Scope } from 'effect'

/**
 * A loopback-only HTTP endpoint for the cluster tests (`CLUSTER_TEST_PORT`; off unless set). It
 * exposes what the public API does not: asking any actor of this node directly, through the
 * cluster, and the node's view of the cluster.
 *
 * - `GET /status` → `ClusterStatus` (shards held, entities living here, Redis health).
 * - `POST /ask` `{actor, id, message}` → 200 `{data: reply}`; a typed error → 409
 *   `{error: {_tag, message, fields}}`; `ActorStopped` (incl. unreachable) or `ActorLoadFailed` →
 *   503; a defect → 500.
 *
 * Messages arrive as JSON, so they carry no `Date`s; replies leave as JSON.
 */
const json = (res: http.ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))
  res.writeHead(status, { 'content-type': 'application/json' }).end(text)
}

const readBody = (req: http.IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })

const describeError = (e: unknown) => {
  if (e !== null && typeof e === 'object') {
    const fields: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(e))
      if (k !== '_tag') fields[k] = Cause.isCause(v) ? Cause.pretty(v) : v
    const tag = (e as { _tag?: unknown })._tag
    return {
      _tag: typeof tag === 'string' ? tag : null,
      message: e instanceof Error ? e.message : String(e),
      class: (e as object).constructor?.name ?? null,
      fields,
    }
  }
  return { _tag: null, message: String(e), class: null, fields: {} }
}

/**
 * The part of a cluster node the endpoint reads. Stated here rather than imported from
 * `Cluster.ts`, which starts this endpoint: that keeps the two modules out of an import circle.
 */
export interface Endpointed {
  readonly status: Effect.Effect<unknown>
  readonly actors: ReadonlyMap<
    string,
    {
      readonly cluster: {
        readonly ask: (id: string | number, msg: { _tag: string }) => Effect.Effect<unknown, unknown>
      }
    }
  >
}

const UNAVAILABLE = new Set(['ActorStopped', 'ActorLoadFailed'])

export const serve = (node: Endpointed, port: number): Effect.Effect<number, never, Scope.Scope> =>
  Effect.gen(function* () {
    const run = Runtime.runPromiseExit(yield* Effect.runtime<never>())
    const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (req.method === 'GET' && req.url === '/status')
        return json(res, 200, await Effect.runPromise(node.status))
      if (req.method !== 'POST' || req.url !== '/ask') return json(res, 404, { error: 'not found' })
      const body = JSON.parse(await readBody(req)) as {
        actor: string
        id: string | number
        message: { _tag: string }
      }
      const entry = node.actors.get(body.actor)
      if (!entry) return json(res, 404, { error: `no actor ${body.actor}` })
      const exit = await run(entry.cluster.ask(body.id, body.message))
      if (Exit.isSuccess(exit)) return json(res, 200, { data: exit.value })
      const failure = Cause.failureOption(exit.cause)
      if (failure._tag === 'None') return json(res, 500, { error: { message: Cause.pretty(exit.cause) } })
      const error = describeError(failure.value)
      return json(res, error._tag !== null && UNAVAILABLE.has(error._tag) ? 503 : 409, { error })
    }
    const server = http.createServer((req, res) => {
      handle(req, res).catch((e: unknown) => json(res, 500, { error: { message: String(e) } }))
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => {
        server.listen(port, '127.0.0.1', () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        }),
    )
    const address = server.address()
    return typeof address === 'object' && address !== null ? address.port : port
  })
