import { afterAll, beforeAll, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { api, phone, type Who } from './support'

/**
 * Spec 2 §4.4 (docs/decisions.md "The contact"): one phone or one e-mail is one live contact, also
 * when the writes giving it arrive together; and a list cursor that is not ours is 422, not 500.
 */
let s: TestServer
let w: F.Seeded
let owner: Who
beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = (await F.signIn(s, w.ownerEmail)).headers()
})
afterAll(() => s?.stop())

const holders = async (q: string) =>
  (await api(s, owner).get(`/v1/contacts?q=${encodeURIComponent(q)}`)).meta.total

it('concurrent creates and changes give one phone or e-mail to one contact', async () => {
  const o = api(s, owner)
  const p = phone()
  const made = await Promise.all(
    Array.from({ length: 8 }, (_, i) => o.post('/v1/contacts', { name: `Sama ${i}`, phone: p })),
  )
  expect(made.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422, 422, 422, 422])
  expect(await holders(p)).toBe(1)

  const e = `sama-${Date.now()}@example.com`
  const byMail = await Promise.all(
    Array.from({ length: 8 }, (_, i) => o.post('/v1/contacts', { name: `Surel ${i}`, email: e })),
  )
  expect(byMail.filter((r) => r.status === 201)).toHaveLength(1)
  expect(await holders(e)).toBe(1)

  // Two existing contacts changed to one new phone at once: one of them gets it.
  const a = (await o.post('/v1/contacts', { name: 'Ani', phone: phone() })).data.id
  const b = (await o.post('/v1/contacts', { name: 'Budi', phone: phone() })).data.id
  const q = phone()
  const changed = await Promise.all([a, b].map((id) => o.patch(`/v1/contacts/${id}`, { phone: q })))
  expect(changed.map((r) => r.status).sort()).toEqual([200, 422])
  expect(await holders(q)).toBe(1)
})

it('answers 422 for a cursor whose value is not one of the list', async () => {
  const o = api(s, owner)
  await o.post('/v1/contacts', { name: 'Citra', phone: phone() })
  const cur = (x: unknown) => Buffer.from(JSON.stringify(x)).toString('base64url')
  for (const [sort, v] of [
    ['recent', 'garbage'],
    ['created', '2026-13-01 00:00:00+00'],
    ['created', '2026-02-30 00:00:00+00'],
    ['name', 'a\u0000b'],
  ] as const) {
    const r = await o.get(`/v1/contacts?sort=${sort}&cursor=${cur([sort, v, 1])}`)
    expect(r.status, `${sort} ${v}: ${JSON.stringify(r.error)}`).toBe(422)
    expect(r.error.fields.cursor).toBeDefined()
  }
  // The list's own cursors still work, for every order.
  for (const sort of ['recent', 'created', 'name']) {
    const first = await o.get(`/v1/contacts?sort=${sort}&per_page=1`)
    expect(first.status).toBe(200)
    const next = await o.get(`/v1/contacts?sort=${sort}&per_page=1&cursor=${first.meta.next_cursor}`)
    expect(next.status, JSON.stringify(next.error)).toBe(200)
    expect(next.data[0].id).not.toBe(first.data[0].id)
  }
})

it('creates one label of a name sent twice at once, and keeps two changes to a label made at once', async () => {
  const o = api(s, owner)
  const made = await Promise.all(Array.from({ length: 6 }, () => o.post('/v1/labels', { name: 'Kembar' })))
  expect(made.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422, 422])
  expect(made.find((r) => r.status === 422)!.error.fields.name).toBeDefined()

  const other = (await o.post('/v1/labels', { name: 'Lain' })).data.id
  const renamed = await Promise.all(
    Array.from({ length: 4 }, (_, i) =>
      o.patch(`/v1/labels/${other}`, { name: `Baru ${i % 2 ? 'x' : 'X'}` }),
    ),
  )
  expect(renamed.map((r) => r.status)).not.toContain(500)

  for (let round = 0; round < 8; round++) {
    const id = (await o.post('/v1/labels', { name: `Warna ${round}` })).data.id
    const [named, coloured] = await Promise.all([
      o.patch(`/v1/labels/${id}`, { name: `Dinamai ${round}` }),
      o.patch(`/v1/labels/${id}`, { color: '#3b82f6' }),
    ])
    expect([named.status, coloured.status]).toEqual([200, 200])
    const label = (await o.get('/v1/labels')).data.find((l: { id: number }) => l.id === id)
    expect([label.name, label.color], `round ${round}`).toEqual([`Dinamai ${round}`, '#3b82f6'])
  }
})

it('keeps two changes to a custom field made at once', async () => {
  const o = api(s, owner)
  for (let round = 0; round < 8; round++) {
    const made = await o.post('/v1/custom-fields', {
      entity: 'contact',
      label: `Tingkat ${round}`,
      type: 'select',
      options: ['Emas', 'Perak'],
    })
    expect(made.status, JSON.stringify(made.error)).toBe(201)
    const id = made.data.id
    const [labelled, optioned] = await Promise.all([
      o.patch(`/v1/custom-fields/${id}`, { label: `Kelas ${round}` }),
      o.patch(`/v1/custom-fields/${id}`, { options: ['Emas', 'Perak', 'Perunggu'] }),
    ])
    expect([labelled.status, optioned.status]).toEqual([200, 200])
    const field = (await o.get('/v1/custom-fields?entity=contact')).data.find(
      (f: { id: number }) => f.id === id,
    )
    expect([field.label, field.options], `round ${round}`).toEqual([
      `Kelas ${round}`,
      ['Emas', 'Perak', 'Perunggu'],
    ])
    expect((await o.del(`/v1/custom-fields/${id}`)).status).toBe(200)
  }
})
