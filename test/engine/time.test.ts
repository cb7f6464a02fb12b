import { describe, expect, it } from 'vitest'
import { iso, isoMillis } from '../../engine/time'

/**
 * `iso` and `isoMillis` keep the last second's text (engine/time.ts): every instant must still
 * read exactly as `toISOString` has it, whichever second was formatted before it.
 */
describe('ISO timestamps', () => {
  const instants = [
    0, -1, -999, -1000, -1001, 1, 999, 1000, 1001, 59_999, 60_000, 1_795_692_272_640, 1_795_692_272_000,
    1_795_692_272_999, 951_782_400_000 /* 2000-02-29 */, -62_198_755_200_000 /* year 0 */,
    253_402_300_799_999 /* 9999-12-31T23:59:59.999 */, 253_402_300_800_000 /* year 10000 */,
  ]

  it('reads as toISOString, in any order', () => {
    // Forwards, backwards and each twice in a row: a kept second must never leak into another.
    for (const order of [instants, [...instants].reverse(), instants.flatMap((t) => [t, t])]) {
      for (const t of order) {
        const expected = new Date(t).toISOString()
        expect(isoMillis(t)).toBe(expected)
        expect(iso(new Date(t))).toBe(`${expected.slice(0, -5)}Z`)
      }
    }
  })

  it('alternates between instants of the same second and of others', () => {
    for (let t = 1_795_692_271_000; t < 1_795_692_275_000; t += 7) {
      expect(isoMillis(t)).toBe(new Date(t).toISOString())
      expect(isoMillis(t - 86_400_000)).toBe(new Date(t - 86_400_000).toISOString())
    }
  })

  it('is null for no date and throws for an invalid one, as toISOString does', () => {
    expect(iso(null)).toBeNull()
    expect(iso(undefined)).toBeNull()
    expect(() => iso(new Date(Number.NaN))).toThrow(RangeError)
    expect(() => isoMillis(Number.NaN)).toThrow(RangeError)
  })
})
