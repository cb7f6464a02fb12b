import { Effect } from 'effect'
import { ClusterHealth } from '../../engine/cluster/Cluster'
import { Config } from '../../engine/config'
import { MetricsTag } from '../../engine/metrics'
import * as Database from '../../store/database'
import { document, toYaml } from '../openapi'
import * as Reply from '../route'
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
      unlimited: true,
      tag: 'System',
      summary:
        'Liveness, database reachability (ok, slow or down, as last probed) and (in cluster mode) Redis coordination',
      handler: () =>
        Effect.gen(function* () {
          const database = (yield* Database.DatabaseHealth).state()
          const cluster = yield* Effect.flatMap(ClusterHealth, (h) => h.check)
          // The dependencies that keep this node from serving, named for the operator and the
          // load balancer's log alike.
          const unavailable = [
            ...(database === 'ok' ? [] : ['database']),
            ...(cluster === 'down' ? ['cluster'] : []),
          ]
          const ok = unavailable.length === 0
          const data = { status: ok ? 'ok' : 'unavailable', database, cluster, unavailable }
          return ok ? Reply.ok(data) : Reply.raw(503, 'application/json', JSON.stringify({ data }))
        }),
    }),
    route({
      method: 'GET',
      path: '/metrics',
      access: 'P',
      unlimited: true,
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
        Effect.gen(function* () {
          const cfg = yield* Config
          yaml ??= yield* Effect.promise(() => toYaml(document(all(), cfg.publicUrl)))
          return raw(200, 'application/yaml; charset=utf-8', yaml)
        }),
    }),
  ]
}
