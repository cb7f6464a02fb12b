import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../support/server'

/** The app's files at /app (http/routes/app.ts), built into dist/app by build.mjs. */
let s: TestServer
beforeAll(async () => {
  s = await startTestServer()
})
afterAll(() => s?.stop())

describe('serving the agent app', () => {
  it('answers /app and every page under it with the same HTML page, uncached, framed by nobody', async () => {
    const root = await s.fetch('/app')
    expect(root.status).toBe(200)
    expect(root.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(root.headers.get('cache-control')).toBe('no-cache')
    expect(root.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    const html = await root.text()
    expect(html).toMatch(/<script type="module" src="\/app\/assets\/main-[A-Z0-9]+\.js"><\/script>/)
    const deep = await s.fetch('/app/inbox/12345')
    expect(deep.status).toBe(200)
    expect(await deep.text()).toBe(html)
  })

  it('serves hashed assets for good, and 404 for an unknown one', async () => {
    const html = await (await s.fetch('/app')).text()
    const js = /src="(\/app\/assets\/[^"]+)"/.exec(html)![1]!
    const css = /href="(\/app\/assets\/[^"]+\.css)"/.exec(html)![1]!
    const script = await s.fetch(js)
    expect(script.status).toBe(200)
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect((await s.fetch(css)).headers.get('content-type')).toBe('text/css; charset=utf-8')
    // Compressed for a client that accepts gzip (fetch does, and unpacks it), as is for one that does not.
    expect(script.headers.get('content-encoding')).toBe('gzip')
    expect(script.headers.get('vary')).toBe('Accept-Encoding')
    const text = await script.text()
    expect(text.length).toBeGreaterThan(1000)
    const { request } = await import('node:http')
    const plain = await new Promise<{ encoding: string | undefined; bytes: Buffer }>((resolve, reject) => {
      const r = request(`${s.url}${js}`, { headers: { 'accept-encoding': 'identity' } }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({ encoding: res.headers['content-encoding'], bytes: Buffer.concat(chunks) }),
        )
      })
      r.on('error', reject)
      r.end()
    })
    expect(plain.encoding).toBeUndefined()
    expect(plain.bytes.toString('utf8')).toBe(text)
    const missing = await s.fetch('/app/assets/main-NOTAHASH.js')
    expect(missing.status).toBe(404)
    expect((await s.fetch('/app/assets/../../package.json')).status).not.toBe(200)
  })

  it('sends a one-time sign-in link to the app', async () => {
    const F = await import('../support/fixtures')
    const w = await F.workspace(s)
    const { Effect } = await import('effect')
    const Users = await import('../../store/users')
    const Sessions = await import('../../store/sessions')
    const token = await s.run(
      Effect.gen(function* () {
        const user = yield* Users.byEmail(w.ownerEmail)
        return yield* Sessions.createLoginLink(user!.id, 5)
      }),
    )
    // Opening the link leads to the app's page for it and uses nothing (a link preview does this).
    const res = await s.fetch(`/auth/link/${token}`, { redirect: 'manual' })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`/app/link/${token}`)
    expect(res.headers.getSetCookie()).toEqual([])
    const page = await s.fetch(`/app/link/${token}`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    // The page's button signs in.
    const used = await s.fetch(`/auth/link/${token}`, F.json({}))
    expect(used.status).toBe(200)
    expect(used.headers.getSetCookie().some((c) => c.startsWith('kotak_session='))).toBe(true)
  })
})
