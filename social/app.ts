import { type Effect, Layer, ManagedRuntime } from 'effect'
import { Log, type Logger, makeLogger } from '../engine/log'
import { MetricsTag, makeMetrics } from '../engine/metrics'
import * as RateLimiterMemory from '../engine/ratelimit/RateLimiterMemory'
import * as RateLimiterRedis from '../engine/ratelimit/RateLimiterRedis'
import { sourcePath } from '../engine/sourceTree'
import { runFast } from '../engine/step'
import * as Router from '../http/router'
import { isNative, listen } from '../http/server'
import * as Database from '../store/database'
import { layerMigrated, migrateSet } from '../store/migrate'
import { SocialConfig, type SocialConfigShape } from './config'
import { handle, tooLarge } from './pipeline'
import type { SocialRoute, SocialServices } from './route'
import * as ConversationRoutes from './routes/conversations'
import * as ReportRoutes from './routes/reports'
import * as SystemRoutes from './routes/system'
import * as TicketRoutes from './routes/tickets'
import * as WebhookRoutes from './routes/webhooks'

/** Every route of the social service; the router and the route-coverage test read this list. */
export const allRoutes = (): readonly SocialRoute[] => [
  ...SystemRoutes.routes,
  ...ConversationRoutes.routes,
  ...TicketRoutes.routes,
  ...ReportRoutes.routes,
  ...WebhookRoutes.routes,
]

/** The service's own migrations, applied in the PostgreSQL schema `social`. */
export const migrations = {
  dir: sourcePath('social', 'migrations'),
  schema: 'social',
} as const

export const migrate = migrateSet(migrations)

export interface SocialAppOptions {
  /** Overrides where the database lives (tests use an in-memory embedded database). */
  readonly database?: Database.DatabaseOptions
  readonly logger?: Logger
}

/** The services of one node; the CLI uses the same layer without the HTTP server. */
export const servicesLayer = (
  cfg: SocialConfigShape,
  opts: SocialAppOptions = {},
): Layer.Layer<SocialServices, unknown> => {
  const logger = opts.logger ?? makeLogger(cfg.logLevel)
  const metrics = makeMetrics()
  const base = Layer.mergeAll(
    Layer.succeed(SocialConfig, cfg),
    Layer.succeed(Log, logger),
    Layer.succeed(MetricsTag, metrics),
    Database.forNode(cfg, logger, opts.database, metrics.pool),
    cfg.redisUrl
      ? RateLimiterRedis.layerRedis(cfg.redisUrl, { prefix: cfg.redisPrefix })
      : RateLimiterMemory.layerMemory,
  )
  // Nothing reads the database before its schema is current.
  return layerMigrated(migrate, (applied) =>
    logger.info('migrations applied', { schema: 'social', migrations: applied }),
  ).pipe(Layer.provideMerge(base))
}

export interface RunningSocialApp {
  readonly port: number
  readonly url: string
  readonly stop: () => Promise<void>
  /** Runs an effect against this node's services (operator tasks, test fixtures). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, SocialServices>) => Promise<A>
}

export const start = async (
  cfg: SocialConfigShape,
  opts: SocialAppOptions = {},
): Promise<RunningSocialApp> => {
  if (!isNative() && !cfg.allowUwsFallback) {
    throw new Error(
      'uWebSockets.js could not load its native binary and fell back to a slow emulation; refusing to start. ' +
        'Set UWS_ALLOW_FALLBACK=1 to run anyway.',
    )
  }
  const runtime = ManagedRuntime.make(servicesLayer(cfg, opts))
  try {
    const log = await runtime.runPromise(Log)
    const router = Router.make<SocialRoute>()
    for (const r of allRoutes()) router.add(r.method, r.path, r)
    const metrics = await runtime.runPromise(MetricsTag)
    const run = runFast(runtime, () => metrics.requestsOnFiber.inc())
    const server = await listen({
      host: cfg.host,
      port: cfg.port,
      maxBodyBytes: cfg.maxBodyBytes,
      handle: (req, done) => run(handle(router, req), done),
      tooLarge: (req) => tooLarge(req, cfg.maxBodyBytes),
    })
    log.info('listening', {
      service: 'social',
      port: server.port,
      database: cfg.databaseUrl ? 'postgres' : 'embedded',
      webhook: cfg.appSecret ? WebhookRoutes.WEBHOOK_PATH : 'disabled',
    })
    return {
      port: server.port,
      url: `http://127.0.0.1:${server.port}`,
      run: (effect) => runtime.runPromise(effect),
      stop: async () => {
        server.close()
        await runtime.dispose()
      },
    }
  } catch (e) {
    await runtime.dispose()
    throw e
  }
}
