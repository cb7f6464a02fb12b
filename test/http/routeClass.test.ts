import { describe, expect, it } from 'vitest'
import { allRoutes } from '../../http/app'
import { routeClass } from '../../http/routeClass'

/**
 * The route classes of the metrics (http/routeClass.ts): every route has one, the interactive
 * classes hold the API's bulk, and the routes whose latency means something else stay apart.
 */
describe('route classes', () => {
  const classOf = (method: string, path: string) => {
    const r = allRoutes().find((x) => x.method === method && x.path === path)
    if (!r) throw new Error(`no route ${method} ${path}`)
    return routeClass(r, method)
  }

  it('puts each route in one of a few classes', () => {
    const counts = new Map<string, number>()
    for (const r of allRoutes()) {
      const c = routeClass(r, r.method)
      counts.set(c, (counts.get(c) ?? 0) + 1)
    }
    expect([...counts.keys()].sort()).toEqual(
      ['auth', 'bulk', 'channel', 'read', 'realtime', 'static', 'system', 'write'].sort(),
    )
    // Most of the API is plain reads and writes.
    expect((counts.get('read') ?? 0) + (counts.get('write') ?? 0)).toBeGreaterThan(allRoutes().length * 0.8)
  })

  it('classes the routes an operator watches as expected', () => {
    expect(classOf('GET', '/healthz')).toBe('system')
    expect(classOf('GET', '/metrics')).toBe('system')
    expect(classOf('GET', '/app/*')).toBe('static')
    expect(classOf('GET', '/widget.js')).toBe('static')
    expect(classOf('GET', '/auth/callback')).toBe('auth')
    expect(classOf('POST', '/v1/realtime/token')).toBe('realtime')
    expect(classOf('POST', '/v1/channel-api/messages')).toBe('channel')
    expect(classOf('POST', '/v1/livechat/{key}/messages')).toBe('channel')
    expect(classOf('POST', '/v1/livechat/{key}/visitors')).toBe('channel')
    expect(classOf('GET', '/v1/contacts/export')).toBe('bulk')
    expect(classOf('POST', '/v1/contacts/import')).toBe('bulk')
    expect(classOf('GET', '/v1/interactions')).toBe('read')
    expect(classOf('POST', '/v1/interactions/{id}/messages')).toBe('write')
    expect(classOf('PATCH', '/v1/me')).toBe('write')
  })
})
