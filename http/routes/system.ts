import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { Config } from '../../engine/config'
import { MetricsTag } from '../../engine/metrics'
import { document, toYaml } from '../openapi'
import { ok, type Route, raw, route } from '../route'

/** Operational endpoints: health, metrics, the OpenAPI document and the root. */
export const makeRoutes = (all: () => readonly Route[]): readonly Route[] => {
  let yaml: string | undefined
  return [
    route({
      method: 'GET',
      path: '/',
      access: 'P',
      tag: 'System',
      summary: 'Service name and where its description lives',
      handler: () => Effect.succeed(ok({ service: 'kotak', api: '/v1', docs: '/docs/openapi.yaml' })),
    }),
    route({
      method: 'GET',
      path: '/healthz',
      access: 'P',
      tag: 'System',
      summary: 'Liveness and database reachability',
      handler: () =>
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`).pipe(
          Effect.as(ok({ status: 'ok', database: 'ok' })),
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
    route({
      method: 'GET',
      path: '/metrics',
      access: 'P',
      tag: 'System',
      summary: 'Prometheus metrics (text exposition format)',
      handler: () =>
        Effect.flatMap(MetricsTag, (m) =>
          Effect.promise(() => m.registry.metrics()).pipe(
            Effect.map((text) => raw(200, m.registry.contentType, text)),
          ),
        ),
    }),
    route({
      method: 'GET',
      path: '/docs/openapi.yaml',
      access: 'P',
      tag: 'System',
      summary: 'This OpenAPI 3.1 document',
      handler: () =>
        Effect.map(Config, (cfg) => {
          yaml ??= toYaml(document(all(), cfg.publicUrl))
          return raw(200, 'application/yaml; charset=utf-8', yaml)
        }),
    }),
  ]
}
