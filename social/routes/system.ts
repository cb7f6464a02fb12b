import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { MetricsTag } from '../../engine/metrics'
import { raw } from '../../http/route'
import { envelope, publicRoute } from '../route'

/** Operational endpoints of the social service: root, health and metrics. */
export const routes = [
  publicRoute({
    method: 'GET',
    path: '/',
    handler: () => Effect.succeed(envelope({ service: 'kotak-social', api: '/api/v1' })),
  }),
  publicRoute({
    method: 'GET',
    path: '/healthz',
    handler: () =>
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`).pipe(
        Effect.as(envelope({ status: 'ok', database: 'ok' })),
        Effect.catchAll(() =>
          Effect.succeed(
            raw(
              503,
              'application/json',
              JSON.stringify({ data: { status: 'unavailable', database: 'down' } }),
            ),
          ),
        ),
      ),
  }),
  publicRoute({
    method: 'GET',
    path: '/metrics',
    handler: () =>
      Effect.flatMap(MetricsTag, (m) =>
        Effect.promise(() => m.registry.metrics()).pipe(
          Effect.map((text) => raw(200, m.registry.contentType, text)),
        ),
      ),
  }),
]
