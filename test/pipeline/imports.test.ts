import ExcelJS from 'exceljs'
import JSZip from 'jszip'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as P from './support'

/**
 * Lead imports (spec 2 §4.7): the template, the preview of `.xlsx` (written by exceljs, and by a
 * second writer: a bare SpreadsheetML package zipped with JSZip, inline strings, no styles) and CSV
 * files built here, the dry run equal to the run, the same file twice (no duplicates), quota
 * refusals per row, malformed, password-protected and oversized files, tokens and keys.
 */
let s: TestServer
let w: F.Seeded
let owner: P.Who
let writeKey: P.Who
let flow: Awaited<ReturnType<typeof P.workflow>>

beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  owner = P.session(await F.signIn(s, w.ownerEmail))
  writeKey = P.key(await F.apiKey(s, w, 'write'))
  flow = await P.workflow(s, owner, { name: 'Import flow' })
}, 60_000)
afterAll(() => s?.stop())

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'

const upload = async (who: P.Who, name: string, bytes: Uint8Array, type = XLSX) => {
  const res = await s.fetch('/v1/leads/import/preview', {
    method: 'POST',
    headers: who,
    body: I.form({}, [{ field: 'file', name, type, bytes }]),
  })
  const text = await res.text()
  const json = text ? JSON.parse(text) : {}
  return { status: res.status, data: json.data, error: json.error }
}

/** A real multi-sheet workbook: Indonesian two-level header with merged cells, dates, numbers as text. */
const indonesianBook = async (rows: Array<Array<string | number | Date | null>>) => {
  const book = new ExcelJS.Workbook()
  const ws = book.addWorksheet('Prospek')
  ws.getCell('A1').value = 'Judul'
  ws.getCell('B1').value = 'Nilai'
  ws.getCell('C1').value = 'Kontak'
  ws.getCell('C2').value = 'Nama'
  ws.getCell('D2').value = 'Telepon'
  ws.getCell('E2').value = 'Email'
  ws.getCell('F1').value = 'Perusahaan'
  ws.getCell('G1').value = 'Tanggal Closing'
  ws.getCell('H1').value = 'Sumber Iklan'
  ws.mergeCells('A1:A2')
  ws.mergeCells('B1:B2')
  ws.mergeCells('C1:E1')
  ws.mergeCells('F1:F2')
  ws.mergeCells('G1:G2')
  ws.mergeCells('H1:H2')
  for (const r of rows) ws.addRow(r)
  book.addWorksheet('Daftar').addRow(['not', 'read'])
  return new Uint8Array((await book.xlsx.writeBuffer()) as ArrayBuffer)
}

const dec31 = new Date(Date.UTC(2026, 11, 31))

describe('lead imports', () => {
  it('offers the template in xlsx and csv', async () => {
    const x = await s.fetch('/v1/leads/import/template?format=xlsx', { headers: owner })
    expect(x.status).toBe(200)
    const book = new ExcelJS.Workbook()
    await book.xlsx.load(Buffer.from(await x.arrayBuffer()) as never)
    expect(book.worksheets[0]!.getRow(1).getCell(1).value).toBe('title')
    const c = await s.fetch('/v1/leads/import/template?format=csv', { headers: owner })
    expect(c.headers.get('content-type')).toContain('text/csv')
    expect((await c.text()).replace(/^\uFEFF/, '').split('\n')[0]).toContain(
      'title,pipeline,stage,value_estimate',
    )
    expect((await s.fetch('/v1/leads/import/template', { headers: writeKey })).status).toBe(403)
  })

  it('previews, dry-runs and runs an Indonesian xlsx; the same file again duplicates nothing', async () => {
    const known = await I.contact(s, w, { name: 'Sari', phone: '+6281311112222', email: null })
    const bytes = await indonesianBook([
      ['Renovasi kantor', 'Rp 15.000.000', 'Sari', '0813-1111-2222', null, 'PT Maju', dec31, 'Instagram'],
      [
        'Pengadaan laptop',
        25000000,
        'Budi',
        '081344445555',
        'budi@example.com',
        'pt maju',
        '30/11/2026',
        'Google',
      ],
      ['Kontrak servis', '1,250,000.50', null, null, 'tono@example.com', null, null, null],
      ['Rusak', 'banyak', 'X', null, null, null, null, null],
    ])
    const pv = await upload(owner, 'prospek.xlsx', bytes)
    expect(pv.status).toBe(200)
    expect(pv.data.file).toMatchObject({ format: 'xlsx', sheet: 'Prospek' })
    expect(pv.data.rows_total).toBe(4)
    const byHeader = Object.fromEntries(
      pv.data.columns.map((c: { header: string; suggestion: string | null }) => [c.header, c.suggestion]),
    )
    expect(byHeader).toEqual({
      Judul: 'title',
      Nilai: 'value_estimate',
      'Kontak Nama': 'contact_name',
      'Kontak Telepon': 'contact_phone',
      'Kontak Email': 'contact_email',
      Perusahaan: 'client',
      'Tanggal Closing': 'expected_close',
      'Sumber Iklan': null,
    })
    expect(pv.data.samples[0].cells[6]).toBe('2026-12-31')
    expect(Date.parse(pv.data.expires_at) - Date.now()).toBeGreaterThan(59 * 60_000)

    const body = { token: pv.data.token, pipeline_id: flow.id }
    const dry = await P.api(s, owner).post('/v1/leads/import', { ...body, dry_run: true })
    expect(dry.status).toBe(200)
    expect(dry.data).toMatchObject({
      dry_run: true,
      created: 3,
      updated: 0,
      unchanged: 0,
      refused: 1,
      custom_fields_created: ['sumber_iklan'],
    })
    expect(dry.data.rows[3]).toMatchObject({ line: 6, action: 'refuse' })
    expect(dry.data.rows[3].problems[0]).toMatchObject({ field: 'value_estimate', code: 'import.number' })
    // Nothing was written by the dry run.
    expect((await P.api(s, owner).get(`/v1/leads?pipeline_id=${flow.id}`)).meta.total).toBe(0)

    const run = await P.api(s, owner).post('/v1/leads/import', body)
    expect(run.status).toBe(200)
    const strip = (r: { rows: Array<{ line: number; action: string; problems: unknown[] }> }) =>
      r.rows.map((x) => [x.line, x.action, x.problems])
    expect(strip(run.data)).toEqual(strip(dry.data))
    expect(run.data).toMatchObject({ dry_run: false, created: 3, refused: 1 })
    const numbers = run.data.rows
      .slice(0, 3)
      .map((r: { identifier: string }) => Number(r.identifier.slice(5)))
    expect(numbers[1]).toBe(numbers[0] + 1)
    expect(numbers[2]).toBe(numbers[0] + 2)
    const leads = (await P.api(s, owner).get(`/v1/leads?pipeline_id=${flow.id}&sort=number&dir=asc`)).data
    expect(leads.map((l: { title: string }) => l.title)).toEqual([
      'Renovasi kantor',
      'Pengadaan laptop',
      'Kontrak servis',
    ])
    expect(leads[0]).toMatchObject({
      source: 'import',
      value_estimate: 15000000,
      expected_close: '2026-12-31',
      custom: { sumber_iklan: 'Instagram' },
    })
    expect(leads[0].contact.id).toBe(known.id)
    expect(leads[1]).toMatchObject({ value_estimate: 25000000, expected_close: '2026-11-30' })
    expect(leads[1].client.id).toBe(leads[0].client.id)
    expect(leads[2]).toMatchObject({ value_estimate: 1250000.5, client: null })
    expect(leads[2].contact.email).toBe('tono@example.com')

    // A run uses its token once (the stored upload is removed).
    expect((await P.api(s, owner).post('/v1/leads/import', body)).status).toBe(422)
    // The same file again: nothing created, nothing changed.
    const again = await upload(owner, 'prospek.xlsx', bytes)
    const second = await P.api(s, owner).post('/v1/leads/import', {
      token: again.data.token,
      pipeline_id: flow.id,
    })
    expect(second.data).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: 3,
      refused: 1,
      custom_fields_created: [],
    })
    expect((await P.api(s, owner).get(`/v1/leads?pipeline_id=${flow.id}`)).meta.total).toBe(3)
    // A changed amount updates the lead the first import made.
    const changed = await indonesianBook([
      ['Renovasi kantor', 'Rp 17.500.000', 'Sari', '081311112222', null, 'PT Maju', dec31, 'Instagram'],
    ])
    const third = await P.api(s, owner).post('/v1/leads/import', {
      token: (await upload(owner, 'v2.xlsx', changed)).data.token,
      pipeline_id: flow.id,
    })
    expect(third.data).toMatchObject({ created: 0, updated: 1 })
    expect(third.data.rows[0].lead_id).toBe(leads[0].id)
    expect((await P.api(s, owner).get(`/v1/leads/${leads[0].id}`)).data.value_estimate).toBe(17500000)
  })

  it('reads an xlsx written by another writer, and CSV with ; and a mapping', async () => {
    const zip = new JSZip()
    zip.file(
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    )
    zip.file(
      '_rels/.rels',
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    )
    zip.file(
      'xl/workbook.xml',
      '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Deals" sheetId="1" r:id="rId1"/></sheets></workbook>',
    )
    zip.file(
      'xl/_rels/workbook.xml.rels',
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
    )
    const c = (ref: string, v: string) => `<c r="${ref}" t="inlineStr"><is><t>${v}</t></is></c>`
    zip.file(
      'xl/worksheets/sheet1.xml',
      `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` +
        `<row r="1">${c('A1', 'Deal name')}${c('B1', 'Amount')}${c('C1', 'Company')}</row>` +
        `<row r="2">${c('A2', 'Other writer deal')}<c r="B2"><v>4200</v></c>${c('C2', 'CV Lain')}</row>` +
        `</sheetData></worksheet>`,
    )
    const other = new Uint8Array(await zip.generateAsync({ type: 'uint8array' }))
    const pv = await upload(owner, 'other.xlsx', other)
    expect(pv.status).toBe(200)
    expect(pv.data.columns.map((x: { suggestion: string }) => x.suggestion)).toEqual([
      'title',
      'value_estimate',
      'client',
    ])
    const r = await P.api(s, owner).post('/v1/leads/import', { token: pv.data.token, pipeline_id: flow.id })
    expect(r.data).toMatchObject({ created: 1 })
    expect((await P.api(s, owner).get(`/v1/leads/${r.data.rows[0].lead_id}`)).data).toMatchObject({
      value_estimate: 4200,
      client: { name: 'CV Lain' },
    })

    const csv = new TextEncoder().encode(
      '\uFEFFNama Prospek;Nilai;Kolom Lain\nCSV deal;"2.500.000";abaikan\n',
    )
    const cp = await upload(owner, 'deals.csv', csv, 'text/csv')
    expect(cp.data.file.format).toBe('csv')
    expect(cp.data.columns.map((x: { suggestion: string }) => x.suggestion)).toEqual([
      'title',
      'value_estimate',
      null,
    ])
    const bad = await P.api(s, owner).post('/v1/leads/import', {
      token: cp.data.token,
      mapping: { Nilai: 'salary' },
    })
    expect(bad.status).toBe(422)
    expect(bad.error.fields['mapping.Nilai']).toBeDefined()
    const ok = await P.api(s, owner).post('/v1/leads/import', {
      token: cp.data.token,
      pipeline_id: flow.id,
      mapping: { 'Kolom Lain': null },
    })
    expect(ok.data).toMatchObject({ created: 1, custom_fields_created: [] })
    expect((await P.api(s, owner).get(`/v1/leads/${ok.data.rows[0].lead_id}`)).data.value_estimate).toBe(
      2500000,
    )
  })

  it('imports a column headed like an inherited property (constructor, toString) as any other', async () => {
    const csv = new TextEncoder().encode('Nama Prospek,constructor,toString\nProto deal,abc,def\n')
    const pv = await upload(owner, 'proto.csv', csv, 'text/csv')
    expect(pv.status).toBe(200)
    const run = await P.api(s, owner).post('/v1/leads/import', { token: pv.data.token, pipeline_id: flow.id })
    expect(run.status).toBe(200)
    expect(run.data).toMatchObject({ created: 1 })
    expect([...run.data.custom_fields_created].sort()).toEqual(['constructor', 'tostring'])
    expect((await P.api(s, owner).get(`/v1/leads/${run.data.rows[0].lead_id}`)).data.custom).toMatchObject({
      constructor: 'abc',
      tostring: 'def',
    })
  })

  it('refuses rows past the monthly quota with a reason', async () => {
    const free = await F.workspace(s, { plan: 'free' })
    const boss = P.session(await F.signIn(s, free.ownerEmail))
    const p = await P.workflow(s, boss)
    // 98 of the Free plan's 100 leads this month, by an import.
    const first = new TextEncoder().encode(
      `title\n${Array.from({ length: 98 }, (_, i) => `Lead ${i}`).join('\n')}\n`,
    )
    const f = await P.api(s, boss).post('/v1/leads/import', {
      token: (await upload(boss, 'first.csv', first, 'text/csv')).data.token,
      pipeline_id: p.id,
    })
    expect(f.status, JSON.stringify(f.error)).toBe(200)
    expect(f.data).toMatchObject({ created: 98, refused: 0 })
    const csv = new TextEncoder().encode('title\nA\nB\nC\nD\n')
    const pv = await upload(boss, 'q.csv', csv, 'text/csv')
    const r = await P.api(s, boss).post('/v1/leads/import', { token: pv.data.token, pipeline_id: p.id })
    expect(r.status, JSON.stringify(r.error ?? pv.error)).toBe(200)
    expect(r.data).toMatchObject({ created: 2, refused: 2 })
    expect(r.data.rows.map((x: { action: string }) => x.action)).toEqual([
      'create',
      'create',
      'refuse',
      'refuse',
    ])
    expect(r.data.rows[2].problems[0]).toMatchObject({ code: 'import.quota' })
    expect(r.data.rows[2].problems[0].message).toContain('100')
    // The quota counts what was created, no more (the run reserves before its transaction and
    // gives back what it did not use).
    const billing = await P.api(s, boss).get('/v1/billing')
    expect(billing.data.usage.leads_per_month).toMatchObject({ used: 100, limit: 100 })
    // A re-run of a file whose rows all exist uses nothing.
    const again = await upload(boss, 'first.csv', first, 'text/csv')
    const rerun = await P.api(s, boss).post('/v1/leads/import', {
      token: again.data.token,
      pipeline_id: p.id,
    })
    expect(rerun.status, JSON.stringify(rerun.error)).toBe(200)
    expect(rerun.data).toMatchObject({ created: 0 })
    expect((await P.api(s, boss).get('/v1/billing')).data.usage.leads_per_month).toMatchObject({ used: 100 })
  })

  it('leaves the server healthy after the imports (the embedded database once hung on a run)', async () => {
    const res = await s.fetch('/healthz')
    expect(res.status).toBe(200)
    expect(((await res.json()) as { data: { database: string } }).data.database).toBe('ok')
  })

  it('refuses a CSV of 130,000 rows (1.2 MB, within the upload limit) with 422 too many rows', async () => {
    // Counted before anything spreads the rows as call arguments (Math.max(...rows) overflows
    // the stack at about 120,000): a clear 422, not a 500.
    const lines = ['title,value', ...Array.from({ length: 130_000 }, (_, i) => `Deal ${i},${i}`)]
    const r = await upload(owner, 'many.csv', new TextEncoder().encode(`${lines.join('\n')}\n`), 'text/csv')
    expect(r.status).toBe(422)
    expect(r.error).toMatchObject({ code: 'validation_error' })
    expect(r.error.fields.file).toMatch(/more than 10.?000 rows; split it into several files/)
  })

  it('answers clear 422s for malformed, protected and oversized files and bad tokens', async () => {
    const garbage = await upload(
      owner,
      'broken.xlsx',
      new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5]),
    )
    expect(garbage.status).toBe(422)
    expect(garbage.error.fields.file).toMatch(/cannot be read/)
    const cfb = new Uint8Array(2048)
    cfb.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])
    const locked = await upload(owner, 'locked.xlsx', cfb)
    expect(locked.status).toBe(422)
    expect(locked.error.fields.file).toMatch(/password/)
    const latin = await upload(
      owner,
      'latin.csv',
      new Uint8Array([0x74, 0x69, 0x74, 0x6c, 0x65, 0x0a, 0x43, 0x61, 0x66, 0xe9, 0x0a]),
      'text/csv',
    )
    expect(latin.status).toBe(422)
    expect(latin.error.fields.file).toMatch(/UTF-8/)
    const quotes = await upload(owner, 'q.csv', new TextEncoder().encode('title\n"open\n'), 'text/csv')
    expect(quotes.status).toBe(422)
    const empty = await upload(owner, 'e.csv', new Uint8Array(0), 'text/csv')
    expect(empty.status).toBe(422)
    const huge = new Uint8Array(50 * 1024 * 1024 + 1).fill(0x61)
    const big = await upload(owner, 'big.csv', huge, 'text/csv')
    expect([413, 422]).toContain(big.status)
    expect(big.status === 413 ? big.error.code : big.error.fields.file).toBeTruthy()
    expect((await P.api(s, owner).post('/v1/leads/import', { token: 'x.y' })).status).toBe(422)
    expect((await upload(writeKey, 'k.csv', new TextEncoder().encode('title\nA\n'), 'text/csv')).status).toBe(
      403,
    )
    // A token is the uploader's: another member cannot use it.
    const pv = await upload(owner, 'mine.csv', new TextEncoder().encode('title\nA\n'), 'text/csv')
    const other = await P.person(s, w, ['leads.view', 'leads.manage'])
    expect((await P.api(s, other.who).post('/v1/leads/import', { token: pv.data.token })).status).toBe(422)
  })
})
