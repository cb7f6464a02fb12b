/**
 * The service answers in Western Indonesia Time: ISO 8601 with the fixed `+07:00` offset (spec 3
 * §8). Asia/Jakarta has no daylight saving, so a constant offset is exact. Calendar dates in
 * filters (`YYYY-MM-DD`) are days in that zone.
 */
export const OFFSET_MS = 7 * 3_600_000
const DAY_MS = 86_400_000

/**
 * The instants the service keeps: from 0001-01-01T00:00:00Z (PostgreSQL and JavaScript agree on
 * years from 1) to 9999-12-31T23:59:59.999+07:00, the last one `iso` writes with a 4-digit year
 * (9999-12-31T20:00Z is already year 10000 here). Inputs outside are refused or replaced where
 * they arrive (the import's timestamps, the webhook's).
 */
const FIRST_MS = Date.parse('0001-01-01T00:00:00Z')
const LAST_MS = Date.parse('9999-12-31T23:59:59.999+07:00')

export const inRange = (d: Date): boolean => {
  const t = d.getTime()
  return t >= FIRST_MS && t <= LAST_MS
}

/** `2026-11-22T15:30:00+07:00`; fractions of a second are dropped. */
export const iso = (d: Date | null | undefined): string | null =>
  d ? `${new Date(d.getTime() + OFFSET_MS).toISOString().slice(0, 19)}+07:00` : null

/** True for a real calendar date written `YYYY-MM-DD` (no 2026-02-30). */
export const isDate = (s: string): boolean => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (!m) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const t = new Date(Date.UTC(y, mo - 1, d))
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d
}

/** The first instant of a `+07:00` calendar day. */
export const startOfDay = (date: string): Date => new Date(Date.parse(`${date}T00:00:00+07:00`))

/** The first instant after a `+07:00` calendar day. */
export const endOfDay = (date: string): Date => new Date(startOfDay(date).getTime() + DAY_MS)

/** The `+07:00` calendar day an instant falls on. */
export const dayOf = (d: Date): string => new Date(d.getTime() + OFFSET_MS).toISOString().slice(0, 10)

export const addDays = (date: string, days: number): string =>
  dayOf(new Date(startOfDay(date).getTime() + days * DAY_MS))
