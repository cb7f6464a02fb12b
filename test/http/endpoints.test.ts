import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it } from 'vitest'
import { allRoutes } from '../../http/app'
import type { Route } from '../../http/route'

/**
 * Every endpoint of the spec sections that are built is routed, with the spec's access class and
 * permission.
 * `test/support/endpoints.tsv` is a copy of the spec's endpoints.tsv (doc, section, method, path,
 * permission, access); paths there lack the `/v1` prefix.
 */
const rows = fs
  .readFileSync(path.join(__dirname, '../support/endpoints.tsv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split('\t'))
  .map(([doc, section, method, p, permission, access]) => ({
    doc,
    section,
    method,
    path: p!,
    permission,
    access,
  }))

/** Doc and sections implemented so far; a section joins this list when its issue lands. */
const BUILT: ReadonlyArray<readonly [string, string]> = [
  ['1', '4.1'],
  ['1', '4.2'],
  ['1', '4.3'],
  ['1', '4.4'],
  ['1', '4.5'],
  ['1', '4.6'],
  ['1', '4.7'],
  ['2', '4.1'],
  ['2', '4.2'],
  ['2', '4.4'],
]

/**
 * The spec's permission column as a set: `-` or empty is none, `same` repeats the row above,
 * `a or b`, `a (or b)` and `a / b` are alternatives.
 */
const permissions = new Map<(typeof rows)[number], string | undefined>()
rows.reduce<string | undefined>((prev, r) => {
  const raw = r.permission?.trim() ?? ''
  const own = raw === 'same' ? prev : raw === '' || raw === '-' ? undefined : raw
  const set = own
    ?.replace(/[()]/g, '')
    .split(/\s+or\s+|\s+\/\s+/)
    .map((x) => x.trim())
    .sort()
    .join(' | ')
  permissions.set(r, set)
  return own
}, undefined)
/** Deliberate deviations from the spec's permission column (docs/decisions.md, Channels). */
const DEVIATIONS = new Set(['GET /channels', 'GET /channels/{id}/icon'])
const permissionOf = (route: Route) => ('permission' in route ? route.permission : undefined)
const routePermission = (p: string | readonly string[] | undefined) =>
  p === undefined ? undefined : (typeof p === 'string' ? [p] : [...p]).sort().join(' | ')

const shape = (p: string) => p.replace(/\{\w+\}/g, '{}')
const routed = new Map(allRoutes().map((r) => [`${r.method} ${shape(r.path)}`, r]))
const find = (method: string, p: string) =>
  routed.get(`${method} ${shape(`/v1${p}`)}`) ?? routed.get(`${method} ${shape(p)}`)

/** The spec itself, where the repository sits beside `shared/` (developers' machines and CI). */
const specFile = path.join(__dirname, '../../../shared/spec/endpoints.tsv')

describe('the spec endpoints of built sections', () => {
  it.skipIf(!fs.existsSync(specFile))('tests against a copy identical to the spec’s endpoints.tsv', () => {
    expect(fs.readFileSync(path.join(__dirname, '../support/endpoints.tsv'), 'utf8')).toBe(
      fs.readFileSync(specFile, 'utf8'),
    )
  })

  for (const [doc, section] of BUILT) {
    it(`routes every endpoint of doc ${doc} §${section} with its access class`, () => {
      const wanted = rows.filter((r) => r.doc === doc && r.section === section)
      expect(wanted.length).toBeGreaterThan(0)
      const missing = wanted.filter((r) => !find(r.method!, r.path)).map((r) => `${r.method} ${r.path}`)
      expect(missing).toEqual([])
      const wrongAccess = wanted
        .filter((r) => r.access && ['K', 'A', 'P', 'C', 'V'].includes(r.access))
        .filter((r) => find(r.method!, r.path)!.access !== r.access)
        .map((r) => `${r.method} ${r.path}: ${find(r.method!, r.path)!.access} (spec ${r.access})`)
      expect(wrongAccess).toEqual([])
      // The permission the route demands is the spec's (alternatives included), no more, no less.
      const wrongPermission = wanted
        .filter((r) => !DEVIATIONS.has(`${r.method} ${r.path}`))
        .filter((r) => routePermission(permissionOf(find(r.method!, r.path)!)) !== permissions.get(r))
        .map(
          (r) =>
            `${r.method} ${r.path}: ${routePermission(permissionOf(find(r.method!, r.path)!))} (spec ${permissions.get(r)})`,
        )
      expect(wrongPermission).toEqual([])
    })
  }
})
