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
 * The pipeline rows of spec 2 §4.7 word their permission column in prose: `view` and `same as
 * list` mean the list's `leads.view or leads.manage`, and `view / leads.manage` on the activities
 * row means reading needs either and logging `leads.manage` (docs/decisions.md, Pipeline). The
 * dashboard's `same` is read as the list's too, not as the settings row above it: its figures are
 * over the leads the caller sees (docs/decisions.md, "Dashboard (`GET /pipeline/dashboard`)").
 * Keys: `METHOD path`, `METHOD written` or `written`, in that order.
 */
const PERMISSION_READINGS: Readonly<Record<string, string>> = {
  'GET /pipeline/dashboard': 'leads.view or leads.manage',
  'same as list': 'leads.view or leads.manage',
  view: 'leads.view or leads.manage',
  'GET view / leads.manage': 'leads.view or leads.manage',
  'POST view / leads.manage': 'leads.manage',
}

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
      const written = permission?.trim() ?? ''
      const raw =
        PERMISSION_READINGS[`${method} ${p}`] ??
        PERMISSION_READINGS[`${method} ${written}`] ??
        PERMISSION_READINGS[written] ??
        written
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
  ['2', '4.3'],
  ['2', '4.4'],
  ['2', '4.7'],
  ['2', '4.5'],
  ['2', '4.8'],
  ['2', '4.6'],
]

/**
 * Endpoints of a built section that a later issue builds: spec 2 §4.7's second half (clients, the
 * dashboard, export, imports, bulk actions; issue 24). Only these may be missing; remove each
 * line as its route lands.
 */
export const NOT_YET_BUILT: ReadonlySet<string> = new Set([])

/**
 * Deliberate deviations from the spec's permission column (docs/decisions.md, Channels; and
 * Broadcasts: spec 2 §4.8 says reads take `broadcasts.view` or `broadcasts.manage`, the table
 * names only the first).
 */
export const PERMISSION_DEVIATIONS = new Set([
  // Tickets: followers may unfollow themselves (spec 2 §4.3), so `tickets.view` gets through and
  // the rule refuses anything but removing yourself as a follower (docs/decisions.md, Tickets).
  'DELETE /tickets/{id}/participants/{user}',
  'GET /channels',
  'GET /channels/{id}/icon',
  // Reports: your own KPI rows are yours to export without `reports.view`.
  'GET /kpi/export',
  ...[
    'GET /segments',
    'GET /segments/fields',
    'POST /segments/preview',
    'GET /segments/{id}',
    'GET /broadcasts',
    'GET /broadcasts/options',
    'GET /broadcasts/dashboard',
    'GET /broadcasts/{id}',
    'GET /broadcasts/{id}/recipients',
    'GET /broadcasts/{id}/export',
    'GET /broadcasts/{id}/media',
    'POST /broadcasts/{id}/estimate',
    'POST /broadcasts/{id}/preview',
  ],
])

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
