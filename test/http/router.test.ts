import { describe, expect, it } from 'vitest'
import * as Router from '../../http/router'

/**
 * The router finds a path without parameters by an exact look-up before find-my-way (the hot
 * requests' path); every other form of the same path, and every parametric path, still goes
 * through find-my-way, with the same answers as before.
 */
describe('router', () => {
  const router = Router.make<string>()
  router.add('GET', '/v1/things', 'list')
  router.add('POST', '/v1/things', 'create')
  router.add('GET', '/v1/things/{id}', 'one')
  router.add('GET', '/v1/things/export', 'export')
  router.add('DELETE', '/v1/things/{id}/tags/{tag}', 'untag')

  const found = (method: string, path: string) => {
    const m = router.match(method, path)
    return m._tag === 'Found' ? { value: m.value, params: { ...m.params } } : m
  }

  it('finds static paths by method, exactly as declared, with no parameters', () => {
    expect(found('GET', '/v1/things')).toEqual({ value: 'list', params: {} })
    expect(found('POST', '/v1/things')).toEqual({ value: 'create', params: {} })
    // A static segment beside a parametric one wins, as find-my-way decides it.
    expect(found('GET', '/v1/things/export')).toEqual({ value: 'export', params: {} })
  })

  it('leaves other forms of a static path to find-my-way: the same route', () => {
    expect(found('GET', '/v1/things/')).toEqual({ value: 'list', params: {} })
    expect(found('HEAD', '/v1/things')).toEqual({ value: 'list', params: {} })
    expect(found('GET', '/v1/thing%73')).toEqual({ value: 'list', params: {} })
  })

  it('gives parametric paths their parameters', () => {
    expect(found('GET', '/v1/things/42')).toEqual({ value: 'one', params: { id: '42' } })
    expect(found('DELETE', '/v1/things/42/tags/vip')).toEqual({
      value: 'untag',
      params: { id: '42', tag: 'vip' },
    })
  })

  it('tells an unknown path (404) from a known one with another method (405)', () => {
    expect(router.match('GET', '/v1/nothing')).toEqual({ _tag: 'NotFound' })
    expect(router.match('PUT', '/v1/things')).toEqual({
      _tag: 'MethodNotAllowed',
      allow: ['GET', 'HEAD', 'POST'],
    })
    expect(router.match('get', '/v1/things')._tag).not.toBe('Found')
  })
})
