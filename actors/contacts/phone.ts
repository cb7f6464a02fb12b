import { type CountryCode, getCountryCallingCode, parsePhoneNumberFromString } from 'libphonenumber-js'

/**
 * Phone numbers are kept in E.164 (`+6281234567890`), so matching by phone is an exact compare.
 * A number written without a country code is read in the workspace's region: workspaces have no
 * country of their own, so the region follows the workspace's time zone, else Indonesia
 * (docs/decisions.md, "Contacts").
 */
export const DEFAULT_REGION: CountryCode = 'ID'

const ZONES: Readonly<Record<string, CountryCode>> = {
  'Asia/Jakarta': 'ID',
  'Asia/Pontianak': 'ID',
  'Asia/Makassar': 'ID',
  'Asia/Jayapura': 'ID',
  'Asia/Singapore': 'SG',
  'Asia/Kuala_Lumpur': 'MY',
  'Asia/Kuching': 'MY',
  'Asia/Bangkok': 'TH',
  'Asia/Manila': 'PH',
  'Asia/Ho_Chi_Minh': 'VN',
  'Asia/Saigon': 'VN',
  'Asia/Tokyo': 'JP',
  'Asia/Kolkata': 'IN',
  'Australia/Sydney': 'AU',
  'Australia/Melbourne': 'AU',
  'Europe/London': 'GB',
  'Europe/Amsterdam': 'NL',
  'Europe/Berlin': 'DE',
  'America/New_York': 'US',
  'America/Chicago': 'US',
  'America/Los_Angeles': 'US',
}

export const regionOf = (timezone: string): CountryCode => ZONES[timezone] ?? DEFAULT_REGION

/**
 * The E.164 form of a number as people write it (`0812-3456-7890`, `+62 812…`, `6281234567890`),
 * or null when it is not a valid number. Digits that start with the region's calling code are
 * tried as international first.
 */
export const normalizePhone = (raw: string, region: CountryCode): string | null => {
  const text = raw.trim()
  if (text === '' || text.length > 40) return null
  const digits = text.replace(/[\s().-]/g, '')
  if (!digits.startsWith('+') && /^\d+$/.test(digits) && digits.startsWith(getCountryCallingCode(region))) {
    const intl = parsePhoneNumberFromString(`+${digits}`)
    if (intl?.isValid()) return intl.number
  }
  const p = parsePhoneNumberFromString(text, region)
  return p?.isValid() ? p.number : null
}

/** E-mail addresses are kept lower-cased, so matching by e-mail is an exact compare too. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
export const normalizeEmail = (raw: string): string | null => {
  const e = raw.trim().toLowerCase()
  return e.length <= 320 && EMAIL.test(e) ? e : null
}
