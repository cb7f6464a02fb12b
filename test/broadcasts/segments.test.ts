import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, type Who } from '../contacts/support'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * Spec 2 §4.8 segments: every operator of the field catalogue against a hand-built set of
 * contacts (the preview lists the members by name, and the count comes from the same one SQL
 * query), saved segments, `last_count`, the CSV export, delete refused while a live broadcast
 * uses the segment, and `segments.changed`.
 */
let s: TestServer
let w: F.Seeded
let owner: Who
let ownerSession: F.Session
let readKey: Who
let writeKey: Who
const ids: Record<string, number> = {}
let vip = 0
let retail = 0
let number = 0
let waNumber = 0
let agentId = 0

beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  w = await F.workspace(s, { plan: 'pro' })
  ownerSession = await F.signIn(s, w.ownerEmail)
  owner = ownerSession.headers()
  readKey = F.bearer(await F.apiKey(s, w, 'read'))
  writeKey = F.bearer(await F.apiKey(s, w, 'write'))
  const o = api(s, owner)
  vip = (await o.post('/v1/labels', { name: 'VIP' })).data.id
  retail = (await o.post('/v1/labels', { name: 'Retail' })).data.id
  for (const f of [
    { label: 'Points', type: 'number', key: 'points' },
    { label: 'Birthday', type: 'date', key: 'birthday' },
    { label: 'Tier', type: 'select', key: 'tier', options: ['Gold', 'Silver'] },
    { label: 'Member', type: 'checkbox', key: 'member' },
    { label: 'Note', type: 'text', key: 'note' },
  ]) {
    const r = await o.post('/v1/custom-fields', { entity: 'contact', ...f })
    expect(r.status, JSON.stringify(r.error)).toBe(201)
  }
  const agent = await I.agent(s, w)
  agentId = agent.user.id
  const mk = async (name: string, b: Record<string, unknown>) => {
    const r = await o.post('/v1/contacts', { name, ...b })
    expect(r.status, JSON.stringify(r.error)).toBe(201)
    ids[name] = r.data.id
  }
  await mk('Ani', {
    phone: '+6281111111101',
    city: 'Bandung',
    company: 'Toko Maju',
    label_ids: [vip],
    custom: { points: 120, birthday: '1990-05-01', tier: 'Gold', member: true, note: 'likes batik' },
    owner_id: w.ownerId,
  })
  await mk('Budi', {
    phone: '+6281111111102',
    city: 'Jakarta',
    label_ids: [vip, retail],
    custom: { points: 40, birthday: '1985-12-24', tier: 'Silver', member: false },
    owner_id: agentId,
  })
  await mk('Citra', {
    email: 'citra@example.com',
    city: 'bandung barat',
    label_ids: [retail],
    custom: { points: 75 },
  })
  await mk('Dewi', { phone: '+6281111111104', company: 'Maju Jaya' })
  await mk('Eko', { phone: '+6281111111105', city: 'Surabaya' })
  await o.post(`/v1/contacts/${ids.Eko}/broadcast-opt-out`, { opt_out: true })
  // Activity: Ani wrote on a number, Budi has a conversation on it; Dewi was created long ago.
  number = (await I.channel(s, w, 'msgapp')).id
  waNumber = (await I.channel(s, w, 'msgapp')).id
  const conv = await I.conversation(s, w, { channelId: number, contactId: ids.Ani! })
  await I.inbound(s, conv.id, 'halo')
  await I.conversation(s, w, { channelId: waNumber, contactId: ids.Budi! })
  await I.sql(s, (db) => db`UPDATE contacts SET created_at = '2020-01-15T05:00:00Z' WHERE id = ${ids.Dewi!}`)
  await I.sql(
    s,
    (db) =>
      db`INSERT INTO msgapp_labels (channel_id, label_id, name) VALUES (${waNumber}, 'L7', 'Pelanggan baru')`,
  )
  await I.sql(
    s,
    (db) =>
      db`INSERT INTO contact_msgapp_labels (contact_id, channel_id, label_id) VALUES (${ids.Citra!}, ${waNumber}, 'L7')`,
  )
}, 60_000)
afterAll(() => s?.stop())

const members = async (rules: unknown[], match: 'all' | 'any' = 'all') => {
  const r = await api(s, owner).post('/v1/segments/preview', { match, rules })
  expect(r.status, JSON.stringify(r.error)).toBe(200)
  const names = (r.data.samples as Array<{ name: string }>).map((x) => x.name).sort()
  expect(r.data.count).toBe(names.length)
  return names
}

describe('segment compilation', () => {
  it('text operators on contact fields', async () => {
    expect(await members([{ field: 'city', op: 'equals', value: 'bandung' }])).toEqual(['Ani'])
    expect(await members([{ field: 'city', op: 'not_equals', value: 'Bandung' }])).toEqual([
      'Budi',
      'Citra',
      'Dewi',
      'Eko',
    ])
    expect(await members([{ field: 'city', op: 'contains', value: 'BANDUNG' }])).toEqual(['Ani', 'Citra'])
    expect(await members([{ field: 'company', op: 'not_contains', value: 'maju' }])).toEqual([
      'Budi',
      'Citra',
      'Eko',
    ])
    expect(await members([{ field: 'company', op: 'starts_with', value: 'maju' }])).toEqual(['Dewi'])
    expect(await members([{ field: 'phone', op: 'is_empty' }])).toEqual(['Citra'])
    expect(await members([{ field: 'email', op: 'is_not_empty' }])).toEqual(['Citra'])
    // LIKE wildcards in a value are taken literally.
    expect(await members([{ field: 'name', op: 'contains', value: '%' }])).toEqual([])
  })

  it('labels, messaging-app labels, channels and owner', async () => {
    expect(await members([{ field: 'label', op: 'has', value: vip }])).toEqual(['Ani', 'Budi'])
    expect(await members([{ field: 'label', op: 'not_has', value: vip }])).toEqual(['Citra', 'Dewi', 'Eko'])
    expect(await members([{ field: 'msgapp_label', op: 'has', value: `${waNumber}:L7` }])).toEqual(['Citra'])
    expect(await members([{ field: 'msgapp_label', op: 'not_has', value: `${waNumber}:L7` }])).toHaveLength(4)
    expect(await members([{ field: 'channel', op: 'has', value: number }])).toEqual(['Ani'])
    expect(await members([{ field: 'channel', op: 'not_has', value: number }])).toHaveLength(4)
    expect(await members([{ field: 'owner', op: 'is', value: agentId }])).toEqual(['Budi'])
    expect(await members([{ field: 'owner', op: 'is_not', value: agentId }])).toEqual([
      'Ani',
      'Citra',
      'Dewi',
      'Eko',
    ])
    expect(await members([{ field: 'owner', op: 'is_empty' }])).toEqual(['Citra', 'Dewi', 'Eko'])
    expect(await members([{ field: 'owner', op: 'is_not_empty' }])).toEqual(['Ani', 'Budi'])
  })

  it('dates in the workspace zone and activity', async () => {
    expect(await members([{ field: 'created_at', op: 'before', value: '2020-01-16' }])).toEqual(['Dewi'])
    // 2020-01-15T05:00Z is 12:00 in Jakarta on the 15th: "after the 15th" excludes it, "between" includes it.
    expect(await members([{ field: 'created_at', op: 'after', value: '2020-01-15' }])).toHaveLength(4)
    expect(
      await members([{ field: 'created_at', op: 'between', value: '2020-01-15', value2: '2020-01-15' }]),
    ).toEqual(['Dewi'])
    expect(await members([{ field: 'created_at', op: 'in_last_days', value: 30 }])).toHaveLength(4)
    expect(await members([{ field: 'created_at', op: 'not_in_last_days', value: 30 }])).toEqual(['Dewi'])
    expect(await members([{ field: 'last_inbound_at', op: 'in_last_days', value: 1 }])).toEqual(['Ani'])
    expect(await members([{ field: 'last_inbound_at', op: 'is_empty' }])).toEqual([
      'Budi',
      'Citra',
      'Dewi',
      'Eko',
    ])
    expect(await members([{ field: 'last_activity_at', op: 'is_not_empty' }])).toEqual(['Ani'])
  })

  it('custom fields as cf:<key>, by type', async () => {
    expect(await members([{ field: 'cf:points', op: 'gt', value: 75 }])).toEqual(['Ani'])
    expect(await members([{ field: 'cf:points', op: 'gte', value: 75 }])).toEqual(['Ani', 'Citra'])
    expect(await members([{ field: 'cf:points', op: 'lt', value: 75 }])).toEqual(['Budi'])
    expect(await members([{ field: 'cf:points', op: 'lte', value: 75 }])).toEqual(['Budi', 'Citra'])
    expect(await members([{ field: 'cf:points', op: 'equals', value: '40' }])).toEqual(['Budi'])
    expect(await members([{ field: 'cf:points', op: 'not_equals', value: 40 }])).toHaveLength(4)
    expect(await members([{ field: 'cf:points', op: 'between', value: 40, value2: 75 }])).toEqual([
      'Budi',
      'Citra',
    ])
    expect(await members([{ field: 'cf:points', op: 'is_empty' }])).toEqual(['Dewi', 'Eko'])
    expect(await members([{ field: 'cf:birthday', op: 'before', value: '1990-01-01' }])).toEqual(['Budi'])
    expect(await members([{ field: 'cf:birthday', op: 'after', value: '1990-04-30' }])).toEqual(['Ani'])
    expect(
      await members([{ field: 'cf:birthday', op: 'between', value: '1985-12-24', value2: '1990-05-01' }]),
    ).toEqual(['Ani', 'Budi'])
    expect(await members([{ field: 'cf:birthday', op: 'is_not_empty' }])).toEqual(['Ani', 'Budi'])
    expect(await members([{ field: 'cf:tier', op: 'equals', value: 'Gold' }])).toEqual(['Ani'])
    expect(await members([{ field: 'cf:tier', op: 'not_equals', value: 'Gold' }])).toHaveLength(4)
    expect(await members([{ field: 'cf:member', op: 'is_true' }])).toEqual(['Ani'])
    expect(await members([{ field: 'cf:member', op: 'is_false' }])).toHaveLength(4)
    expect(await members([{ field: 'cf:note', op: 'contains', value: 'batik' }])).toEqual(['Ani'])
  })

  it('opt-out, match all and any, and no rules', async () => {
    expect(await members([{ field: 'broadcast_opt_out', op: 'is_true' }])).toEqual(['Eko'])
    expect(await members([{ field: 'broadcast_opt_out', op: 'is_false' }])).toHaveLength(4)
    const both = [
      { field: 'label', op: 'has', value: vip },
      { field: 'city', op: 'contains', value: 'bandung' },
    ]
    expect(await members(both, 'all')).toEqual(['Ani'])
    expect(await members(both, 'any')).toEqual(['Ani', 'Budi', 'Citra'])
    expect(await members([])).toEqual(['Ani', 'Budi', 'Citra', 'Dewi', 'Eko'])
  })

  it('counts with phone and unsubscribed, and refuses bad rules with 422 per part', async () => {
    const r = await api(s, owner).post('/v1/segments/preview', { rules: [] })
    expect(r.data).toMatchObject({ count: 5, with_phone: 4, unsubscribed: 1 })
    const bad = await api(s, owner).post('/v1/segments/preview', {
      rules: [
        { field: 'nope', op: 'equals', value: 'x' },
        { field: 'city', op: 'gt', value: 'x' },
        { field: 'cf:points', op: 'gt', value: 'many' },
        { field: 'created_at', op: 'before', value: '15/01/2020' },
        { field: 'label', op: 'has', value: 999999 },
        { field: 'cf:tier', op: 'equals', value: 'Bronze' },
        { field: 'city', op: 'equals' },
      ],
    })
    expect(bad.status).toBe(422)
    expect(Object.keys(bad.error.fields).sort()).toEqual([
      'rules.0.field',
      'rules.1.op',
      'rules.2.value',
      'rules.3.value',
      'rules.4.value',
      'rules.5.value',
      'rules.6.value',
    ])
    const many = await api(s, owner).post('/v1/segments/preview', {
      rules: Array.from({ length: 16 }, () => ({ field: 'city', op: 'is_empty' })),
    })
    expect(many.status).toBe(422)
  })

  it('lists the catalogue with operators and values', async () => {
    const r = await api(s, readKey).get('/v1/segments/fields')
    expect(r.status).toBe(200)
    const byField = new Map((r.data.fields as Array<{ field: string }>).map((f) => [f.field, f]))
    expect(byField.get('label')).toMatchObject({
      ops: ['has', 'not_has'],
      values: [
        { value: vip, label: 'VIP' },
        { value: retail, label: 'Retail' },
      ],
    })
    expect(byField.get('cf:tier')).toMatchObject({
      type: 'select',
      values: [{ value: 'Gold' }, { value: 'Silver' }],
    })
    expect(byField.get('msgapp_label')).toMatchObject({ values: [{ value: `${waNumber}:L7` }] })
    for (const f of [
      'name',
      'phone',
      'owner',
      'channel',
      'created_at',
      'last_activity_at',
      'broadcast_opt_out',
      'cf:points',
      'cf:birthday',
      'cf:member',
      'cf:note',
    ])
      expect(byField.has(f), f).toBe(true)
    expect(r.data.max_rules).toBe(15)
  })
})

describe('saved segments', () => {
  it('creates, lists, recounts in detail, exports and deletes; events on ws', async () => {
    const { c: sock } = await I.socketFor(s, ownerSession, `ws:${w.workspaceId}`)
    const o = api(s, owner)
    const c = await o.post('/v1/segments', {
      name: 'Bandung VIP',
      description: 'Our best',
      match: 'any',
      rules: [{ field: 'city', op: 'contains', value: 'bandung' }],
    })
    expect(c.status).toBe(201)
    expect(c.data).toMatchObject({ name: 'Bandung VIP', match: 'any', last_count: 2, broadcasts_count: 0 })
    expect((await sock.next((f) => f.event === 'segments.changed')).data).toEqual({
      segment_id: c.data.id,
      reason: 'created',
    })
    expect((await o.post('/v1/segments', { name: 'bandung vip', rules: [] })).status).toBe(422)
    // A new member is found by the detail's recount, which also refreshes last_count.
    await o.post('/v1/contacts', { name: 'Fajar', phone: '+6281111111106', city: 'Bandung' })
    const d = await api(s, readKey).get(`/v1/segments/${c.data.id}`)
    expect(d.data.preview.count).toBe(3)
    expect(d.data.last_count).toBe(3)
    const l = await api(s, readKey).get('/v1/segments')
    expect(l.data.map((x: { id: number }) => x.id)).toContain(c.data.id)
    const p = await o.patch(`/v1/segments/${c.data.id}`, {
      rules: [{ field: 'city', op: 'equals', value: 'Bandung' }],
    })
    expect(p.status).toBe(200)
    expect(p.data.last_count).toBe(2)
    expect(
      (
        await sock.next(
          (f) => f.event === 'segments.changed' && (f.data as { reason: string }).reason === 'updated',
        )
      ).data.segment_id,
    ).toBe(c.data.id)
    const csv = await s.fetch(`/v1/segments/${c.data.id}/export`, { headers: owner })
    expect(csv.status).toBe(200)
    const again = await csv.text()
    const lines = again
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n')
    expect(lines[0]).toBe('id,name,phone,email,company,city,broadcast_opt_out,created_at')
    expect(
      lines
        .slice(1)
        .map((x) => x.split(',')[1])
        .sort(),
    ).toEqual(['Ani', 'Fajar'])
    // Keys: a read key reads (every POST counts as a change for it); app-only routes refuse keys.
    expect((await api(s, readKey).get(`/v1/segments/${c.data.id}`)).status).toBe(200)
    expect((await api(s, readKey).post('/v1/segments/preview', { rules: [] })).status).toBe(403)
    expect((await api(s, writeKey).post('/v1/segments/preview', { rules: [] })).status).toBe(200)
    expect((await api(s, readKey).post('/v1/segments', { name: 'x', rules: [] })).status).toBe(403)
    expect((await api(s, writeKey).post('/v1/segments', { name: 'x', rules: [] })).status).toBe(403)
    expect((await api(s, writeKey).del(`/v1/segments/${c.data.id}`)).status).toBe(403)
    const del = await o.del(`/v1/segments/${c.data.id}`)
    expect(del.status).toBe(200)
    expect(
      (
        await sock.next(
          (f) => f.event === 'segments.changed' && (f.data as { reason: string }).reason === 'deleted',
        )
      ).data.segment_id,
    ).toBe(c.data.id)
    expect((await o.get(`/v1/segments/${c.data.id}`)).status).toBe(404)
    sock.close()
  })

  it('answers 404 for another workspace’s segment', async () => {
    const other = await F.workspace(s, { plan: 'pro' })
    const otherKey = F.bearer(await F.apiKey(s, other, 'write'))
    const c = await api(s, owner).post('/v1/segments', { name: 'Mine', rules: [] })
    expect((await api(s, otherKey).get(`/v1/segments/${c.data.id}`)).status).toBe(404)
  })
})
