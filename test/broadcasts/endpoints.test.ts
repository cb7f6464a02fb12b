import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, type Who } from '../contacts/support'
import * as I from '../inbox/support'
import { png } from '../livechat/support'
import { linkedNumber } from '../msgapp/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { advance, ENV, get, warmedUp } from './support'

/**
 * Every endpoint of spec 2 §4.8's broadcasts, through sessions and keys: drafts, options,
 * estimate, preview, test sends, media, the state actions, recipients, exports, dashboard;
 * Free 402, read keys 403 on writes, keys 403 on app-only routes, 404 across workspaces.
 */
let s: TestServer
let w: F.Seeded
let session: F.Session
let owner: Who
let readKey: Who
let writeKey: Who
let number: { ch: { id: number }; sock: import('../../connectors/msgapp/TransportTest').FakeSocket }
let label = 0
let segment = 0
const contacts: number[] = []

beforeAll(async () => {
  s = await startTestServer({ ...ENV, REDIS_URL: '' })
  w = await F.workspace(s, { plan: 'pro' })
  session = await F.signIn(s, w.ownerEmail)
  owner = session.headers()
  readKey = F.bearer(await F.apiKey(s, w, 'read'))
  writeKey = F.bearer(await F.apiKey(s, w, 'write'))
  number = await linkedNumber(s, session, '6281277700001')
  await warmedUp(s, number.ch.id)
  const o = api(s, owner)
  label = (await o.post('/v1/labels', { name: 'Pelanggan' })).data.id
  await o.post('/v1/custom-fields', { entity: 'contact', label: 'Kota asal', type: 'text', key: 'kota' })
  for (const [name, phone] of [
    ['Ani Lestari', '+6281277711101'],
    ['Budi Santoso', '+6281277711102'],
    ['Citra', '+6281277711103'],
  ] as const) {
    const c = await o.post('/v1/contacts', { name, phone, label_ids: [label], custom: { kota: 'Bandung' } })
    contacts.push(c.data.id)
  }
  segment = (
    await o.post('/v1/segments', { name: 'Semua', rules: [{ field: 'label', op: 'has', value: label }] })
  ).data.id
}, 60_000)
afterAll(() => s?.stop())

const draft = {
  name: 'Promo Desember',
  audience: { segment_ids: [] as number[], contact_ids: [] as number[] },
  messages: [{ text: 'Halo {{first_name}} dari {{cf:kota}}!', footer: 'Balas STOP untuk berhenti' }],
  settings: { pace_per_minute: 20, random_delay_seconds: 0, quiet_hours: null },
}

describe('broadcast drafts', () => {
  it('creates, reads, lists, changes and deletes; keys read, only sessions write', async () => {
    const o = api(s, owner)
    const c = await o.post('/v1/broadcasts', {
      ...draft,
      channel_id: number.ch.id,
      audience: { segment_ids: [segment] },
    })
    expect(c.status, JSON.stringify(c.error)).toBe(201)
    expect(c.data).toMatchObject({
      name: 'Promo Desember',
      status: 'draft',
      channel_id: number.ch.id,
      audience: { segment_ids: [segment], label_ids: [], contact_ids: [] },
      messages: [{ text: 'Halo {{first_name}} dari {{cf:kota}}!', footer: 'Balas STOP untuk berhenti' }],
      settings: { pace_per_minute: 20, random_delay_seconds: 0, quiet_hours: null, daily_cap: 0 },
      attachment: null,
      counts: { total: 0, sent: 0 },
      risk_ack: false,
      wait: null,
      can: {
        edit: true,
        delete: true,
        schedule: true,
        pause: false,
        resume: false,
        cancel: false,
        duplicate: true,
      },
    })
    const id = c.data.id
    expect((await get(s, readKey, `/v1/broadcasts/${id}`)).data.id).toBe(id)
    const l = await get(s, readKey, '/v1/broadcasts?status=draft&q=desember')
    expect(l.data.map((b: { id: number }) => b.id)).toContain(id)
    expect(l.meta.stats).toMatchObject({ draft: expect.any(Number), running: 0 })
    expect((await get(s, readKey, '/v1/broadcasts?status=running')).data).toEqual([])
    const p = await o.patch(`/v1/broadcasts/${id}`, { name: 'Promo Natal', settings: { daily_cap: 100 } })
    expect(p.status).toBe(200)
    expect(p.data.settings).toMatchObject({ daily_cap: 100, pace_per_minute: 20 })
    // Input errors: unknown variable, another number type, an unknown segment, pace beyond 30.
    const bad = await o.patch(`/v1/broadcasts/${id}`, {
      messages: [{ text: 'Halo {{nickname}}' }],
      audience: { segment_ids: [999999] },
    })
    expect(bad.status).toBe(422)
    expect(Object.keys(bad.error.fields).sort()).toEqual(['audience.segment_ids', 'messages.0.text'])
    expect((await o.patch(`/v1/broadcasts/${id}`, { settings: { pace_per_minute: 31 } })).status).toBe(422)
    const api1 = await I.channel(s, w, 'api')
    expect((await o.patch(`/v1/broadcasts/${id}`, { channel_id: api1.id })).error.fields).toHaveProperty(
      'channel_id',
    )
    // Keys: reads yes; writes need a session (A), a read key is refused any change.
    expect((await api(s, writeKey).post('/v1/broadcasts', draft)).status).toBe(403)
    expect((await api(s, readKey).post(`/v1/broadcasts/${id}/estimate`)).status).toBe(403)
    expect((await api(s, writeKey).post(`/v1/broadcasts/${id}/estimate`)).status).toBe(200)
    expect((await api(s, writeKey).del(`/v1/broadcasts/${id}`)).status).toBe(403)
    const dup = await o.post(`/v1/broadcasts/${id}/duplicate`)
    expect(dup.status).toBe(201)
    expect(dup.data).toMatchObject({ name: 'Promo Natal (copy)', status: 'draft' })
    expect((await o.del(`/v1/broadcasts/${dup.data.id}`)).status).toBe(200)
    expect((await o.get(`/v1/broadcasts/${dup.data.id}`)).status).toBe(404)
  })

  it('refuses broadcasts on Free (402) and hides other workspaces’ (404)', async () => {
    const free = await F.workspace(s, { plan: 'free' })
    const fs = await F.signIn(s, free.ownerEmail)
    const r = await api(s, fs.headers()).post('/v1/broadcasts', { name: 'x' })
    expect(r.status).toBe(402)
    expect(r.error.code).toBe('plan_required')
    expect((await api(s, fs.headers()).get('/v1/broadcasts')).status).toBe(200)
    const mine = await api(s, owner).post('/v1/broadcasts', { name: 'Mine' })
    expect((await api(s, fs.headers()).get(`/v1/broadcasts/${mine.data.id}`)).status).toBe(404)
  })

  it('refuses another workspace’s contacts, segments and labels in the audience: 422 on the field', async () => {
    const b = await F.workspace(s, { plan: 'pro' })
    const bo = api(s, (await F.signIn(s, b.ownerEmail)).headers())
    const theirContact = (await bo.post('/v1/contacts', { name: 'Theirs', phone: '+6281277799901' })).data.id
    const theirLabel = (await bo.post('/v1/labels', { name: 'Theirs' })).data.id
    const theirSegment = (
      await bo.post('/v1/segments', {
        name: 'Theirs',
        rules: [{ field: 'label', op: 'has', value: theirLabel }],
      })
    ).data.id
    const o = api(s, owner)
    for (const [field, audience] of [
      ['audience.contact_ids', { contact_ids: [contacts[0]!, theirContact] }],
      ['audience.segment_ids', { segment_ids: [theirSegment] }],
      ['audience.label_ids', { label_ids: [label, theirLabel] }],
    ] as const) {
      const created = await o.post('/v1/broadcasts', { ...draft, audience })
      expect(created.status, field).toBe(422)
      expect(created.error.code).toBe('validation_error')
      expect(Object.keys(created.error.fields)).toEqual([field])
    }
    const mine = await o.post('/v1/broadcasts', { ...draft, audience: { contact_ids: [contacts[0]!] } })
    expect(mine.status).toBe(201)
    const changed = await o.patch(`/v1/broadcasts/${mine.data.id}`, {
      audience: { contact_ids: [theirContact] },
    })
    expect(changed.status).toBe(422)
    expect(Object.keys(changed.error.fields)).toEqual(['audience.contact_ids'])
    expect((await get(s, owner, `/v1/broadcasts/${mine.data.id}`)).data.audience.contact_ids).toEqual([
      contacts[0],
    ])
    expect((await o.del(`/v1/broadcasts/${mine.data.id}`)).status).toBe(200)
  })

  it('answers options: numbers with health, segments, defaults, limits, quota, variables', async () => {
    const r = await get(s, readKey, '/v1/broadcasts/options')
    expect(r.data.numbers.map((n: { id: number }) => n.id)).toContain(number.ch.id)
    expect(r.data.segments.map((x: { id: number }) => x.id)).toContain(segment)
    expect(r.data.defaults).toMatchObject({
      pace_per_minute: 10,
      quiet_hours: { from: '21:00', to: '08:00' },
    })
    expect(r.data.limits).toMatchObject({
      max_pace_per_minute: 30,
      test_sends_per_hour: 10,
      preview_contacts: 5,
    })
    expect(r.data.quota).toMatchObject({ limit: 10_000 })
    expect(r.data.variables.map((v: { name: string }) => v.name)).toEqual(
      expect.arrayContaining(['name', 'first_name', 'cf:kota']),
    )
  })

  it('sets, serves and removes the attachment', async () => {
    const o = api(s, owner)
    const b = await o.post('/v1/broadcasts', { name: 'With media' })
    const image = new Uint8Array(png(4, 4))
    const up = await s.fetch(`/v1/broadcasts/${b.data.id}/media`, {
      method: 'POST',
      headers: owner,
      body: I.form({}, [{ field: 'file', name: 'promo.png', type: 'image/png', bytes: image }]),
    })
    expect(up.status).toBe(200)
    const att = ((await up.json()) as { data: { attachment: { name: string; url: string } } }).data.attachment
    expect(att).toMatchObject({ name: 'promo.png', url: `/v1/broadcasts/${b.data.id}/media` })
    const got = await s.fetch(att.url, { headers: readKey })
    expect(got.status).toBe(200)
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(image)
    expect((await o.del(`/v1/broadcasts/${b.data.id}/media`)).data.attachment).toBeNull()
    expect((await s.fetch(att.url, { headers: readKey })).status).toBe(404)
  })

  it('takes only an image, a video or a document the messaging app takes, by the file’s bytes', async () => {
    const o = api(s, owner)
    const id = (await o.post('/v1/broadcasts', { name: 'Typed media' })).data.id
    const upload = (name: string, type: string, bytes: Uint8Array) =>
      s.fetch(`/v1/broadcasts/${id}/media`, {
        method: 'POST',
        headers: owner,
        body: I.form({}, [{ field: 'file', name, type, bytes }]),
      })
    const exe = new Uint8Array(Buffer.concat([Buffer.from('MZ\x90\x00', 'latin1'), Buffer.alloc(200)]))
    const opus = new Uint8Array(
      Buffer.concat([
        Buffer.from('OggS', 'latin1'),
        Buffer.alloc(24),
        Buffer.from('OpusHead'),
        Buffer.alloc(40),
      ]),
    )
    for (const [name, type, bytes] of [
      ['tool.exe', 'application/x-msdownload', exe],
      // Renamed and claimed as something allowed: the bytes still say a program.
      ['catalog.pdf', 'application/pdf', exe],
      ['photo.jpg', 'image/jpeg', exe],
      ['page.html', 'text/html', new TextEncoder().encode('<script>alert(1)</script>')],
      ['notes.txt', 'text/plain', new Uint8Array([0x68, 0x69, 0x00, 0x01])],
      // A voice note is a file the app takes, but not a broadcast's (spec 2 §4.8).
      ['voice.ogg', 'audio/ogg', opus],
    ] as const) {
      const r = await upload(name, type, bytes)
      const answer = (await r.json()) as { error: { code: string; fields: Record<string, string> } }
      expect(r.status, name).toBe(422)
      expect(answer.error.code).toBe('validation_error')
      expect(Object.keys(answer.error.fields)).toEqual(['file'])
    }
    expect((await get(s, owner, `/v1/broadcasts/${id}`)).data.attachment).toBeNull()
    const pdf = new TextEncoder().encode('%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n')
    const mp4 = new Uint8Array(
      Buffer.concat([Buffer.from('\x00\x00\x00\x18ftypmp42', 'latin1'), Buffer.alloc(64)]),
    )
    for (const [name, type, bytes, mime] of [
      ['catalog.pdf', 'application/pdf', pdf, 'application/pdf'],
      ['clip.mp4', 'video/mp4', mp4, 'video/mp4'],
      // The type is what the bytes are, not what was claimed.
      ['promo', 'application/octet-stream', new Uint8Array(png(2, 2)), 'image/png'],
      ['prices.csv', 'text/csv', new TextEncoder().encode('item,price\nkopi,15000\n'), 'text/csv'],
    ] as const) {
      const r = await upload(name, type, bytes)
      expect(r.status, name).toBe(200)
      const att = ((await r.json()) as { data: { attachment: { mime: string; url: string } } }).data
        .attachment
      expect(att.mime, name).toBe(mime)
      expect((await s.fetch(att.url, { headers: readKey })).headers.get('content-type')).toContain(mime)
    }
  })
})

describe('before sending', () => {
  it('estimates, previews for up to 5 contacts and sends a test without quota', async () => {
    const o = api(s, owner)
    const b = (
      await o.post('/v1/broadcasts', { ...draft, channel_id: number.ch.id, audience: { label_ids: [label] } })
    ).data
    const e = await o.post(`/v1/broadcasts/${b.id}/estimate`)
    expect(e.status).toBe(200)
    expect(e.data).toMatchObject({ audience: 3, recipients: 3, quota: { limit: 10_000, enough: true } })
    expect(e.data.risk.level).toMatch(/low|medium|high/)
    expect(e.data.risk.reasons.map((r: { code: string }) => r.code)).toContain('unsaved_contacts')
    expect(Date.parse(e.data.finish_at)).toBeGreaterThan(Date.parse(e.data.starts_at))
    const p = await o.post(`/v1/broadcasts/${b.id}/preview`, { variant: 0 })
    expect(p.status).toBe(200)
    expect(p.data.map((x: { text: string }) => x.text)).toEqual([
      'Halo Ani dari Bandung!\n\nBalas STOP untuk berhenti',
      'Halo Budi dari Bandung!\n\nBalas STOP untuk berhenti',
      'Halo Citra dari Bandung!\n\nBalas STOP untuk berhenti',
    ])
    // A text being written replaces the variant's; the footer stays unless one is sent.
    const p2 = await o.post(`/v1/broadcasts/${b.id}/preview`, { text: 'Hai {{name}}' })
    expect(p2.data[0].text).toBe('Hai Ani Lestari\n\nBalas STOP untuk berhenti')
    const p3 = await o.post(`/v1/broadcasts/${b.id}/preview`, { text: 'Hai {{name}}', footer: '' })
    expect(p3.data[0].text).toBe('Hai Ani Lestari')
    const before = number.sock.sent.length
    const t = await o.post(`/v1/broadcasts/${b.id}/test`, { phone: '0812-7770-9999', variant: 0 })
    expect(t.status, JSON.stringify(t.error)).toBe(200)
    expect(t.data.phone).toBe('+6281277709999')
    expect(number.sock.sent.length).toBe(before + 1)
    expect(number.sock.sent.at(-1)!.jid).toBe('6281277709999@s.whatsapp.net')
    expect(t.meta.tests).toMatchObject({ used: 1, limit: 10 })
    expect((await get(s, owner, '/v1/broadcasts/options')).data.quota.used).toBe(0)
    // The hourly cap of test sends.
    for (let i = 1; i < 10; i++) await o.post(`/v1/broadcasts/${b.id}/test`, { phone: '081277709999' })
    const over = await o.post(`/v1/broadcasts/${b.id}/test`, { phone: '081277709999' })
    expect(over.status).toBe(429)
    expect(over.error.code).toBe('rate_limited')
    await advance(s, 3_600_000)
    expect((await o.post(`/v1/broadcasts/${b.id}/test`, { phone: '081277709999' })).status).toBe(200)
    await advance(s, -3_600_000)
  })
  it("fills a custom field's variable with nothing for a contact without a value, whatever its key", async () => {
    // A field labelled "Constructor" gets the key `constructor`, a name every object inherits:
    // the message read it as a function and sent "function Object() { [native code] }".
    const o = api(s, owner)
    const f = await o.post('/v1/custom-fields', { entity: 'contact', label: 'Constructor', type: 'text' })
    expect(f.data.key).toBe('constructor')
    const b = (
      await o.post('/v1/broadcasts', { ...draft, channel_id: number.ch.id, audience: { label_ids: [label] } })
    ).data
    const p = await o.post(`/v1/broadcasts/${b.id}/preview`, { text: 'Hai {{cf:constructor}}.', footer: '' })
    expect(p.status).toBe(200)
    expect(p.data.map((x: { text: string }) => x.text)).toEqual(['Hai .', 'Hai .', 'Hai .'])
    await o.del(`/v1/broadcasts/${b.id}`)
    await o.del(`/v1/custom-fields/${f.data.id}`)
  })
})

describe('states', () => {
  it('schedule needs risk_ack and a complete draft; unschedule, pause, resume, cancel; retry needs failures', async () => {
    const o = api(s, owner)
    const b = (
      await o.post('/v1/broadcasts', {
        ...draft,
        channel_id: number.ch.id,
        audience: { contact_ids: contacts },
      })
    ).data
    const empty = (await o.post('/v1/broadcasts', { name: 'Empty' })).data
    const noAck = await o.post(`/v1/broadcasts/${b.id}/schedule`, { risk_ack: false })
    expect(noAck.status).toBe(422)
    expect(noAck.error.fields).toHaveProperty('risk_ack')
    const incomplete = await o.post(`/v1/broadcasts/${empty.id}/schedule`, { risk_ack: true })
    expect(Object.keys(incomplete.error.fields).sort()).toEqual(['audience', 'channel_id', 'messages'])
    // Scheduled a day ahead: the list is locked, then unlocked again.
    const later = new Date(Date.now() + 86_400_000).toISOString()
    expect((await o.patch(`/v1/broadcasts/${b.id}`, { settings: { send_at: later } })).status).toBe(200)
    const sch = await o.post(`/v1/broadcasts/${b.id}/schedule`, { risk_ack: true })
    expect(sch.status, JSON.stringify(sch.error)).toBe(200)
    expect(sch.data).toMatchObject({ status: 'scheduled', risk_ack: true, counts: { total: 3, queued: 3 } })
    expect(sch.data.can).toMatchObject({
      edit: false,
      unschedule: true,
      pause: true,
      cancel: true,
      delete: false,
    })
    expect((await o.patch(`/v1/broadcasts/${b.id}`, { name: 'x' })).status).toBe(409)
    expect((await o.del(`/v1/broadcasts/${b.id}`)).status).toBe(409)
    expect((await o.del(`/v1/segments/${segment}`)).status).toBe(200)
    const uns = await o.post(`/v1/broadcasts/${b.id}/unschedule`)
    expect(uns.data).toMatchObject({ status: 'draft', risk_ack: false, counts: { total: 0 } })
    expect((await o.post(`/v1/broadcasts/${b.id}/unschedule`)).status).toBe(409)
    // Scheduled again, paused, resumed (still ahead: scheduled), cancelled.
    await o.post(`/v1/broadcasts/${b.id}/schedule`, { risk_ack: true })
    expect((await o.post(`/v1/broadcasts/${b.id}/pause`)).data.status).toBe('paused')
    expect((await o.post(`/v1/broadcasts/${b.id}/pause`)).status).toBe(409)
    expect((await o.post(`/v1/broadcasts/${b.id}/resume`)).data.status).toBe('scheduled')
    expect((await o.post(`/v1/broadcasts/${b.id}/retry`)).status).toBe(409)
    const cancelled = await o.post(`/v1/broadcasts/${b.id}/cancel`)
    expect(cancelled.data).toMatchObject({
      status: 'cancelled',
      counts: { queued: 0, skipped: 3 },
      skip_reasons: { cancelled: 3 },
    })
    expect((await o.post(`/v1/broadcasts/${b.id}/cancel`)).status).toBe(409)
    expect((await o.del(`/v1/broadcasts/${b.id}`)).status).toBe(200)
  })

  it('refuses to delete a segment a live broadcast uses', async () => {
    const o = api(s, owner)
    const seg = (
      await o.post('/v1/segments', { name: 'Live', rules: [{ field: 'label', op: 'has', value: label }] })
    ).data
    const b = (
      await o.post('/v1/broadcasts', {
        ...draft,
        channel_id: number.ch.id,
        audience: { segment_ids: [seg.id] },
        settings: { send_at: new Date(Date.now() + 86_400_000).toISOString() },
      })
    ).data
    expect((await o.post(`/v1/broadcasts/${b.id}/schedule`, { risk_ack: true })).status).toBe(200)
    expect(
      (await get(s, owner, '/v1/segments')).data.find((x: { id: number }) => x.id === seg.id)
        .broadcasts_count,
    ).toBe(1)
    const del = await o.del(`/v1/segments/${seg.id}`)
    expect(del.status).toBe(409)
    await o.post(`/v1/broadcasts/${b.id}/cancel`)
    expect((await o.del(`/v1/segments/${seg.id}`)).status).toBe(200)
  })
})

describe('after sending', () => {
  it('lists recipients, exports xlsx and csv, and shows the dashboard', async () => {
    const o = api(s, owner)
    const b = (
      await o.post('/v1/broadcasts', {
        ...draft,
        settings: { ...draft.settings, pace_per_minute: 30 },
        channel_id: number.ch.id,
        audience: { contact_ids: contacts },
      })
    ).data
    expect((await o.post(`/v1/broadcasts/${b.id}/schedule`, { risk_ack: true })).status).toBe(200)
    for (let i = 0; i < 200; i++) {
      const d = (await get(s, owner, `/v1/broadcasts/${b.id}`)).data
      if (d.status === 'completed') break
      await advance(s, 2500)
      await new Promise((r) => setTimeout(r, 30))
    }
    const d = (await get(s, readKey, `/v1/broadcasts/${b.id}`)).data
    expect(d).toMatchObject({ status: 'completed', counts: { total: 3, sent: 3 } })
    const r = await get(s, readKey, `/v1/broadcasts/${b.id}/recipients?q=budi`)
    expect(r.data).toHaveLength(1)
    expect(r.data[0]).toMatchObject({
      name: 'Budi Santoso',
      status: 'sent',
      message: 'Halo Budi dari Bandung!\n\nBalas STOP untuk berhenti',
    })
    const csv = await s.fetch(`/v1/broadcasts/${b.id}/export?format=csv`, { headers: readKey })
    expect(csv.status).toBe(200)
    const lines = (await csv.text())
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n')
    expect(lines[0]).toBe('position,name,phone,status,reason,variant,message,sent_at,replied_at')
    expect(lines).toHaveLength(1 + 3 * 3)
    const xlsx = await s.fetch(`/v1/broadcasts/${b.id}/export`, { headers: readKey })
    expect(xlsx.headers.get('content-type')).toContain('spreadsheetml')
    const book = new ExcelJS.Workbook()
    await book.xlsx.load(await xlsx.arrayBuffer())
    const sheet = book.getWorksheet('Recipients')!
    expect(sheet.rowCount).toBe(4)
    expect(sheet.getRow(2).getCell(2).value).toBe('Ani Lestari')
    const dash = await get(s, readKey, `/v1/broadcasts/dashboard?channel_id=${number.ch.id}`)
    expect(dash.data.funnel).toMatchObject({ recipients: 3, sent: 3 })
    expect(dash.data.daily).toHaveLength(30)
    expect(dash.data.hourly).toHaveLength(24)
    expect(dash.data.latest.map((x: { id: number }) => x.id)).toContain(b.id)
    expect(dash.data.numbers[0]).toMatchObject({
      channel_id: number.ch.id,
      broadcast_sent_today: expect.any(Number),
    })
    expect((await api(s, readKey).get('/v1/broadcasts/dashboard?from=2026-01-01&to=2026-04-15')).status).toBe(
      422,
    )
    expect((await api(s, readKey).get('/v1/broadcasts/dashboard?from=2026-02-01&to=2026-01-01')).status).toBe(
      422,
    )
    // The last day there is: the day after it is in year 10000, which has no `YYYY-MM-DD` (was a 500).
    const end = await api(s, readKey).get('/v1/broadcasts/dashboard?from=9999-12-30&to=9999-12-31')
    expect(end.status, JSON.stringify(end.error)).toBe(200)
    expect(end.data.daily.map((d: { date: string }) => d.date)).toEqual(['9999-12-30', '9999-12-31'])
  })
})
