import { Context } from 'effect'
import client from 'prom-client'

/**
 * Prometheus metrics of one service instance. A registry per instance (not the global one), so
 * several servers in one process (tests) do not collide.
 */
export interface Metrics {
  readonly registry: client.Registry
  readonly httpRequests: client.Counter<'method' | 'route' | 'status'>
  readonly httpDuration: client.Histogram<'method' | 'route'>
  /**
   * Requests the fast runner (engine/step.ts `runFast`) had to continue on a fiber: a route that
   * should answer without one and stops doing so shows here (test/http/fastPath.test.ts).
   */
  readonly requestsOnFiber: client.Counter
  /** Counts one answered request and its duration (both metrics above). */
  readonly recordHttp: (method: string, route: string, status: number, seconds: number) => void
}

export class MetricsTag extends Context.Tag('kotak/Metrics')<MetricsTag, Metrics>() {}

export const makeMetrics = (): Metrics => {
  const registry = new client.Registry()
  client.collectDefaultMetrics({ register: registry, prefix: 'kotak_' })
  const httpRequests = new client.Counter({
    name: 'kotak_http_requests_total',
    help: 'HTTP requests by route template and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  })
  const httpDuration = new client.Histogram({
    name: 'kotak_http_request_duration_seconds',
    help: 'HTTP request duration by route template',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  })
  const requestsOnFiber = new client.Counter({
    name: 'kotak_http_requests_on_fiber_total',
    help: 'HTTP requests that could not be answered without a fiber (engine/step.ts runFast)',
    registers: [registry],
  })
  // The label children of each (method, route, status), found once: prom-client otherwise sorts
  // and joins the label object on every request. Routes are templates, so the set stays small.
  const counters = new Map<string, client.Counter.Internal>()
  const durations = new Map<string, client.Histogram.Internal<'method' | 'route'>>()
  return {
    registry,
    httpRequests,
    httpDuration,
    requestsOnFiber,
    recordHttp: (method, route, status, seconds) => {
      const timed = `${method} ${route}`
      const counted = `${timed} ${status}`
      let counter = counters.get(counted)
      if (!counter) {
        counter = httpRequests.labels({ method, route, status: String(status) })
        counters.set(counted, counter)
      }
      let duration = durations.get(timed)
      if (!duration) {
        duration = httpDuration.labels({ method, route })
        durations.set(timed, duration)
      }
      counter.inc()
      duration.observe(seconds)
    },
  }
}
