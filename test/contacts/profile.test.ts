import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { api, phone, type Who } from './support'

/** Spec 2 §4.4 profile, timeline, notes, tickets and leads of a contact. */
let s: TestServer
let w: F.Seeded
let owner: Who
let keyWho: Who
beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = (await F.signIn(s, w.ownerEmail)).headers()
  keyWho = F.bearer(await F.apiKey(s, w))
})
afterAll(() => s?.stop())

describe('profile', () => {
  it('shows identities, labels, custom fields, statistics and 12-month activity; tickets and leads empty', async () => {
    const o = api(s, owner)
    const label = (await o.post('/v1/labels', { name: 'Pelanggan' })).data
    await o.post('/v1/contact-fields', { label: 'Kota Asal', type: 'text' })
    const p = phone()
    const c = (
      await o.post('/v1/contacts', {
        name: 'Rina',
        phone: p,
        email: 'rina@example.com',
        label_ids: [label.id],
        custom: { kota_asal: 'Solo' },
      })
    ).data
    const wa = await I.channel(s, w, 'msgapp')
    const mail = await I.channel(s, w, 'email')
    const c1 = await I.conversation(s, w, { channelId: wa.id, contactId: c.id })
    await I.inbound(s, c1.id, 'halo')
    await I.inbound(s, c1.id, 'ada stok?')
    const c2 = await I.conversation(s, w, { channelId: mail.id, contactId: c.id, subject: 'Pesanan' })
    await I.inbound(s, c2.id, 'email masuk')
    const r = await api(s, keyWho).get(`/v1/contacts/${c.id}`)
    expect(r.status).toBe(200)
    expect(r.data).toMatchObject({
      id: c.id,
      name: 'Rina',
      service_labels: [{ id: label.id, name: 'Pelanggan' }],
      msgapp_labels: [],
      custom: { kota_asal: 'Solo' },
      statistics: {
        conversations: 2,
        open_conversations: 2,
        messages_in: 3,
        messages_out: 0,
        notes: 0,
        tickets: 0,
        leads: 0,
      },
      tickets: [],
      leads: [],
    })
    expect(r.data.custom_fields).toEqual([expect.objectContaining({ key: 'kota_asal', value: 'Solo' })])
    expect(r.data.identities.map((i: any) => [i.channel_type, i.address]).sort()).toEqual([
      ['email', 'rina@example.com'],
      ['msgapp', p],
    ])
    expect(r.data.activity).toHaveLength(12)
    expect(r.data.activity[11]).toMatchObject({ messages_in: 3, conversations: 2 })
    expect((await o.get(`/v1/contacts/${c.id}/tickets`)).data).toEqual([])
    expect((await o.get(`/v1/contacts/${c.id}/leads`)).data).toEqual([])
    // Keys read every K endpoint of the contact.
    for (const path of ['/timeline', '/tickets', '/leads', '/notes'])
      expect((await api(s, keyWho).get(`/v1/contacts/${c.id}${path}`)).status).toBe(200)
    const other = await F.workspace(s, { plan: 'pro' })
    const oo = api(s, (await F.signIn(s, other.ownerEmail)).headers())
    for (const path of ['', '/timeline', '/tickets', '/leads', '/notes'])
      expect((await oo.get(`/v1/contacts/${c.id}${path}`)).status).toBe(404)
  })

  it('timeline: newest first across conversations, notes and changes, paged by `before`; only visible conversations', async () => {
    const o = api(s, owner)
    const c = (await o.post('/v1/contacts', { name: 'Timeline' })).data
    const team = await I.team(s, w, [])
    await I.conversation(s, w, { contactId: c.id })
    await I.conversation(s, w, { contactId: c.id, teamId: team })
    await o.post(`/v1/contacts/${c.id}/notes`, { body: 'catatan 1' })
    await o.patch(`/v1/contacts/${c.id}`, { city: 'Medan' })
    const all = await o.get(`/v1/contacts/${c.id}/timeline`)
    expect(all.data.map((x: any) => x.kind)).toEqual([
      'event',
      'note',
      'conversation',
      'conversation',
      'event',
    ])
    expect(all.data[0].data).toMatchObject({ kind: 'updated', data: { fields: ['city'] } })
    const first = await o.get(`/v1/contacts/${c.id}/timeline?limit=2`)
    expect(first.meta).toMatchObject({ has_more: true, next_before: first.data[1].id })
    const next = await o.get(`/v1/contacts/${c.id}/timeline?limit=2&before=${first.meta.next_before}`)
    expect(next.data.map((x: any) => x.id)).toEqual(all.data.slice(2, 4).map((x: any) => x.id))
    expect((await o.get(`/v1/contacts/${c.id}/timeline?before=note:999999`)).status).toBe(422)
    // An agent outside the team sees the unassigned conversation only.
    const agent = (await I.agent(s, w)).session.headers()
    const seen = await api(s, agent).get(`/v1/contacts/${c.id}/timeline`)
    expect(seen.data.filter((x: any) => x.kind === 'conversation')).toHaveLength(1)
  })

  it('notes: add, list, edit by the author only, delete by the author or contacts.manage', async () => {
    const o = api(s, owner)
    const c = (await o.post('/v1/contacts', { name: 'Catatan' })).data
    const a1 = await I.agent(s, w)
    const a2 = await I.agent(s, w)
    const x1 = api(s, a1.session.headers())
    const x2 = api(s, a2.session.headers())
    const n = await x1.post(`/v1/contacts/${c.id}/notes`, { body: ' suka diskon ' })
    expect(n.status).toBe(201)
    expect(n.data).toMatchObject({ body: 'suka diskon', author: { id: a1.user.id }, mine: true })
    expect((await x2.patch(`/v1/contacts/${c.id}/notes/${n.data.id}`, { body: 'x' })).status).toBe(403)
    expect((await o.patch(`/v1/contacts/${c.id}/notes/${n.data.id}`, { body: 'x' })).status).toBe(403)
    expect(
      (await x1.patch(`/v1/contacts/${c.id}/notes/${n.data.id}`, { body: 'suka promo' })).data.body,
    ).toBe('suka promo')
    expect((await x2.del(`/v1/contacts/${c.id}/notes/${n.data.id}`)).status).toBe(403)
    const n2 = (await x2.post(`/v1/contacts/${c.id}/notes`, { body: 'kedua' })).data
    const list = await x1.get(`/v1/contacts/${c.id}/notes`)
    expect(list.data.map((x: any) => [x.body, x.mine])).toEqual([
      ['kedua', false],
      ['suka promo', true],
    ])
    expect((await x2.del(`/v1/contacts/${c.id}/notes/${n2.id}`)).status).toBe(200)
    expect((await o.del(`/v1/contacts/${c.id}/notes/${n.data.id}`)).status).toBe(200)
    expect((await o.get(`/v1/contacts/${c.id}/notes`)).data).toEqual([])
    expect((await x1.post(`/v1/contacts/${c.id}/notes`, { body: '' })).status).toBe(422)
    // Keys write notes too (K), recorded under the key's creator.
    expect((await api(s, keyWho).post(`/v1/contacts/${c.id}/notes`, { body: 'via key' })).status).toBe(201)
  })
})
