import type { SqlClient } from '@effect/sql'
import { Effect, Fiber, Layer, ManagedRuntime } from 'effect'
import * as Actors from '../actors'
import * as Billing from '../actors/admin/billing'
import type { Mailer as MailerPort } from '../actors/admin/Mailer'
import type { PaymentProvider } from '../actors/admin/PaymentProvider'
import * as Setup from '../actors/admin/setup'
import type { AiProvider as AiProviderPort } from '../actors/ai/AiProvider'
import * as BroadcastSenders from '../actors/broadcasts/senders'
import * as TabCounts from '../actors/inbox/tabCounts'
import * as KbEmbedding from '../actors/kb/embedding'
import * as LeadReminders from '../actors/pipeline/reminders'
import * as Rollup from '../actors/reports/rollup'
import * as AiProvider from '../connectors/ai/AiProvider'
import * as ApiAdapter from '../connectors/api/adapter'
import * as Webhooks from '../connectors/api/webhooks'
import * as EmailAdapter from '../connectors/email/adapter'
import * as EmailNudge from '../connectors/email/nudge'
import * as MailServers from '../connectors/email/servers'
import * as EmailSessions from '../connectors/email/sessions'
import * as LivechatAdapter from '../connectors/livechat/adapter'
import * as Mailer from '../connectors/mail/Mailer'
import * as MsgappAdapter from '../connectors/msgapp/adapter'
import * as MsgappLive from '../connectors/msgapp/live'
import * as NumberLink from '../connectors/msgapp/numbers'
import * as MsgappSessions from '../connectors/msgapp/sessions'
import * as PaymentProviderLocal from '../connectors/payments/PaymentProviderLocal'
import * as ConnectorRouter from '../connectors/router'
import { Bus } from '../engine/bus/Bus'
import * as BusMemory from '../engine/bus/BusMemory'
import * as BusRedis from '../engine/bus/BusRedis'
import * as BusRelay from '../engine/bus/BusRelay'
import * as WallClock from '../engine/clock'
import * as Cluster from '../engine/cluster/Cluster'
import { type AppConfig, Config } from '../engine/config'
import { Log, type Logger, makeLogger } from '../engine/log'
import { MetricsTag, makeMetrics } from '../engine/metrics'
import * as RateLimiterMemory from '../engine/ratelimit/RateLimiterMemory'
import * as RateLimiterRedis from '../engine/ratelimit/RateLimiterRedis'
import { runFast } from '../engine/step'
import * as FileStorageLocal from '../engine/storage/FileStorageLocal'
import { SigningKey } from '../engine/tokens'
import * as Database from '../store/database'
import { layerMigrated, migrate } from '../store/migrate'
import * as ServerKeys from '../store/serverKeys'
import { handle } from './apiPipeline'
import * as Credentials from './credentials'
import { bodyLimitFor, streamsBodyFor, tooLarge } from './pipeline'
import { makeGateway } from './realtime/gateway'
import type { Route, Services } from './route'
import * as Router from './router'
import { routes as routeTable } from './routes'
import * as SystemRoutes from './routes/system'
import { ensurePortFree, isNative, listen, type Pending } from './server'

/** Every route of the service, in one list: the router, the OpenAPI document and tests read it. */
export const allRoutes = (): readonly Route[] => {
  const list: Route[] = []
  list.push(...SystemRoutes.makeRoutes(() => list), ...routeTable)
  return list
}

export interface AppOptions {
  /** Overrides where the database lives (tests use an in-memory embedded database). */
  readonly database?: Database.DatabaseOptions
  readonly logger?: Logger
  /**
   * In cluster mode (`REDIS_URL` set), whether this process hosts actor entities (`runner`: a
   * server node) or only sends to them (`client`: the CLI). Default `client`; `start` runs a runner.
   */
  readonly clusterRole?: Cluster.Role
  /** The service's own mail (invitations); default SMTP when `SMTP_URL` is set, else off. */
  readonly mailer?: Layer.Layer<MailerPort, never, Config>
  /** The payment provider of billing; default the local one (README, "Billing"). */
  readonly paymentProvider?: Layer.Layer<PaymentProvider, never, SqlClient.SqlClient | Config>
  /** The AI provider; default the OpenAI-compatible API when `AI_BASE_URL` is set, else off. */
  readonly aiProvider?: Layer.Layer<AiProviderPort, never, Config | Log>
  /**
   * Whether this process runs the long-lived work (mailbox and number sessions, broadcast
   * senders). Default yes; the CLI says no: beside a running node on the embedded database its
   * claims would not exclude the node's, and an operator's command needs none of it.
   */
  readonly supervise?: boolean
  /**
   * The bus, when not Redis's (`REDIS_URL`): default a hub under DATA_DIR that processes beside
   * the node join (engine/bus/BusRelay.ts), or the memory bus for a database in memory. The CLI
   * gives its own: a spoke of the running node's hub.
   */
  readonly bus?: Layer.Layer<Bus, Error>
}

/** The services a running node is made of; the CLI uses the same layer without the HTTP server. */
export const servicesLayer = (cfg: AppConfig, opts: AppOptions = {}) => {
  const logger = opts.logger ?? makeLogger(cfg.logLevel)
  // Handed to the pool, the bus and the cluster, which are made beside it; what is built on top
  // of them (actors, the group-commit writer) finds it as a service.
  const metrics = makeMetrics()
  const base = Layer.mergeAll(
    Layer.succeed(Config, cfg),
    Layer.succeed(Log, logger),
    Layer.succeed(MetricsTag, metrics),
    Database.forNode(cfg, logger, opts.database, metrics.pool),
    cfg.redisUrl
      ? RateLimiterRedis.layerRedis(cfg.redisUrl, { prefix: cfg.redisPrefix })
      : RateLimiterMemory.layerMemory,
    cfg.redisUrl
      ? BusRedis.layerRedis(cfg.redisUrl, { prefix: cfg.redisPrefix, metrics: metrics.bus })
      : (opts.bus ??
          (opts.database?.dataDir === 'memory'
            ? BusMemory.layerMemory
            : BusRelay.layerHub(BusRelay.socketOf(cfg.dataDir)))),
    // The inbox's ports: its clock, private files on local disk.
    WallClock.layer,
    FileStorageLocal.layer(cfg.filesDir),
    // Nothing here reads traces, and with tracing on every SQL statement made a span (ids drawn,
    // times read, attributes and a context copied): off, each is a no-op span.
    Layer.setTracerEnabled(false),
  )
  // Nothing reads the database before its schema is current.
  const migrated = layerMigrated(migrate, (applied) =>
    logger.info('migrations applied', { migrations: applied }),
  ).pipe(Layer.provideMerge(base))
  const keyed = Layer.mergeAll(
    Layer.effect(SigningKey, ServerKeys.getOrCreate('realtime-token')),
    // What /healthz reports of the database, probed every second (never by the request).
    Database.healthLayer,
  ).pipe(Layer.provideMerge(migrated))
  // What stateful connectors keep of this node, shared by their sessions (above the actors) and
  // their adapters and ports (below): open sockets, local nudges. Made here, so every node of a
  // process has its own.
  const local = Layer.mergeAll(MsgappLive.layer, EmailNudge.layer).pipe(Layer.provideMerge(keyed))
  // The service's own ports: outgoing mail and the payment provider.
  const ports = Layer.mergeAll(
    opts.mailer ?? Mailer.layer,
    opts.paymentProvider ?? PaymentProviderLocal.layer,
    opts.aiProvider ?? AiProvider.layer,
    // The channel operations' ports to mail servers and to this node's number sessions.
    MailServers.layer,
    NumberLink.layer,
  ).pipe(Layer.provideMerge(local))
  // Each channel type's outbound adapter (below the actors: it needs none of them), one line each.
  const adapters = Layer.mergeAll(
    Layer.empty,
    EmailAdapter.layer,
    MsgappAdapter.layer,
    LivechatAdapter.layer,
    ApiAdapter.layer,
  )
  const connectors = ConnectorRouter.layer.pipe(Layer.provide(adapters), Layer.provideMerge(ports))
  // One node: the local actor kit. Cluster (REDIS_URL): the same actors, each entity on one node.
  const actors = cfg.redisUrl
    ? Layer.merge(Actors.clusterLayer, Cluster.health).pipe(
        Layer.provide(
          Cluster.layer({
            redisUrl: cfg.redisUrl,
            prefix: cfg.redisPrefix,
            role: opts.clusterRole ?? 'client',
            config: cfg.cluster,
            metrics,
          }),
        ),
      )
    : Layer.merge(Actors.layer, Cluster.healthOff)
  const core = Layer.mergeAll(actors, Credentials.layer).pipe(Layer.provideMerge(connectors))
  // What runs on top of the actors: the sessions of stateful connectors (mailboxes, numbers), which
  // feed inbound messages to conversation actors. One line per connector; then the broadcast
  // senders, which hand their messages to the actors.
  const supervisors = Layer.mergeAll(
    Layer.empty,
    EmailSessions.layer,
    MsgappSessions.layer,
    BroadcastSenders.layer,
  )
  const supervised = supervisors.pipe(Layer.provideMerge(core))
  // Without supervisors (the CLI) the sessions' and senders' tags are absent: nothing the CLI runs
  // asks for them, and a command that did would fail at once naming the missing service.
  return opts.supervise === false ? (core as unknown as typeof supervised) : supervised
}

export interface RunningApp {
  readonly port: number
  readonly url: string
  /**
   * Stops taking requests, waits up to `drainMs` (default 5 s) for those in progress, then stops
   * the services. Resolves to the requests that were still unanswered when it gave up waiting.
   */
  readonly stop: (opts?: {
    readonly drainMs?: number
    /** Told what was still unanswered when waiting ended, before the services stop. */
    readonly onDrained?: (left: readonly Pending[]) => void
  }) => Promise<readonly Pending[]>
  /** Requests in progress on this node. */
  readonly pending: () => readonly Pending[]
  /** Runs an effect against this node's services (operator tasks, test fixtures). */
  readonly run: <A, E>(
    effect: Effect.Effect<A, E, Layer.Layer.Success<ReturnType<typeof servicesLayer>>>,
  ) => Promise<A>
}

export const start = async (cfg: AppConfig, opts: AppOptions = {}): Promise<RunningApp> => {
  if (!isNative() && !cfg.allowUwsFallback) {
    throw new Error(
      'uWebSockets.js could not load its native binary and fell back to a slow emulation; refusing to start. ' +
        'Set UWS_ALLOW_FALLBACK=1 to run anyway.',
    )
  }
  await ensurePortFree(cfg.host, cfg.port)
  const runtime = ManagedRuntime.make(servicesLayer(cfg, { clusterRole: 'runner', ...opts }))
  try {
    const log = await runtime.runPromise(Log)
    const gateway = makeGateway({
      signingKey: await runtime.runPromise(SigningKey),
      bus: await runtime.runPromise(Bus),
      log,
      idleSeconds: cfg.realtimeIdleSeconds,
      run: (e) => runtime.runPromise(e),
    })
    const metrics = await runtime.runPromise(MetricsTag)
    metrics.realtimeConnections(gateway.connections)
    const router = Router.make<Route>()
    for (const r of allRoutes()) router.add(r.method, r.path, r)
    const bodyLimit = bodyLimitFor(router, cfg.maxBodyBytes)
    const run = runFast(runtime, () => metrics.requestsOnFiber.inc())
    // The node's services, looked up once: the request path reads them without a fiber.
    const serve = handle.withServices(await runtime.runPromise(Effect.context<Services>()))
    // An unclaimed install (no workspace, no user) gets its one-time setup link, shown once below.
    const setupToken = await runtime.runPromise(Setup.prepare)
    const server = await listen({
      host: cfg.host,
      port: cfg.port,
      maxBodyBytes: cfg.maxBodyBytes,
      bodyLimit,
      streamsBody: streamsBodyFor(router),
      handle: (req, done) => run(serve(router, req), done),
      tooLarge: (req) => tooLarge(req, bodyLimit(req.method, req.path)),
      configure: gateway.configure,
    })
    // API-channel webhooks: every node sends what is due from the shared outbox.
    const webhooks = runtime.runFork(Webhooks.worker(cfg))
    // Plans whose paid period and grace ended: Pro to Free, Custom to frozen (every node; locked).
    const billing = runtime.runFork(Billing.settleLoop())
    // Reminders of lead events that are due (every node; each fires once, docs/decisions.md Pipeline).
    const reminders = runtime.runFork(LeadReminders.loop())
    // Knowledge base articles waiting for semantic processing: every node takes due ones (leased).
    const kbEmbedding = runtime.runFork(KbEmbedding.worker(cfg))
    // Report facts into the roll-ups (every node; one per workspace at a time, locked).
    const rollup = runtime.runFork(Rollup.rollupLoop(cfg.reportsRollupMs || undefined))
    // The inbox's tab counts: changes folded into the kept counts (every node; rows taken once).
    const tabCounts = runtime.runFork(TabCounts.foldLoop())
    log.info('listening', { port: server.port, database: cfg.databaseUrl ? 'postgres' : 'embedded' })
    // The only line that ever shows the token: whoever reads this log may claim the install.
    if (setupToken !== null)
      log.info(
        `First run: open ${Setup.setupUrl(cfg.publicUrl, setupToken)} to create the first workspace and its owner`,
      )
    return {
      port: server.port,
      url: `http://127.0.0.1:${server.port}`,
      run: (effect) => runtime.runPromise(effect),
      pending: server.pending,
      stop: async ({ drainMs = 5_000, onDrained } = {}) => {
        // New requests are refused (503) from here; those in progress may finish.
        server.close()
        gateway.close()
        const until = performance.now() + drainMs
        while (server.pending().length > 0 && performance.now() < until)
          await new Promise((r) => setTimeout(r, 25))
        const left = server.pending()
        onDrained?.(left)
        await runtime.runPromise(Fiber.interrupt(webhooks))
        await runtime.runPromise(Fiber.interrupt(billing))
        await runtime.runPromise(Fiber.interrupt(reminders))
        await runtime.runPromise(Fiber.interrupt(kbEmbedding))
        await runtime.runPromise(Fiber.interrupt(rollup))
        await runtime.runPromise(Fiber.interrupt(tabCounts))
        await runtime.dispose()
        return left
      },
    }
  } catch (e) {
    await runtime.dispose()
    throw e
  }
}
