import type { Route } from './route'

/**
 * The class of a service-API route in the metrics (`class` label of `kotak_http_requests_total`
 * and `kotak_http_request_duration_seconds`), which alerts and dashboards group by: few enough
 * values to read on one panel, and each with one expectation of latency and errors.
 *
 * - `system`: health, metrics, the OpenAPI document; polled by machines, left out of the alerts.
 * - `static`: the agent app's and the widget's files and pages.
 * - `auth`: signing in and out (OpenID Connect round trips to the identity provider, passkeys).
 * - `realtime`: real-time tokens (the WebSocket itself is not an HTTP request).
 * - `channel`: what customers' side sends: the API channel's key, live-chat visitors.
 * - `bulk`: imports, exports and bulk changes, which take seconds by design.
 * - `read` / `write`: every other request of the API, by method.
 *
 * A request that matched no route is `unmatched` (http/pipeline.ts).
 */
export type RouteClass = 'system' | 'static' | 'auth' | 'realtime' | 'channel' | 'bulk' | 'read' | 'write'

const BULK = /\/(export|import|bulk)(\/|$)/

export const routeClass = (route: Route, method: string): RouteClass => {
  if (route.tag === 'System') return 'system'
  if (route.tag === 'Sign-in') return 'auth'
  if (route.tag === 'Real-time') return 'realtime'
  if (route.access === 'P' && !route.path.startsWith('/v1/') && !route.path.startsWith('/auth/'))
    return 'static'
  if (route.access === 'C' || route.access === 'V' || route.tag === 'Live chat widget') return 'channel'
  if (route.streamBody !== undefined || BULK.test(route.path)) return 'bulk'
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write'
}
