import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { createLivechat } from './support'

/** The widget's static side: loader, chat page and its assets, with their types and caching. */
let s: TestServer
let key: string
beforeAll(async () => {
  s = await startTestServer()
  const w = await F.workspace(s, { plan: 'free' })
  key = (await createLivechat(s, await F.signIn(s, w.ownerEmail))).livechat.key
})
afterAll(() => s?.stop())

describe('widget files', () => {
  it('serves the loader, the chat page and its assets with their content types', async () => {
    for (const [p, type] of [
      ['/widget.js', 'text/javascript; charset=utf-8'],
      ['/livechat/assets/frame.js', 'text/javascript; charset=utf-8'],
      ['/livechat/assets/frame.css', 'text/css; charset=utf-8'],
    ] as const) {
      const r = await s.fetch(p)
      expect(r.status, p).toBe(200)
      expect(r.headers.get('content-type')).toBe(type)
      expect(r.headers.get('cache-control')).toBe('public, max-age=300')
      expect(r.headers.get('access-control-allow-origin')).toBeNull()
    }
    expect(await (await s.fetch('/widget.js')).text()).toContain('data-kotak-key')
    const frame = await s.fetch(`/livechat/${key}/frame?page=${encodeURIComponent('https://x.test/')}`)
    expect(frame.status).toBe(200)
    expect(frame.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(frame.headers.get('cache-control')).toBe('no-store')
    expect(frame.headers.get('content-security-policy')).toContain('frame-ancestors *')
    const html = await frame.text()
    expect(html).toContain(`data-key="${key}"`)
    expect(html).toContain('/livechat/assets/frame.js')
    const missing = await s.fetch('/livechat/lc_AAAAAAAAAAAAAAAAAAAAAAAA/frame')
    expect(missing.status).toBe(404)
    expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8')
  })
})
