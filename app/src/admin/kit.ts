import { defineTexts } from '../kit'
import { texts } from './texts'

/** What the admin pages (API keys, audit log, billing) take beyond the kit: their texts, money. */
export const useTr = defineTexts(texts)
export type Tr = ReturnType<typeof useTr>
export type TextKey = keyof typeof texts

/** An amount in its currency (IDR has no minor unit), in the reader's language. */
export const money = (amount: number, currency: string, locale: string) =>
  new Intl.NumberFormat(locale === 'id' ? 'id-ID' : 'en-GB', {
    style: 'currency',
    currency,
    maximumFractionDigits: 0,
  }).format(amount)

/** A date without its time, in the reader's language. */
export const day = (at: string | null | undefined, locale: string) =>
  at ? new Date(at).toLocaleDateString(locale === 'id' ? 'id-ID' : 'en-GB', { dateStyle: 'medium' }) : ''

/** A time as `when` shows it, in a given zone (the audit log's days are the reader's zone's). */
export const whenIn = (at: string, locale: string, timeZone: string) =>
  new Date(at).toLocaleString(locale === 'id' ? 'id-ID' : 'en-GB', {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone,
  })
