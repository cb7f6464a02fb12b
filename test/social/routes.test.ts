import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Router from '../../http/router'
import { allRoutes } from '../../social/app'
import type { SocialRoute } from '../../social/route'
import { type SocialTestServer, startSocialServer } from './support'

/**
 * Route coverage: every spec-3 line of spec/endpoints.tsv is routed by the social service, with
 * the key, and the service routes nothing under /api/v1 that the spec does not list. The spec
 * lives beside the repository: ../shared/spec/endpoints.tsv from the repository root.
 */
const repo = path.resolve(__dirname, '../..')
const tsv = fs.readFileSync(path.resolve(repo, '../shared/spec/endpoints.tsv'), 'utf8')

interface Line {
  readonly method: string
  readonly path: string
  readonly access: string
}

const header = tsv.split('\n')[0]!.split('\t')
const col = (name: string) => header.indexOf(name)
const spec: Line[] = tsv
  .split('\n')
  .slice(1)
  .filter((l) => l.trim() !== '')
  .map((l) => l.split('\t'))
  .filter((cells) => cells[col('doc')] === '3')
  .map((cells) => ({
    method: cells[col('method')]!,
    path: cells[col('path')]!,
    access: cells[col('access')]!,
  }))

const concrete = (p: string) => p.replace(/\{(\w+)\}/g, '1')

const router = Router.make<SocialRoute>()
for (const r of allRoutes()) router.add(r.method, r.path, r)

let s: SocialTestServer
beforeAll(async () => {
  s = await startSocialServer()
})
afterAll(() => s?.stop())

describe('route coverage of spec 3', () => {
  it('reads the five endpoints of spec 3 from endpoints.tsv', () => {
    expect(spec.length).toBeGreaterThanOrEqual(5)
  })

  it.each(spec)('routes $method $path behind the key', ({ method, path: p, access }) => {
    const m = router.match(method, concrete(p))
    expect(m._tag).toBe('Found')
    if (m._tag !== 'Found') return
    expect(m.value.path).toBe(p)
    expect(access).toBe('K')
    expect(m.value.access).toBe('key')
  })

  it.each(spec)(
    'answers $method $path over HTTP (401 without a key, not 404)',
    async ({ method, path: p }) => {
      const res = await s.fetch(concrete(p), { method })
      expect(res.status).toBe(401)
    },
  )

  it('routes nothing under /api/v1 beyond the spec, and only GET', () => {
    const listed = new Set(spec.map((l) => `${l.method} ${l.path}`))
    const api = allRoutes().filter((r) => r.path.startsWith('/api/'))
    expect(api.map((r) => `${r.method} ${r.path}`).filter((x) => !listed.has(x))).toEqual([])
    expect(api.every((r) => r.method === 'GET')).toBe(true)
  })
})
