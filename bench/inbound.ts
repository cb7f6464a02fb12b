/**
 * Micro-benchmark of the write path without the network: `POST /v1/channel-api/messages` (an API
 * channel's inbound message, 40 conversations) run through the pipeline as the uWS transport calls
 * it (`runFast(handle.withServices(services)(router, req))`), then the ConversationActor, the group
 * commit and the events — on PostgreSQL when DATABASE_URL is set, else on the embedded database.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/inbound.ts
 *   node --max-semi-space-size=64 --import tsx bench/inbound.ts   (as `npm start` runs the server)
 *
 * The storm scenario measures the same path over HTTP with its load generator and ten sockets on
 * the same two cores; this one shows the service's own CPU per message (the Node process only),
 * free of the driver, at a fixed number of requests in flight. Nobody is subscribed, so events are
 * encoded and published but delivered to no socket.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Effect, ManagedRuntime } from 'effect'
import * as ApiChannel from '../actors/channels/apiChannel.js'
import { loadConfig } from '../engine/config.js'
import { makeLogger } from '../engine/log.js'
import { runFast } from '../engine/step.js'
import { handle } from '../http/apiPipeline.js'
import { allRoutes, servicesLayer } from '../http/app.js'
import type { Incoming } from '../http/pipeline.js'
import type { Route, Services } from '../http/route.js'
import * as Router from '../http/router.js'
import * as Workspaces from '../store/workspaces.js'
import { freshDatabase } from '../test/support/server.js'

const ROUNDS = 5
const PER_ROUND = Number(process.env.BENCH_MESSAGES ?? 10_000)
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 100)
const CONVERSATIONS = 40

const main = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kotak-bench-'))
  // A database of its own on the PostgreSQL of DATABASE_URL, dropped at the end.
  const admin = process.env.DATABASE_URL
  const db = admin ? await freshDatabase(admin) : undefined
  const url = db?.url
  const cfg = loadConfig({
    DATA_DIR: dir,
    LOG_LEVEL: 'error',
    RATE_LIMIT_PER_CHANNEL_KEY: '100000000',
    ...(url ? { DATABASE_URL: url } : {}),
  })
  const runtime = ManagedRuntime.make(
    servicesLayer(cfg, {
      database: { url, dataDir: 'memory', socketDir: dir },
      logger: makeLogger('error'),
    }),
  )
  const key = await runtime.runPromise(
    Effect.gen(function* () {
      const { workspace } = yield* Workspaces.create({
        name: 'Bench',
        timezone: 'Asia/Jakarta',
        plan: 'pro',
        proUntil: null,
        owner: { email: 'owner@example.com', name: 'Owner' },
      })
      return (yield* ApiChannel.create(workspace, { name: 'Bench API' })).channel.credentials.key
    }),
  )
  const router = Router.make<Route>()
  for (const r of allRoutes()) router.add(r.method, r.path, r)
  const run = runFast(runtime)
  const serve = handle.withServices(await runtime.runPromise(Effect.context<Services>()))
  let sent = 0
  const request = (): Incoming => {
    const n = sent++
    return {
      method: 'POST',
      path: '/v1/channel-api/messages',
      query: '',
      headers: new Map([
        ['authorization', `Bearer ${key}`],
        ['content-type', 'application/json'],
        ['host', '127.0.0.1'],
      ]),
      body: Buffer.from(
        JSON.stringify({
          conversation_id: `bench-conv-${n % CONVERSATIONS}`,
          message: { id: `m-${n}`, text: `t=${Date.now()} a message from the bench` },
        }),
      ),
      ip: () => '127.0.0.1',
    }
  }
  // A closed loop: `IN_FLIGHT` requests at all times, each answer sending the next, as many
  // clients on kept-alive connections would.
  const drive = (total: number) =>
    new Promise<void>((resolve, reject) => {
      let started = 0
      let answered = 0
      const next = () => {
        if (started >= total) return
        started++
        run(serve(router, request()), (out) => {
          if (out?.status !== 201) {
            reject(new Error(`answered ${out?.status}: ${out ? String(out.body) : 'fault'}`))
            return
          }
          answered++
          if (answered === total) resolve()
          else next()
        })
      }
      for (let i = 0; i < Math.min(IN_FLIGHT, total); i++) next()
    })
  // Warm: the conversations and their actors exist, the code is optimised.
  await drive(Math.max(CONVERSATIONS, PER_ROUND / 2))
  const cpu: number[] = []
  const rate: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    await drive(PER_ROUND)
    const c = process.cpuUsage(c0)
    cpu.push((c.user + c.system) / PER_ROUND)
    rate.push(PER_ROUND / ((performance.now() - t0) / 1000))
  }
  const median = (xs: number[]) =>
    Number([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1))
  process.stdout.write(
    `${JSON.stringify({
      path: 'POST /v1/channel-api/messages (channel key, 40 conversations)',
      database: url ? 'postgresql' : 'embedded',
      in_flight: IN_FLIGHT,
      node_cpu_us_per_message: median(cpu),
      messages_per_s: Math.round(median(rate)),
      cpu_rounds: cpu.map((x) => Number(x.toFixed(1))),
    })}\n`,
  )
  await runtime.dispose()
  fs.rmSync(dir, { recursive: true, force: true })
  await db?.drop()
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
  process.exit(1)
})
