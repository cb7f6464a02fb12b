import { afterAll, beforeAll, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { api, phone, type Who } from './support'

/**
 * Spec 2 §4.4 (docs/decisions.md "The contact"): one phone or one e-mail is one live contact, also
 * when the writes giving it arrive together.
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
