import { useState } from 'preact/hooks'
import { failText } from '../kit'
import { Notice } from '../kit/ui'
import { csrfToken } from '../lib/api'
import { locale as localeStore } from '../lib/i18n'
import { can, num, TEXT_FIELDS, type TextKey, useLocale, useTr } from './kit'
import { Frame, useDefs } from './ProfilePage'

/**
 * `/app/contacts/import`: a CSV file read in the browser (UTF-8, `,` or `;`), its columns shown
 * with what each will be imported as (chosen by the header's name, changeable) and a few example
 * values; then sent to POST /contacts/import in parts of `PART` rows, one after another, so the
 * page shows how far it got and the running created / updated / skipped counts, and each part's
 * per-row errors with the row's line in the person's own file. The API imports a file whole in
 * one answer and has no import job (docs/decisions.md): the parts are the progress.
 */
const PART = 500

interface Rec {
  readonly cells: readonly string[]
  readonly line: number
}

/** CSV records with the line each starts on; null when a quote is left open. */
export const parseCsv = (text: string, delim: string): Rec[] | null => {
  const out: Rec[] = []
  let cells: string[] = []
  let cell = ''
  let quoted = false
  let line = 1
  let start = 1
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  let any = false
  for (; i < text.length; i++) {
    const ch = text[i]!
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"'
          i++
        } else quoted = false
      } else {
        if (ch === '\n') line++
        cell += ch
      }
      continue
    }
    if (ch === '"') {
      quoted = true
      any = true
    } else if (ch === delim) {
      cells.push(cell)
      cell = ''
      any = true
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++
      if (any || cell !== '') {
        cells.push(cell)
        out.push({ cells, line: start })
      }
      cells = []
      cell = ''
      any = false
      line++
      start = line
    } else {
      cell += ch
      any = true
    }
  }
  if (quoted) return null
  if (any || cell !== '') {
    cells.push(cell)
    out.push({ cells, line: start })
  }
  return out
}

const delimiterOf = (text: string) => {
  const head = text.slice(0, text.indexOf('\n') < 0 ? text.length : text.indexOf('\n'))
  return (head.match(/;/g)?.length ?? 0) > (head.match(/,/g)?.length ?? 0) ? ';' : ','
}

const quote = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s)

const TARGETS = [...TEXT_FIELDS, 'labels', 'broadcast_opt_out'] as const

/** Header names the import reads as each column (English and Indonesian). */
const GUESS: Readonly<Record<string, string>> = {
  nama: 'name',
  telepon: 'phone',
  no_hp: 'phone',
  whatsapp: 'phone',
  e_mail: 'email',
  perusahaan: 'company',
  jabatan: 'job_title',
  alamat: 'address',
  kota: 'city',
  bahasa: 'language',
  label: 'labels',
}

interface RowError {
  readonly line: number
  readonly field: string | null
  readonly message: string
}

interface Progress {
  readonly done: number
  readonly total: number
  readonly created: number
  readonly updated: number
  readonly skipped: number
  readonly errors: readonly RowError[]
  readonly errorsTotal: number
  readonly finished: boolean
}

interface PartResult {
  readonly created: number
  readonly updated: number
  readonly skipped: number
  readonly errors: readonly { line: number; field: string | null; message: string }[]
  readonly errors_total: number
}

/** One part as its own small CSV file (multipart `file`). */
const send = async (csv: string): Promise<PartResult> => {
  const form = new FormData()
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv')
  const res = await fetch('/v1/contacts/import', {
    method: 'POST',
    headers: { 'X-CSRF-Token': csrfToken(), 'X-Locale': localeStore.get() },
    body: form,
    credentials: 'same-origin',
  })
  const body = (await res.json().catch(() => ({}))) as { data?: PartResult; error?: { message?: string } }
  if (!res.ok || !body.data) throw new Error(body.error?.message ?? res.statusText)
  return body.data
}

const ImportPage = () => {
  const tr = useTr()
  const locale = useLocale()
  const defs = useDefs()
  const [file, setFile] = useState<{ name: string; header: readonly string[]; rows: readonly Rec[] } | null>(
    null,
  )
  const [map, setMap] = useState<readonly string[]>([])
  const [bad, setBad] = useState<string | null>(null)
  const [progress, setProgress] = useState<Progress | null>(null)
  const [failed, setFailed] = useState<unknown>(null)

  if (!can('contacts.manage'))
    return (
      <Frame title={tr('ct.import_title')}>
        <Notice kind="bad">{tr('ct.refused')}</Notice>
      </Frame>
    )

  const guess = (h: string) => {
    const n = h
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_')
    if ((TARGETS as readonly string[]).includes(n)) return n
    if (GUESS[n]) return GUESS[n]!
    const d = defs.find((x) => x.key === n || x.label.trim().toLowerCase() === h.trim().toLowerCase())
    return d ? d.key : ''
  }

  const choose = async (f: File | undefined) => {
    setBad(null)
    setFile(null)
    setProgress(null)
    setFailed(null)
    if (!f) return
    let text: string
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(await f.arrayBuffer())
    } catch {
      setBad(tr('ct.imp_encoding'))
      return
    }
    const recs = parseCsv(text, delimiterOf(text))
    if (recs === null) return setBad(tr('ct.imp_quotes'))
    const [head, ...rows] = recs
    if (!head || rows.length === 0) return setBad(tr('ct.imp_empty'))
    setFile({ name: f.name, header: head.cells, rows })
    setMap(head.cells.map(guess))
  }

  const run = async () => {
    if (!file) return
    const header = map.map(quote).join(',')
    let p: Progress = {
      done: 0,
      total: file.rows.length,
      created: 0,
      updated: 0,
      skipped: 0,
      errors: [],
      errorsTotal: 0,
      finished: false,
    }
    setProgress(p)
    setFailed(null)
    for (let at = 0; at < file.rows.length; at += PART) {
      const part = file.rows.slice(at, at + PART)
      // The line (in this part's file) each record ends on, to the line it starts on in the person's.
      const lines = new Map<number, number>()
      let line = 1
      const body = part.map((r) => {
        const text = r.cells.map(quote).join(',')
        line += 1 + (text.match(/\n/g)?.length ?? 0)
        lines.set(line, r.line)
        return text
      })
      try {
        const r = await send(`${header}\n${body.join('\n')}\n`)
        p = {
          ...p,
          done: p.done + part.length,
          created: p.created + r.created,
          updated: p.updated + r.updated,
          skipped: p.skipped + r.skipped,
          errors: [
            ...p.errors,
            ...r.errors.map((e) => ({
              line: lines.get(e.line) ?? e.line,
              field: e.field,
              message: e.message,
            })),
          ],
          errorsTotal: p.errorsTotal + r.errors_total,
        }
        setProgress(p)
      } catch (e) {
        setFailed(e)
        setProgress({ ...p, finished: true })
        return
      }
    }
    setProgress({ ...p, finished: true })
  }

  const columnName = (k: string) =>
    k === ''
      ? tr('ct.imp_skip')
      : (TARGETS as readonly string[]).includes(k)
        ? tr(`ct.f.${k}` as TextKey)
        : (defs.find((d) => d.key === k)?.label ?? k)
  const canRun = map.some((m) => m === 'name' || m === 'phone' || m === 'email')
  const running = progress !== null && !progress.finished
  return (
    <Frame title={tr('ct.import_title')} testId="contacts-import">
      <div class="k-stack">
        <p class="k-muted">{tr('ct.imp_intro')}</p>
        <div class="k-panel">
          <div class="k-field">
            <label for="ct-file">{tr('ct.imp_file')}</label>
            <input
              id="ct-file"
              type="file"
              accept=".csv,text/csv"
              disabled={running}
              onChange={(e) => void choose(e.currentTarget.files?.[0])}
            />
          </div>
          {bad && <Notice kind="bad">{bad}</Notice>}
        </div>
        {file && (
          <section class="k-panel" aria-labelledby="ct-map-h" data-testid="import-mapping">
            <h2 id="ct-map-h">
              {tr('ct.imp_mapping', { n: num(file.rows.length, locale), file: file.name })}
            </h2>
            <div class="k-table-wrap">
              <table class="k-table">
                <thead>
                  <tr>
                    <th scope="col">{tr('ct.imp_column')}</th>
                    <th scope="col">{tr('ct.imp_as')}</th>
                    <th scope="col">{tr('ct.imp_examples')}</th>
                  </tr>
                </thead>
                <tbody>
                  {file.header.map((h, i) => (
                    <tr key={`${i}-${h}`}>
                      <th scope="row">{h || tr('ct.imp_unnamed', { n: i + 1 })}</th>
                      <td>
                        <select
                          aria-label={tr('ct.imp_as_for', { column: h || String(i + 1) })}
                          value={map[i]}
                          disabled={running}
                          onChange={(e) => {
                            const v = e.currentTarget.value
                            setMap((m) => m.map((x, j) => (j === i ? v : x)))
                          }}
                        >
                          {['', ...TARGETS, ...defs.map((d) => d.key)].map((k) => (
                            <option key={k} value={k}>
                              {columnName(k)}
                            </option>
                          ))}
                        </select>
                      </td>
                      <td class="k-muted">
                        {file.rows
                          .slice(0, 3)
                          .map((r) => r.cells[i] ?? '')
                          .filter(Boolean)
                          .join(' · ')}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {!canRun && <Notice kind="bad">{tr('ct.imp_need')}</Notice>}
            <div class="k-row">
              <button
                type="button"
                class="k-btn k-primary"
                disabled={!canRun || running}
                onClick={() => void run()}
              >
                {tr('ct.imp_start', { n: num(file.rows.length, locale) })}
              </button>
            </div>
          </section>
        )}
        {progress && (
          <section class="k-panel" aria-labelledby="ct-prog-h" data-testid="import-progress">
            <h2 id="ct-prog-h">{progress.finished ? tr('ct.imp_done') : tr('ct.imp_running')}</h2>
            <div class="ct-progress">
              <label for="ct-prog">
                {tr('ct.imp_rows', { done: num(progress.done, locale), total: num(progress.total, locale) })}
              </label>
              <progress id="ct-prog" max={progress.total} value={progress.done} />
              <p role="status" data-testid="import-counts">
                {tr('ct.imp_counts', {
                  created: num(progress.created, locale),
                  updated: num(progress.updated, locale),
                  skipped: num(progress.skipped, locale),
                  errors: num(progress.errorsTotal, locale),
                })}
              </p>
            </div>
            {failed ? <Notice kind="bad">{tr('ct.imp_failed', { message: failText(failed) })}</Notice> : null}
            {progress.errors.length > 0 && (
              <div class="k-table-wrap">
                <table class="k-table" data-testid="import-errors">
                  <caption class="sr-only">{tr('ct.imp_errors')}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{tr('ct.imp_line')}</th>
                      <th scope="col">{tr('ct.imp_field')}</th>
                      <th scope="col">{tr('ct.imp_problem')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {progress.errors.slice(0, 500).map((e, i) => (
                      <tr key={`${e.line}-${i}`}>
                        <td>{e.line}</td>
                        <td>{e.field ? columnName(e.field) : ''}</td>
                        <td>{e.message}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        )}
      </div>
    </Frame>
  )
}
export default ImportPage
