import * as fs from 'node:fs'
import * as path from 'node:path'
import { allRoutes } from '../../http/app'
import type { Route } from '../../http/route'

/**
 * The spec's endpoint table (`test/support/endpoints.tsv`, a copy of the spec's endpoints.tsv:
 * doc, section, method, path, permission, access; paths there lack the `/v1` prefix) and the
 * routes that serve it, for the coverage, fuzz and authorisation suites.
 */
export interface SpecRow {
  readonly doc: string
  readonly section: string
  readonly method: string
  readonly path: string
  readonly access: string
  /** The permission column as a set: `a | b` for alternatives, undefined for none. */
  readonly permission: string | undefined
}

export const TSV = path.join(__dirname, 'endpoints.tsv')
/** The spec itself, where the repository sits beside `shared/` (developers' machines and CI). */
export const SPEC_TSV = path.join(__dirname, '../../../shared/spec/endpoints.tsv')

/**
 * `-` or empty is none, `same` repeats the row above, `a or b` and `a (or b)` are alternatives.
 */
export const specRows: readonly SpecRow[] = (() => {
  let prev: string | undefined
  return fs
    .readFileSync(TSV, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'))
    .map(([doc, section, method, p, permission, access]) => {
      const raw = permission?.trim() ?? ''
      const own = raw === 'same' ? prev : raw === '' || raw === '-' ? undefined : raw
      prev = own
      const set = own
        ?.replace(/[()]/g, '')
        .split(/\s+or\s+|\s+\/\s+/)
        .map((x) => x.trim())
        .sort()
        .join(' | ')
      return {
        doc: doc!,
        section: section!,
        method: method!,
        path: p!,
        access: access ?? '',
        permission: set,
      }
    })
})()

/** Doc and sections implemented so far; a section joins this list when its issue lands. */
export const BUILT: ReadonlyArray<readonly [string, string]> = [
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
  ['2', '4.6'],
]

/** Deliberate deviations from the spec's permission column (docs/decisions.md, Channels). */
export const PERMISSION_DEVIATIONS = new Set(['GET /channels', 'GET /channels/{id}/icon', 'GET /kpi/export'])

/** A route's permission rule in the same `a | b` form as `SpecRow.permission`. */
export const routePermission = (route: Route): string | undefined => {
  const p = 'permission' in route ? route.permission : undefined
  return p === undefined ? undefined : (typeof p === 'string' ? [p] : [...p]).sort().join(' | ')
}

const shape = (p: string) => p.replace(/\{\w+\}/g, '{}')
const routed = new Map(allRoutes().map((r) => [`${r.method} ${shape(r.path)}`, r]))

/** The route serving a spec row (spec paths lack `/v1`), if any. */
export const routeOf = (row: Pick<SpecRow, 'method' | 'path'>): Route | undefined =>
  routed.get(`${row.method} ${shape(`/v1${row.path}`)}`) ?? routed.get(`${row.method} ${shape(row.path)}`)

/** Every spec row that is routed, with its route: grows by itself as sections are built. */
export const routedSpec = (): ReadonlyArray<{ readonly row: SpecRow; readonly route: Route }> =>
  specRows.flatMap((row) => {
    const route = routeOf(row)
    return route ? [{ row, route }] : []
  })
