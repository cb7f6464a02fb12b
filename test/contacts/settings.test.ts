import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { api, type Who } from './support'

/** Spec 2 §4.4 labels and custom fields, with `contacts.settings` events. */
let s: TestServer
let w: F.Seeded
let owner: Who
let keyWho: Who
let ownerSession: F.Session
beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  w = await F.workspace(s, { plan: 'pro' })
  ownerSession = await F.signIn(s, w.ownerEmail)
  owner = ownerSession.headers()
  keyWho = F.bearer(await F.apiKey(s, w))
})
afterAll(() => s?.stop())

describe('labels', () => {
  it('creates from the palette, orders, counts contacts, renames, deletes from every contact', async () => {
    const o = api(s, owner)
    const { c: ws } = await I.socketFor(s, ownerSession, `ws:${w.workspaceId}`)
    const a = await o.post('/v1/labels', { name: 'Satu', color: '#3B82F6' })
    expect(a.status).toBe(201)
    expect(a.data).toMatchObject({ name: 'Satu', color: '#3b82f6', position: 0 })
    const ev = await ws.next((f) => f.event === 'contacts.settings')
    expect(ev.data).toMatchObject({ kind: 'labels', label_id: a.data.id })
    ws.close()
    const b = (await o.post('/v1/labels', { name: 'Dua' })).data
    const c = (await o.post('/v1/labels', { name: 'Tiga' })).data
    expect((await o.post('/v1/labels', { name: 'satu' })).error.fields).toHaveProperty('name')
    expect((await o.post('/v1/labels', { name: 'Empat', color: 'hotpink' })).error.fields).toHaveProperty(
      'color',
    )
    const ct = (await o.post('/v1/contacts', { name: 'Berlabel', label_ids: [a.data.id, c.id] })).data
    await o.post('/v1/contacts', { name: 'Juga', label_ids: [a.data.id] })
    expect((await o.patch(`/v1/labels/${c.id}`, { position: 0, name: 'Tiga!' })).data).toMatchObject({
      name: 'Tiga!',
      position: 0,
    })
    const list = await o.get('/v1/labels')
    expect(list.data.map((l: any) => [l.name, l.contacts_count])).toEqual([
      ['Tiga!', 1],
      ['Satu', 2],
      ['Dua', 0],
    ])
    expect(list.meta.colors).toContain('#3b82f6')
    // Keys read (K) but do not manage (A).
    expect((await api(s, keyWho).get('/v1/labels')).status).toBe(200)
    expect((await api(s, keyWho).post('/v1/labels', { name: 'K' })).status).toBe(403)
    expect((await api(s, keyWho).patch(`/v1/labels/${b.id}`, { name: 'K' })).status).toBe(403)
    expect((await api(s, keyWho).del(`/v1/labels/${b.id}`)).status).toBe(403)
    expect((await o.del(`/v1/labels/${a.data.id}`)).status).toBe(200)
    expect((await o.get(`/v1/contacts/${ct.id}`)).data.label_ids).toEqual([c.id])
    const other = await F.workspace(s, { plan: 'pro' })
    const oo = api(s, (await F.signIn(s, other.ownerEmail)).headers())
    expect((await oo.patch(`/v1/labels/${b.id}`, { name: 'x' })).status).toBe(404)
    expect((await oo.del(`/v1/labels/${b.id}`)).status).toBe(404)
  })
})

describe('custom fields', () => {
  it('creates for five entities with unique keys, keeps entity/type/key fixed, orders, 30 at most', async () => {
    const o = api(s, owner)
    for (const entity of ['contact', 'interaction', 'ticket', 'lead', 'client'])
      expect(
        (await o.post('/v1/custom-fields', { entity, label: 'Nomor Member', type: 'text' })).status,
      ).toBe(201)
    const again = await o.post('/v1/custom-fields', {
      entity: 'contact',
      label: 'Nomor member',
      type: 'number',
    })
    expect(again.data.key).toBe('nomor_member_2')
    expect(
      (
        await o.post('/v1/custom-fields', {
          entity: 'contact',
          label: 'X',
          type: 'text',
          key: 'nomor_member',
        })
      ).error.fields,
    ).toHaveProperty('key')
    expect(
      (await o.post('/v1/custom-fields', { entity: 'contact', label: 'X', type: 'select' })).error.fields,
    ).toHaveProperty('options')
    expect(
      (await o.post('/v1/custom-fields', { entity: 'contact', label: 'X', type: 'text', options: ['a'] }))
        .error.fields,
    ).toHaveProperty('options')
    expect((await o.post('/v1/custom-fields', { entity: 'nope', label: 'X', type: 'text' })).status).toBe(422)
    const all = await o.get('/v1/custom-fields')
    expect(all.meta.max_per_entity).toBe(30)
    expect(all.data.map((f: any) => f.entity)).toEqual([
      'contact',
      'contact',
      'interaction',
      'ticket',
      'lead',
      'client',
    ])
    expect((await o.get('/v1/custom-fields?entity=ticket')).data).toHaveLength(1)
    const contactFields = await o.get('/v1/contact-fields')
    expect(contactFields.data.map((f: any) => f.key)).toEqual(['nomor_member', 'nomor_member_2'])
    const f = contactFields.data[1]
    const fixed = await o.patch(`/v1/custom-fields/${f.id}`, { type: 'text', key: 'other', entity: 'lead' })
    expect(Object.keys(fixed.error.fields).sort()).toEqual(['entity', 'key', 'type'])
    const moved = await o.patch(`/v1/contact-fields/${f.id}`, { position: 0, label: 'Member No' })
    expect(moved.data).toMatchObject({
      label: 'Member No',
      position: 0,
      key: 'nomor_member_2',
      type: 'number',
    })
    expect((await o.get('/v1/contact-fields')).data.map((x: any) => x.id)[0]).toBe(f.id)
    // The interaction field is not a contact field: 404 through /contact-fields.
    const interactionField = all.data.find((x: any) => x.entity === 'interaction')
    expect((await o.patch(`/v1/contact-fields/${interactionField.id}`, { label: 'y' })).status).toBe(404)
    // Up to 30 per entity.
    for (let i = 0; i < 29; i++)
      await o.post('/v1/custom-fields', { entity: 'ticket', label: `T${i}`, type: 'text' })
    const full = await o.post('/v1/custom-fields', { entity: 'ticket', label: 'One more', type: 'text' })
    expect(full.status).toBe(422)
    expect(full.error.fields).toHaveProperty('entity')
    // Keys read; keys do not manage.
    expect((await api(s, keyWho).get('/v1/custom-fields?entity=lead')).status).toBe(200)
    expect((await api(s, keyWho).get('/v1/contact-fields')).status).toBe(200)
    expect((await api(s, keyWho).post('/v1/contact-fields', { label: 'K', type: 'text' })).status).toBe(403)
    expect((await api(s, keyWho).del(`/v1/custom-fields/${f.id}`)).status).toBe(403)
    // A member without ticket access reads no ticket fields.
    const role = await I.role(s, w, ['contacts.view'])
    const limited = (await I.agent(s, w, role)).session.headers()
    expect((await api(s, limited).get('/v1/custom-fields?entity=ticket')).status).toBe(403)
    expect(new Set((await api(s, limited).get('/v1/custom-fields')).data.map((x: any) => x.entity))).toEqual(
      new Set(['contact']),
    )
  })

  it('validates PATCH /interactions custom values against interaction fields; deleted fields vanish from the detail', async () => {
    const o = api(s, owner)
    const sel = (
      await o.post('/v1/custom-fields', {
        entity: 'interaction',
        label: 'Topik',
        type: 'select',
        options: ['Harga', 'Stok'],
      })
    ).data
    const num = (await o.post('/v1/custom-fields', { entity: 'interaction', label: 'Nilai', type: 'number' }))
      .data
    const conv = await I.conversation(s, w)
    const bad = await o.patch(`/v1/interactions/${conv.id}`, {
      custom: { topik: 'Lain', nilai: 'abc', unknown_key: 1 },
    })
    expect(bad.status).toBe(422)
    expect(Object.keys(bad.error.fields).sort()).toEqual([
      'custom.nilai',
      'custom.topik',
      'custom.unknown_key',
    ])
    const good = await o.patch(`/v1/interactions/${conv.id}`, { custom: { topik: 'stok', nilai: 5 } })
    expect(good.status).toBe(200)
    const fields = good.data.custom_fields.filter((x: any) => x.value !== null)
    expect(fields.map((x: any) => [x.key, x.type, x.value])).toEqual([
      ['topik', 'select', 'Stok'],
      ['nilai', 'number', 5],
    ])
    await o.del(`/v1/custom-fields/${sel.id}`)
    const after = await o.get(`/v1/interactions/${conv.id}`)
    expect(after.data.custom_fields.map((x: any) => x.key)).not.toContain('topik')
    expect(after.data.custom_fields.find((x: any) => x.key === 'nilai').value).toBe(5)
    void num
  })
})
