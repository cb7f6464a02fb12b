import { startOfLocalDay } from '../../engine/time'

/** Calendar days of the pipeline's filters (`YYYY-MM-DD`), read in a time zone. */
export { LocalDate } from '../fields'

/** The instant the day starts in `zone` (`plusDays` later). */
export const dayStart = (date: string, zone: string, plusDays = 0) => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return startOfLocalDay(y, m, d + plusDays, zone)
}
