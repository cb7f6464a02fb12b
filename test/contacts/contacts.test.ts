import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Contacts from '../../store/contacts'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { api, type Who } from './support'

/** Spec 2 §4.4 contacts: create, list (filters, orders, page and cursor), PATCH, labels, opt-out. */
let s: TestServer
let w: F.Seeded
let owner: Who
let keyWho: Who
let agent: Who
beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = (await F.signIn(s, w.ownerEmail)).headers()
  keyWho = F.bearer(await F.apiKey(s, w))
  agent = (await I.agent(s, w)).session.headers()
})
afterAll(() => s?.stop())

describe('contacts', () => {
  it('creates with E.164 phones and lower-cased e-mails, refuses a second contact with the same phone', async () => {
    const o = api(s, owner)
    const a = await o.post('/v1/contacts', {
      name: 'Budi Santoso',
      phone: '0812-3456-7001',
      email: 'Budi@Example.COM',
      company: 'Toko Maju',
      city: 'Bandung',
    })
    expect(a.status).toBe(201)
    expect(a.data).toMatchObject({
      name: 'Budi Santoso',
      phone: '+6281234567001',
      email: 'budi@example.com',
      company: 'Toko Maju',
      job_title: null,
      label_ids: [],
      custom: {},
      broadcast_opt_out: false,
    })
    // Written differently, the same number is the same contact.
    const dup = await o.post('/v1/contacts', { name: 'Budi lagi', phone: '+62 812 3456 7001' })
    expect(dup.status).toBe(422)
    expect(dup.error.fields.phone).toContain(String(a.data.id))
    const bad = await o.post('/v1/contacts', { phone: '12', email: 'nope' })
    expect(bad.status).toBe(422)
    expect(Object.keys(bad.error.fields).sort()).toEqual(['email', 'name', 'phone'])
    // Indonesian messages too.
    const idRes = await s.fetch('/v1/contacts', F.json({ phone: '12' }, { ...owner, 'x-locale': 'id' }))
    expect(((await idRes.json()) as any).error.fields.phone).toBe('bukan nomor telepon yang valid')
    const nameless = await o.post('/v1/contacts', {})
    expect(nameless.error.fields).toHaveProperty('name')
    // A key creates too (K), the name defaulting to the address.
    const viaKey = await api(s, keyWho).post('/v1/contacts', { email: 'key@example.com' })
    expect(viaKey.status).toBe(201)
    expect(viaKey.data.name).toBe('key@example.com')
  })

  it('PATCH changes only the sent fields; label_ids replaces every label; custom values are checked', async () => {
    const o = api(s, owner)
    const l1 = (await o.post('/v1/labels', { name: 'VIP', color: '#ef4444' })).data
    const l2 = (await o.post('/v1/labels', { name: 'Grosir' })).data
    const f = await o.post('/v1/contact-fields', {
      label: 'Tipe Pelanggan',
      type: 'select',
      options: ['Retail', 'Grosir'],
    })
    expect(f.status).toBe(201)
    expect(f.data).toMatchObject({ entity: 'contact', key: 'tipe_pelanggan', type: 'select' })
    const c = (await o.post('/v1/contacts', { name: 'Sari', label_ids: [l1.id] })).data
    expect(c.label_ids).toEqual([l1.id])
    const p = await o.patch(`/v1/contacts/${c.id}`, {
      job_title: 'Owner',
      label_ids: [l2.id],
      custom: { tipe_pelanggan: 'grosir' },
    })
    expect(p.status).toBe(200)
    expect(p.data).toMatchObject({
      name: 'Sari',
      job_title: 'Owner',
      label_ids: [l2.id],
      custom: { tipe_pelanggan: 'Grosir' },
    })
    const wrong = await o.patch(`/v1/contacts/${c.id}`, { custom: { tipe_pelanggan: 'Lainnya', nope: 1 } })
    expect(wrong.status).toBe(422)
    expect(Object.keys(wrong.error.fields).sort()).toEqual(['custom.nope', 'custom.tipe_pelanggan'])
    // Labels one by one; an agent may add (interactions.reply) but not remove (contacts.manage).
    const added = await api(s, agent).post(`/v1/contacts/${c.id}/labels`, { label_id: l1.id })
    expect(added.status).toBe(200)
    expect(added.data.label_ids.sort()).toEqual([l1.id, l2.id].sort())
    expect((await api(s, agent).del(`/v1/contacts/${c.id}/labels/${l1.id}`)).status).toBe(403)
    expect((await o.del(`/v1/contacts/${c.id}/labels/${l1.id}`)).data.label_ids).toEqual([l2.id])
    expect((await o.del(`/v1/contacts/${c.id}/labels/${l1.id}`)).status).toBe(404)
    // Deleting the field hides (and removes) its values.
    expect((await o.del(`/v1/contact-fields/${f.data.id}`)).status).toBe(200)
    expect((await o.get(`/v1/contacts/${c.id}`)).data.custom).toEqual({})
    // An agent cannot change contacts at all.
    expect((await api(s, agent).patch(`/v1/contacts/${c.id}`, { name: 'x' })).status).toBe(403)
  })

  it('lists with q, label, owner, channel filters, three orders, page and cursor pagination', async () => {
    const other = await F.workspace(s, { plan: 'pro' })
    const oo = api(s, (await F.signIn(s, other.ownerEmail)).headers())
    const label = (await oo.post('/v1/labels', { name: 'Langganan' })).data
    const names = ['Citra', 'Anton', 'Bayu', 'Dewi', 'Eka']
    const made = []
    for (const name of names)
      made.push((await oo.post('/v1/contacts', { name, company: name === 'Dewi' ? 'PT Sinar' : null })).data)
    await oo.patch(`/v1/contacts/${made[1].id}`, { label_ids: [label.id], owner_id: other.ownerId })
    const ch = await I.channel(s, other)
    await I.conversation(s, other, { channelId: ch.id, contactId: made[2].id })
    const byName = await oo.get('/v1/contacts?sort=name')
    expect(byName.data.map((c: any) => c.name)).toEqual(['Anton', 'Bayu', 'Citra', 'Dewi', 'Eka'])
    expect(byName.meta).toMatchObject({
      page: 1,
      per_page: 25,
      total: 5,
      pages: 1,
      has_more: false,
      next_cursor: null,
    })
    const created = await oo.get('/v1/contacts?sort=created')
    expect(created.data.map((c: any) => c.name)).toEqual([...names].reverse())
    // recent: the contact with a conversation first.
    expect((await oo.get('/v1/contacts')).data[0].name).toBe('Bayu')
    expect((await oo.get('/v1/contacts?q=sinar')).data.map((c: any) => c.name)).toEqual(['Dewi'])
    expect((await oo.get(`/v1/contacts?label_id=${label.id}`)).data.map((c: any) => c.name)).toEqual([
      'Anton',
    ])
    expect((await oo.get('/v1/contacts?owner=me')).data.map((c: any) => c.name)).toEqual(['Anton'])
    expect((await oo.get('/v1/contacts?owner=none')).meta.total).toBe(4)
    expect((await oo.get(`/v1/contacts?channel_id=${ch.id}`)).data.map((c: any) => c.name)).toEqual(['Bayu'])
    // A business label the phone put on Bayu's chat (as the messaging-app connector records it).
    await I.sql(
      s,
      (db) =>
        db`INSERT INTO msgapp_labels (channel_id, label_id, name, color) VALUES (${ch.id}, '7', 'Lunas', 3)`,
    )
    await s.run(Contacts.markMsgappLabel(made[2].id, ch.id, '7', true))
    expect((await oo.get('/v1/contacts?msgapp_label_id=7')).data.map((c: any) => c.name)).toEqual(['Bayu'])
    expect((await oo.get(`/v1/contacts/${made[2].id}`)).data.msgapp_labels).toEqual([
      { channel_id: ch.id, label_id: '7', name: 'Lunas', color: 3 },
    ])
    // Pages, then the same walk by cursor.
    const p2 = await oo.get('/v1/contacts?sort=name&per_page=2&page=2')
    expect(p2.data.map((c: any) => c.name)).toEqual(['Citra', 'Dewi'])
    expect(p2.meta).toMatchObject({ total: 5, pages: 3, has_more: true })
    const walked: string[] = []
    let cursor: string | null = null
    do {
      const r: any = await oo.get(`/v1/contacts?sort=name&per_page=2${cursor ? `&cursor=${cursor}` : ''}`)
      walked.push(...r.data.map((c: any) => c.name))
      cursor = r.meta.next_cursor
    } while (cursor)
    expect(walked).toEqual(['Anton', 'Bayu', 'Citra', 'Dewi', 'Eka'])
    expect((await oo.get('/v1/contacts?cursor=garbage')).status).toBe(422)
    // Another workspace's contact is 404; this workspace never lists it.
    expect((await api(s, owner).get(`/v1/contacts/${made[0].id}`)).status).toBe(404)
    expect((await api(s, owner).patch(`/v1/contacts/${made[0].id}`, { name: 'x' })).status).toBe(404)
  })

  it('sets the broadcast opt-out (A: keys get 403), agents read but do not write', async () => {
    const o = api(s, owner)
    const c = (await o.post('/v1/contacts', { name: 'Opt' })).data
    const r = await o.post(`/v1/contacts/${c.id}/broadcast-opt-out`, { opt_out: true })
    expect(r.status).toBe(200)
    expect(r.data.broadcast_opt_out).toBe(true)
    expect(
      (await api(s, keyWho).post(`/v1/contacts/${c.id}/broadcast-opt-out`, { opt_out: false })).status,
    ).toBe(403)
    expect((await api(s, agent).get(`/v1/contacts/${c.id}`)).status).toBe(200)
    expect((await api(s, agent).post('/v1/contacts', { name: 'x' })).status).toBe(403)
    const readKey = F.bearer(await F.apiKey(s, w, 'read'))
    expect((await api(s, readKey).post('/v1/contacts', { name: 'x' })).status).toBe(403)
    expect((await api(s, readKey).get('/v1/contacts')).status).toBe(200)
  })
})
