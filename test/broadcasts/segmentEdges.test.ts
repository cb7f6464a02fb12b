import { afterAll, beforeAll, expect, it } from 'vitest'
import { api, phone, type Who } from '../contacts/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * Spec 2 §4.8 segments at their edges: date rules at the end of the `YYYY-MM-DD` range (the day
 * after 9999-12-31 has no such form, which made the preview, saving and broadcasts fail with 500),
 * and two changes to one segment at once (each rewrote the whole row from what it had read).
 */
let s: TestServer
let owner: Who
beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  const w = await F.workspace(s, { plan: 'pro' })
  owner = (await F.signIn(s, w.ownerEmail)).headers()
  const o = api(s, owner)
  expect(
    (
      await o.post('/v1/custom-fields', {
        entity: 'contact',
        label: 'Birthday',
        type: 'date',
        key: 'birthday',
      })
    ).status,
  ).toBe(201)
  expect(
    (await o.post('/v1/contacts', { name: 'Ani', phone: phone(), custom: { birthday: '1990-05-01' } }))
      .status,
  ).toBe(201)
})
afterAll(() => s?.stop())

const preview = (rule: Record<string, unknown>) =>
  api(s, owner).post('/v1/segments/preview', { match: 'all', rules: [rule] })

it('takes 9999-12-31 as the end of a range and refuses a date after it', async () => {
  for (const field of ['created_at', 'cf:birthday']) {
    const between = await preview({ field, op: 'between', value: '1980-01-01', value2: '9999-12-31' })
    expect(between.status, JSON.stringify(between.error)).toBe(200)
    expect(between.data.count).toBe(1)
    const before = await preview({ field, op: 'before', value: '9999-12-31' })
    expect(before.status).toBe(200)
    expect(before.data.count).toBe(1)
    const after = await preview({ field, op: 'after', value: '9999-12-31' })
    expect(after.status, JSON.stringify(after.error)).toBe(422)
    expect(after.error.fields['rules.0.value']).toBeDefined()
  }
  const saved = await api(s, owner).post('/v1/segments', {
    name: 'Sampai akhir',
    match: 'all',
    rules: [{ field: 'created_at', op: 'between', value: '2020-01-01', value2: '9999-12-31' }],
  })
  expect(saved.status, JSON.stringify(saved.error)).toBe(201)
  expect(saved.data.last_count).toBe(1)
})

it('keeps both of two changes to one segment made at once', async () => {
  const o = api(s, owner)
  for (let round = 0; round < 8; round++) {
    const made = await o.post('/v1/segments', {
      name: `Serentak ${round}`,
      match: 'all',
      rules: [{ field: 'name', op: 'contains', value: 'a' }],
    })
    expect(made.status, JSON.stringify(made.error)).toBe(201)
    const id = made.data.id
    const [named, ruled] = await Promise.all([
      o.patch(`/v1/segments/${id}`, { name: `Dinamai ${round}` }),
      o.patch(`/v1/segments/${id}`, { rules: [{ field: 'name', op: 'contains', value: 'ni' }] }),
    ])
    expect([named.status, ruled.status]).toEqual([200, 200])
    const after = await o.get(`/v1/segments/${id}`)
    expect(after.data.name, `round ${round}`).toBe(`Dinamai ${round}`)
    expect(after.data.rules, `round ${round}`).toEqual([{ field: 'name', op: 'contains', value: 'ni' }])
  }
})
