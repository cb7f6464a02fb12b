/**
 * Micro-benchmark of the request pipeline without the network: `GET /v1/me` with an API key run
 * through routing, credential cache, rate limit, access checks, handler and envelope, as the uWS
 * transport calls it (`runFast(handle.withServices(services)(router, req))`), on the embedded database.
 *
 *   npx tsx bench/pipeline.ts                       (wall and CPU µs per request, medians of 5 rounds)
 *   node --cpu-prof --import tsx bench/pipeline.ts  (and a CPU profile of the rounds)
 *
 * The `kernel` k6 scenario measures the same path over HTTP; this one shows what the service's
 * own code costs per request, free of the load generator sharing the machine.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Effect, ManagedRuntime } from 'effect'
import { loadConfig } from '../engine/config.js'
import { makeLogger } from '../engine/log.js'
import { runFast } from '../engine/step.js'
import { handle } from '../http/apiPipeline.js'
import { allRoutes, servicesLayer } from '../http/app.js'
import type { Incoming, Outgoing } from '../http/pipeline.js'
import type { Route, Services } from '../http/route.js'
import * as Router from '../http/router.js'
import * as ApiKeys from '../store/apiKeys.js'
import * as Workspaces from '../store/workspaces.js'

const ROUNDS = 5
const PER_ROUND = 50_000
const BATCH = 50

const main = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kotak-bench-'))
  const cfg = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'error', RATE_LIMIT_PER_KEY: '100000000' })
  const runtime = ManagedRuntime.make(
    servicesLayer(cfg, {
      database: { url: undefined, dataDir: 'memory', socketDir: dir },
      logger: makeLogger('error'),
    }),
  )
  const key = await runtime.runPromise(
    Effect.gen(function* () {
      const { workspace, user } = yield* Workspaces.create({
        name: 'Bench',
        timezone: 'Asia/Jakarta',
        plan: 'pro',
        proUntil: null,
        owner: { email: 'owner@example.com', name: 'Owner' },
      })
      return (yield* ApiKeys.create(workspace.id, user.id, 'bench', 'write')).key
    }),
  )
  const router = Router.make<Route>()
  for (const r of allRoutes()) router.add(r.method, r.path, r)
  const run = runFast(runtime)
  const serve = handle.withServices(await runtime.runPromise(Effect.context<Services>()))
  const headers = new Map([
    ['authorization', `Bearer ${key}`],
    ['host', '127.0.0.1'],
    ['user-agent', 'bench'],
    ['accept', '*/*'],
  ])
  const req: Incoming = {
    method: 'GET',
    path: '/v1/me',
    query: '',
    headers,
    body: null,
    ip: () => '127.0.0.1',
  }
  let last: Outgoing | null = null
  const once = () =>
    run(serve(router, req), (out) => {
      last = out
    })
  // The first request loads the key into the credential cache; later ones complete synchronously.
  await new Promise<void>((resolve) =>
    run(serve(router, req), () => {
      resolve()
    }),
  )
  // Batches with a turn of the event loop between them, as the transport runs: work a request
  // leaves for later (timers, forked fibers) runs and is counted, and nothing piles up.
  const batch = async (n: number) => {
    for (let i = 0; i < n; i += BATCH) {
      for (let j = 0; j < BATCH; j++) once()
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
  }
  await batch(20_000)
  if ((last as Outgoing | null)?.status !== 200)
    throw new Error(`GET /v1/me answered ${(last as Outgoing | null)?.status}`)
  // Wall time per request, and the process's CPU time per request, which a busy machine (other
  // processes taking turns on the cores) inflates far less than the wall clock.
  const rounds: number[] = []
  const cpuRounds: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = process.hrtime.bigint()
    const c0 = process.cpuUsage()
    await batch(PER_ROUND)
    const c = process.cpuUsage(c0)
    rounds.push(Number(process.hrtime.bigint() - t0) / 1000 / PER_ROUND)
    cpuRounds.push((c.user + c.system) / PER_ROUND)
  }
  const median = (xs: number[]) =>
    Number([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(2))
  process.stdout.write(
    `${JSON.stringify({
      path: 'GET /v1/me (API key)',
      us_per_request: median(rounds),
      cpu_us_per_request: median(cpuRounds),
      rounds: rounds.map((x) => Number(x.toFixed(2))),
      cpu_rounds: cpuRounds.map((x) => Number(x.toFixed(2))),
    })}\n`,
  )
  await runtime.dispose()
  fs.rmSync(dir, { recursive: true, force: true })
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
  process.exit(1)
})
