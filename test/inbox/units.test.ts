import { Effect, Either } from 'effect'
import { describe, expect, it } from 'vitest'
import { humanSize } from '../../actors/fields'
import { sanitize, toText } from '../../actors/inbox/emailHtml'
import { parseRange } from '../../http/files'
import { parseMultipart } from '../../http/multipart'
import { depthOf, heightOf, subtreeIds, treeOf } from '../../store/categories'
import { addBusinessMinutes, businessMs, type SlaPolicy, slaOf } from '../../store/sla'
import { render } from '../../store/templates'

/** The inbox's pure parts, with plain values. */

describe('e-mail HTML', () => {
  it.each([
    ['<b>bold</b> <i>it</i> <u>u</u>', '<b>bold</b> <i>it</i> <u>u</u>'],
    ['<script>alert(1)</script>ok', 'ok'],
    ['<SCRIPT>x</SCRIPT><style>p{}</style>ok', 'ok'],
    ['<p onclick="x()">p</p>', '<p>p</p>'],
    ['<a href="JaVaScRiPt:alert(1)">x</a>', '<a>x</a>'],
    ['<a href="jav&#x61;script:alert(1)">x</a>', '<a>x</a>'],
    ['<a href=" java\tscript:alert(1)">x</a>', '<a>x</a>'],
    [
      '<a href="mailto:a@b.co">m</a>',
      '<a href="mailto:a@b.co" target="_blank" rel="noopener noreferrer">m</a>',
    ],
    ['<img src=x onerror=alert(1)>text', 'text'],
    ['<b>unclosed <i>nested', '<b>unclosed <i>nested</i></b>'],
    ['</b>stray', 'stray'],
    ['a < b & c > d', 'a &lt; b &amp; c &gt; d'],
    ['<!-- hidden --><p>seen</p>', '<p>seen</p>'],
    ['<iframe src="x"><b>inside</b></iframe>after', 'after'],
    [
      '<a href="https://x.co/?a=1&b=2">q</a>',
      '<a href="https://x.co/?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">q</a>',
    ],
    ['<div><span style="color:red">s</span></div>', '<div><span>s</span></div>'],
  ])('sanitizes %s', (input, expected) => {
    expect(sanitize(input)).toBe(expected)
  })

  it('writes the plain text of the HTML', () => {
    expect(
      toText(sanitize('<p>Halo&nbsp;<b>Budi</b></p><ol><li>satu</li><li>dua</li></ol>Salam,<br>Sari')),
    ).toBe('Halo Budi\n\n- satu\n- dua\nSalam,\nSari')
    expect(toText('<a href="https://x.co">https://x.co</a>')).toBe('https://x.co')
  })
})

describe('SLA over business hours', () => {
  const zone = 'Asia/Jakarta'
  const weekdays = {
    enabled: true,
    days: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open: day <= 5, from: '09:00', to: '17:00' })),
  }
  const p: SlaPolicy = { targetMinutes: 30, warnRatio: 0.8, hours: weekdays, zone }
  // 2026-03-06 is a Friday; 16:50 in Jakarta = 09:50Z.
  const friday1650 = new Date('2026-03-06T09:50:00Z')

  it('counts only open minutes and carries the due time over the weekend', () => {
    const monday0920 = new Date('2026-03-09T02:20:00Z')
    expect(businessMs(friday1650, monday0920, p) / 60_000).toBe(30)
    expect(addBusinessMinutes(friday1650, 30, p)).toEqual(monday0920)
    expect(slaOf(friday1650, new Date('2026-03-08T05:00:00Z'), p)).toBeNull()
    expect(slaOf(friday1650, new Date('2026-03-09T02:15:00Z'), p)).toMatchObject({
      level: 'warn',
      minutes: 25,
    })
    expect(slaOf(friday1650, monday0920, p)).toEqual({ level: 'breach', minutes: 30, due_at: monday0920 })
  })

  it('runs around the clock without hours, and never comes due on a calendar with no open day', () => {
    const always: SlaPolicy = { ...p, hours: null }
    expect(businessMs(friday1650, new Date(friday1650.getTime() + 45 * 60_000), always)).toBe(45 * 60_000)
    const closed: SlaPolicy = { ...p, hours: { enabled: true, days: [] } }
    expect(addBusinessMinutes(friday1650, 30, closed)).toBeNull()
    expect(slaOf(null, friday1650, always)).toBeNull()
  })
})

describe('Range', () => {
  it.each([
    ['bytes=0-9', 100, { start: 0, end: 9 }],
    ['bytes=90-', 100, { start: 90, end: 99 }],
    ['bytes=-10', 100, { start: 90, end: 99 }],
    ['bytes=-1000', 100, { start: 0, end: 99 }],
    ['bytes=50-5000', 100, { start: 50, end: 99 }],
    ['bytes=100-', 100, 'unsatisfiable'],
    ['bytes=-0', 100, 'unsatisfiable'],
    ['bytes=0-0', 0, 'unsatisfiable'],
    ['bytes=9-3', 100, null],
    ['bytes=0-1,5-6', 100, null],
    ['items=0-1', 100, null],
    [undefined, 100, null],
  ])('%s of %i bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected)
  })
})

describe('category tree', () => {
  const row = (id: number, parent_id: number | null, name: string, position = 0) => ({
    id,
    workspace_id: 1,
    parent_id,
    name,
    color: '',
    position,
    created_at: new Date(0),
  })
  const rows = [row(1, null, 'B'), row(2, null, 'A'), row(3, 1, 'y', 1), row(4, 1, 'x', 1), row(5, 4, 'deep')]
  it('orders parents before children, by position then name', () => {
    expect(treeOf(rows).map((n) => [n.path_text, n.depth, n.children_count])).toEqual([
      ['A', 0, 0],
      ['B', 0, 2],
      ['B › x', 1, 1],
      ['B › x › deep', 2, 0],
      ['B › y', 1, 0],
    ])
  })
  it('knows subtrees, depths and heights', () => {
    expect(subtreeIds(rows, 1).sort()).toEqual([1, 3, 4, 5])
    expect(depthOf(rows, 5)).toBe(2)
    expect(depthOf(rows, null)).toBe(-1)
    expect(heightOf(rows, 1)).toBe(2)
    expect(heightOf(rows, 5)).toBe(0)
  })
})

describe('template variables', () => {
  it('fills known variables, keeps unknown ones, empties known ones without a value', () => {
    expect(
      render('Hi {{contact_name}}{{ agent_name }} {{x}}', { contact_name: 'Budi', agent_name: null }),
    ).toBe('Hi Budi {{x}}')
  })
})

describe('multipart', () => {
  const body = (parts: string[], boundary = 'b0') =>
    new TextEncoder().encode(parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('') + `--${boundary}--\r\n`)
  const limits = { maxBytes: 10_000, maxFiles: 2, maxFileBytes: 100 }
  const parse = (parts: string[]) =>
    Effect.runPromise(Effect.either(parseMultipart(body(parts), 'multipart/form-data; boundary=b0', limits)))

  it('gives text fields (repeated and [] names as arrays) and files', async () => {
    const r = await parse([
      'Content-Disposition: form-data; name="text"\r\n\r\nhalo',
      'Content-Disposition: form-data; name="tag"\r\n\r\na',
      'Content-Disposition: form-data; name="tag"\r\n\r\nb',
      'Content-Disposition: form-data; name="one[]"\r\n\r\nx',
      'Content-Disposition: form-data; name="files[]"; filename="a/../b.txt"\r\nContent-Type: text/plain\r\n\r\nhello',
    ])
    expect(Either.isRight(r)).toBe(true)
    const f = Either.getOrThrow(r)
    expect(f.fields).toEqual({ text: 'halo', tag: ['a', 'b'], one: ['x'] })
    expect(f.files).toHaveLength(1)
    expect(f.files[0]).toMatchObject({ field: 'files', filename: 'b.txt', mime: 'text/plain' })
    expect(new TextDecoder().decode(f.files[0]!.bytes)).toBe('hello')
  })

  it('names the field of a file over the limit, and too many files', async () => {
    const big = await parse([
      `Content-Disposition: form-data; name="file"; filename="x"\r\n\r\n${'z'.repeat(101)}`,
    ])
    expect(Either.isLeft(big) && big.left.fields).toEqual({
      file: { key: 'field.file_too_large', params: { size: '100 bytes' } },
    })
    const many = await parse(
      [1, 2, 3].map((i) => `Content-Disposition: form-data; name="f${i}"; filename="${i}"\r\n\r\n${i}`),
    )
    expect(Either.isLeft(many) && many.left.fields).toEqual({
      files: { key: 'field.too_many_files', params: { n: 2 } },
    })
  })

  it('writes sizes as people say them', () => {
    expect([humanSize(16 * 1024 * 1024), humanSize(512 * 1024), humanSize(1000)]).toEqual([
      '16 MB',
      '512 KB',
      '1000 bytes',
    ])
  })
})
