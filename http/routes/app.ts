import * as fs from 'node:fs'
import * as path from 'node:path'
import * as zlib from 'node:zlib'
import { Effect, Schema } from 'effect'
import { LinkToken } from '../../actors/fields'
import { sourcePath } from '../../engine/sourceTree'
import type { Reply, Route } from '../route'
import { redirect, route } from '../route'

/**
 * The agent web app (app/, built by build.mjs into dist/app/): `/app` and every path under it.
 * Files under `/app/assets/` carry a content hash in their names and are cached for good; any
 * other path is one of the app's own pages and gets index.html (the app routes in the browser).
 * Read from disk once and kept, like the live-chat widget's files (connectors/livechat/assets).
 */
const dir = sourcePath('dist', 'app')

const types: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.html': 'text/html; charset=utf-8',
}

const cache = new Map<string, Uint8Array | null>()
const read = (file: string): Uint8Array | null => {
  let body = cache.get(file)
  if (body === undefined) {
    try {
      body = fs.readFileSync(path.join(dir, file))
    } catch {
      body = null
    }
    // index.html names the current hashes: re-read it while the build may still change (tests, dev).
    if (file !== 'index.html') cache.set(file, body)
  }
  return body
}

/**
 * An asset gzipped once and kept beside it (only when that makes it smaller): the app's scripts
 * and styles are text, about a third of their size compressed, and hashed names never change.
 */
const gzipped = new Map<string, Uint8Array | null>()
const gzipOf = (file: string, body: Uint8Array): Uint8Array | null => {
  let z = gzipped.get(file)
  if (z === undefined) {
    const packed = zlib.gzipSync(body, { level: 9 })
    z = packed.length < body.length ? packed : null
    gzipped.set(file, z)
  }
  return z
}
const acceptsGzip = (header: string | undefined) =>
  (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    return coding?.trim().toLowerCase() === 'gzip' && (q === undefined || Number(q.slice(2)) > 0)
  })

const securityHeaders = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
}

const page: Effect.Effect<Reply> = Effect.sync(() => {
  const body = read('index.html')
  if (body === null)
    return {
      _tag: 'Raw',
      status: 503,
      contentType: 'text/plain; charset=utf-8',
      body: 'The app is not built: run `npm run build`.',
    }
  return {
    _tag: 'Raw',
    status: 200,
    contentType: types['.html']!,
    body,
    headers: {
      ...securityHeaders,
      'Cache-Control': 'no-cache',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' blob: data:",
        "media-src 'self' blob:",
        "frame-src 'self'",
        "connect-src 'self' ws: wss:",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
      ].join('; '),
    },
  }
})

const ASSET = /^\/app\/assets\/([A-Za-z0-9._-]+)$/

const notFound: Reply = {
  _tag: 'Raw',
  status: 404,
  contentType: 'text/plain; charset=utf-8',
  body: 'Not found',
  headers: securityHeaders,
}

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/invite/{token}',
    access: 'P',
    tag: 'Agent app',
    summary: "An e-mailed invitation link (`inviteLink`): redirects to the app's page for it",
    params: Schema.Struct({ token: LinkToken }),
    handler: ({ params }) => Effect.succeed(redirect(`/app/invite/${encodeURIComponent(params.token)}`)),
  }),
  route({
    method: 'GET',
    path: '/app',
    access: 'P',
    // The page and its assets are files kept in memory: a team behind one address (an office's
    // NAT) opening the app at nine fetches far more than one address's public budget.
    unlimited: true,
    tag: 'Agent app',
    summary: 'The agent web app (HTML page)',
    handler: () => page,
  }),
  route({
    method: 'GET',
    path: '/app/*',
    access: 'P',
    unlimited: true,
    tag: 'Agent app',
    summary: "The app's pages (its HTML page) and its content-hashed assets (cached for good)",
    handler: (req) => {
      const m = ASSET.exec(req.path)
      if (!m) return req.path.startsWith('/app/assets/') ? Effect.succeed(notFound) : page
      const name = m[1]!
      const file = path.join('assets', name)
      const body = read(file)
      if (body === null) return Effect.succeed(notFound)
      const headers = {
        ...securityHeaders,
        'Cache-Control': 'public, max-age=31536000, immutable',
        Vary: 'Accept-Encoding',
      }
      const packed = acceptsGzip(req.header('accept-encoding')) ? gzipOf(file, body) : null
      return Effect.succeed({
        _tag: 'Raw',
        status: 200,
        contentType: types[path.extname(name)] ?? 'application/octet-stream',
        body: packed ?? body,
        headers: packed ? { ...headers, 'Content-Encoding': 'gzip' } : headers,
      })
    },
  }),
]
