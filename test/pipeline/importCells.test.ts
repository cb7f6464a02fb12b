import ExcelJS from 'exceljs'
import JSZip from 'jszip'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as P from './support'

/**
 * Lead imports and text no column can store (docs/decisions.md, "Hardening (input)"): an `.xlsx`
 * cell may carry NUL or an unpaired surrogate (`_x0000_`, `_xD800_` in the workbook's XML, which
 * exceljs decodes), and so may a header. A bad cell is a refused row naming its field, a bad
 * header a 422 on the file; never a 500 (PostgreSQL refuses both characters).
 */
let s: TestServer
let owner: P.Who
let flow: Awaited<ReturnType<typeof P.workflow>>

beforeAll(async () => {
  s = await startTestServer()
  const w = await F.workspace(s, { plan: 'pro' })
  owner = P.session(await F.signIn(s, w.ownerEmail))
  flow = await P.workflow(s, owner, { name: 'Cells flow' })
}, 60_000)
afterAll(() => s?.stop())

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
const CHARACTERS = 'contains a character that is not allowed (NUL or an unpaired UTF-16 surrogate)'

const upload = async (name: string, bytes: Uint8Array, type = XLSX) => {
  const res = await s.fetch('/v1/leads/import/preview', {
    method: 'POST',
    headers: owner,
    body: I.form({}, [{ field: 'file', name, type, bytes }]),
  })
  const json = JSON.parse(await res.text())
  return { status: res.status, data: json.data, error: json.error }
}

/**
 * A workbook whose cells say `@NUL@` and `@SUR@` where the XML then carries the escapes a
 * spreadsheet program writes for those characters.
 */
const book = async (rows: string[][]) => {
  const b = new ExcelJS.Workbook()
  const ws = b.addWorksheet('Leads')
  for (const r of rows) ws.addRow(r)
  const zip = await JSZip.loadAsync((await b.xlsx.writeBuffer()) as ArrayBuffer)
  const shared = 'xl/sharedStrings.xml'
  const xml = await zip.file(shared)!.async('string')
  zip.file(shared, xml.replaceAll('@NUL@', '_x0000_').replaceAll('@SUR@', '_xD800_'))
  return new Uint8Array(await zip.generateAsync({ type: 'uint8array' }))
}

describe('lead imports: text no column can store', () => {
  it('a cell holding NUL or an unpaired surrogate refuses its row, naming the field; the others import', async () => {
    const pv = await upload(
      'cells.xlsx',
      await book([
        ['Title', 'Contact Name', 'Sumber'],
        ['Deal @NUL@ one', 'Andi', 'web'],
        ['Deal two', 'Nul @SUR@ Y', 'web'],
        ['Deal three', 'Budi', 'a@NUL@b'],
        ['Deal fine', 'Citra', 'web'],
      ]),
    )
    expect(pv.status, JSON.stringify(pv)).toBe(200)
    const body = { token: pv.data.token, pipeline_id: flow.id }
    const run = await P.api(s, owner).post('/v1/leads/import', body)
    expect(run.status, JSON.stringify(run)).toBe(200)
    expect(run.data).toMatchObject({ created: 1, refused: 3 })
    const refused = run.data.rows
      .filter((r: { action: string }) => r.action === 'refuse')
      .map((r: { line: number; problems: Array<{ field: string; code: string; message: string }> }) => [
        r.line,
        r.problems.map((p) => [p.field, p.code, p.message]),
      ])
    expect(refused).toEqual([
      [2, [['title', 'field.characters', CHARACTERS]]],
      [3, [['contact_name', 'field.characters', CHARACTERS]]],
      [4, [['custom.sumber', 'field.characters', CHARACTERS]]],
    ])
  })

  it('a header holding one is a 422 on the file; a CSV holding NUL is too (a UTF-16 export)', async () => {
    const header = await upload(
      'header.xlsx',
      await book([
        ['Title', 'Sum@NUL@ber'],
        ['Deal', 'web'],
      ]),
    )
    expect(header.status, JSON.stringify(header)).toBe(422)
    expect(header.error.code).toBe('validation_error')
    expect(header.error.fields.file).toBe(
      'has a character that is not allowed (NUL or an unpaired UTF-16 surrogate) in its header row',
    )
    const csv = await upload('nul.csv', new TextEncoder().encode('title\nNul X\u0000x\n'), 'text/csv')
    expect(csv.status, JSON.stringify(csv)).toBe(422)
    expect(csv.error.code).toBe('validation_error')
    expect(Object.keys(csv.error.fields)).toEqual(['file'])
  })
})
