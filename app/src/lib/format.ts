import { locale } from './i18n'

/** Times as people read them: today's as a clock time, older ones with the date. */
export const when = (iso: string | null | undefined): string => {
  if (!iso) return ''
  const d = new Date(iso)
  const lang = locale.get() === 'id' ? 'id-ID' : 'en-GB'
  const today = new Date()
  return d.toDateString() === today.toDateString()
    ? d.toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit' })
    : d.toLocaleDateString(lang, { day: 'numeric', month: 'short' })
}

export const fullTime = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleString(locale.get() === 'id' ? 'id-ID' : 'en-GB') : ''

export const bytes = (n: number | null | undefined): string => {
  if (n === null || n === undefined) return ''
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KB`
  return `${(n / 1024 / 1024).toFixed(1)} MB`
}

export const initials = (name: string): string =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join('') || '?'

/**
 * Marks the first paint with content a person came for (the sign-in choice or the first page of
 * the inbox), once: bench/app.ts reads it as the first meaningful paint.
 */
export const meaningful = () => {
  if (performance.getEntriesByName('kotak:meaningful').length === 0)
    requestAnimationFrame(() => performance.mark('kotak:meaningful'))
}

/** Counts in tabs: 950, 1.2K, 10K (rb, jt in Indonesian), so the tabs keep to two lines. */
export const compact = (n: number): string =>
  new Intl.NumberFormat(locale.get() === 'id' ? 'id-ID' : 'en', {
    notation: 'compact',
    maximumFractionDigits: 1,
  }).format(n)
