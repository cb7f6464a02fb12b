/** A ticket's code: `TKT-` and the number zero-padded to 6 digits (`TKT-000042`). */
export const ticketCode = (n: number): string => `TKT-${String(n).padStart(6, '0')}`

const MAX = 2_147_483_647

/**
 * The number in a ticket path parameter: the integer (`42`) or the full code (`TKT-000042`;
 * numbers past 999999 have more digits). Anything else names no ticket (null, answered 404).
 */
export const parseTicketRef = (ref: string): number | null => {
  const m = /^(?:TKT-(\d{6,10})|(\d{1,10}))$/.exec(ref)
  if (!m) return null
  const digits = m[1] ?? m[2]!
  if (m[1] && digits.length > 6 && digits.startsWith('0')) return null
  const n = Number(digits)
  return n >= 1 && n <= MAX ? n : null
}
