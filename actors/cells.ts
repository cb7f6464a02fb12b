import { stringify } from 'csv-stringify/sync'

/**
 * The cells of every file Kotak hands out as a spreadsheet (the CSV and xlsx exports, the lead
 * import template): text that a spreadsheet would take for a formula comes out inert (OWASP, CSV
 * injection; docs/decisions.md "Spreadsheet exports: formulas come out inert"). Contact names,
 * companies and lead titles come from strangers (a live-chat visitor, an API channel's customer),
 * so no export writes a cell without passing it through `inert`, through `csv` or one by one.
 *
 * A text cell is live when it starts with `=`, `+`, `-`, `@`, a tab or a carriage return (OWASP's
 * list), or their full-width forms `＝ ＋ － ＠` (which Apple Numbers reads as the ASCII ones), also
 * after leading white space (some importers trim it); it comes out with a single quote in front
 * (`'=HYPERLINK(…)`), the rest unchanged. Two kinds of cell are left as they are because they
 * cannot compute anything: values that are not text (counts and amounts written as numbers, and
 * booleans and dates), and text that is only a plain decimal number with an optional sign
 * (`+6281234567890` in E.164, `-12.50`), which a spreadsheet reads as that number at worst.
 */

/** A cell as the exports build it; only text is ever changed. */
export type Cell = string | number | boolean | bigint | Date | null | undefined

const TRIGGER = /^(?:[\t\r]|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/
const PLAIN_NUMBER = /^[+-]?\d+(?:\.\d+)?$/

/** Whether a spreadsheet could read this text as a formula. */
export const isLive = (text: string) => TRIGGER.test(text) && !PLAIN_NUMBER.test(text)

/** The one neutraliser: a live text cell with `'` in front, any other cell as it is. */
export const inert = <A extends Cell>(value: A): A | string =>
  typeof value === 'string' && isLive(value) ? `'${value}` : value

/** One row with every cell made inert (for exceljs's `addRow(s)`). */
export const inertRow = (row: ReadonlyArray<Cell>) => row.map(inert)

/** Rows as CSV text (csv-stringify: quoting, `\n` line ends), every cell made inert. */
export const csv = (rows: ReadonlyArray<ReadonlyArray<Cell>>) => stringify(rows.map(inertRow))
