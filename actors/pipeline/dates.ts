import { Schema } from 'effect'
import { startOfLocalDay } from '../../engine/time'

/** Calendar days of the pipeline's filters (`YYYY-MM-DD`), read in a time zone. */
export const LocalDate = Schema.String.pipe(
  Schema.filter(
    (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && new Date(`${s}T00:00:00Z`).toISOString().slice(0, 10) === s,
    { message: () => 'field.date', jsonSchema: { pattern: '^\\d{4}-\\d{2}-\\d{2}$' } },
  ),
)

/** The instant the day starts in `zone` (`plusDays` later). */
export const dayStart = (date: string, zone: string, plusDays = 0) => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return startOfLocalDay(y, m, d + plusDays, zone)
}
