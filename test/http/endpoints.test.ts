import * as fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  BUILT,
  NOT_YET_BUILT,
  PERMISSION_DEVIATIONS,
  routeOf,
  routePermission,
  SPEC_TSV,
  specRows,
  TSV,
} from '../support/endpoints'

/**
 * Every endpoint of the spec sections that are built is routed, with the spec's access class and
 * permission (the table and its parsing: test/support/endpoints.ts).
 */
describe('the spec endpoints of built sections', () => {
  it.skipIf(!fs.existsSync(SPEC_TSV))('tests against a copy identical to the spec’s endpoints.tsv', () => {
    expect(fs.readFileSync(TSV, 'utf8')).toBe(fs.readFileSync(SPEC_TSV, 'utf8'))
  })

  it('lists as not yet built only endpoints without a route (remove an entry when its route lands)', () => {
    const routed = specRows.filter((r) => NOT_YET_BUILT.has(`${r.method} ${r.path}`) && routeOf(r))
    expect(routed.map((r) => `${r.method} ${r.path}`)).toEqual([])
    const unknown = [...NOT_YET_BUILT].filter((k) => !specRows.some((r) => `${r.method} ${r.path}` === k))
    expect(unknown).toEqual([])
  })

  for (const [doc, section] of BUILT) {
    it(`routes every endpoint of doc ${doc} §${section} with its access class`, () => {
      const wanted = specRows.filter(
        (r) => r.doc === doc && r.section === section && !NOT_YET_BUILT.has(`${r.method} ${r.path}`),
      )
      expect(wanted.length).toBeGreaterThan(0)
      const missing = wanted.filter((r) => !routeOf(r)).map((r) => `${r.method} ${r.path}`)
      expect(missing).toEqual([])
      const wrongAccess = wanted
        .filter((r) => ['K', 'A', 'P', 'C', 'V'].includes(r.access))
        .filter((r) => routeOf(r)!.access !== r.access)
        .map((r) => `${r.method} ${r.path}: ${routeOf(r)!.access} (spec ${r.access})`)
      expect(wrongAccess).toEqual([])
      // The permission the route demands is the spec's (alternatives included), no more, no less.
      const wrongPermission = wanted
        .filter((r) => !PERMISSION_DEVIATIONS.has(`${r.method} ${r.path}`))
        .filter((r) => routePermission(routeOf(r)!) !== r.permission)
        .map((r) => `${r.method} ${r.path}: ${routePermission(routeOf(r)!)} (spec ${r.permission})`)
      expect(wrongPermission).toEqual([])
    })
  }
})
