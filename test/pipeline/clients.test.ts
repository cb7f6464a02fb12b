import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as P from './support'

/**
 * Clients (spec 2 §2, §4.7): names unique per workspace regardless of case, the list with
 * `industry` and `meta.industries`, search, the profile (linked contacts, only visible leads, a
 * deal summary over them), linking contacts (and their leads without a client), deleting (contacts
 * and leads stay, unlinked), keys, and `clients.changed` on the socket.
 */
let s: TestServer
let w: F.Seeded
let ownerSession: F.Session
let owner: P.Who
let writeKey: P.Who
let readKey: P.Who
let flow: Awaited<ReturnType<typeof P.workflow>>

beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  ownerSession = await F.signIn(s, w.ownerEmail)
  owner = P.session(ownerSession)
  writeKey = P.key(await F.apiKey(s, w, 'write'))
  readKey = P.key(await F.apiKey(s, w, 'read'))
  flow = await P.workflow(s, owner, { name: 'Main' })
}, 60_000)
afterAll(() => s?.stop())

describe('clients', () => {
  it('creates with unique names regardless of case, lists with industry and searches', async () => {
    const a = await P.api(s, owner).post('/v1/clients', {
      name: 'PT Sinar Abadi',
      industry: 'Manufacturing',
      email: 'INFO@Sinar.example',
      city: 'Bandung',
    })
    expect(a.status).toBe(201)
    expect(a.data).toMatchObject({ name: 'PT Sinar Abadi', email: 'info@sinar.example', contacts_count: 0 })
    const dup = await P.api(s, writeKey).post('/v1/clients', { name: 'pt sinar ABADI' })
    expect(dup.status).toBe(422)
    expect(dup.error.fields.name).toBeDefined()
    expect((await P.api(s, owner).post('/v1/clients', { name: 'X', email: 'nope' })).status).toBe(422)
    const b = await P.api(s, writeKey).post('/v1/clients', { name: 'CV Sinar Jaya', industry: 'retail' })
    expect(b.status).toBe(201)
    await P.api(s, owner).post('/v1/clients', { name: 'Toko Retail Dua', industry: 'Retail' })
    expect((await P.api(s, readKey).post('/v1/clients', { name: 'Read only' })).status).toBe(403)

    const all = await P.api(s, readKey).get('/v1/clients')
    expect(all.status).toBe(200)
    expect(all.meta.total).toBe(3)
    // One spelling per industry regardless of case.
    expect(all.meta.industries).toHaveLength(2)
    const retail = await P.api(s, owner).get('/v1/clients?industry=RETAIL')
    expect(retail.data.map((k: { name: string }) => k.name).sort()).toEqual([
      'CV Sinar Jaya',
      'Toko Retail Dua',
    ])
    const q = await P.api(s, owner).get('/v1/clients?q=bandung')
    expect(q.data.map((k: { id: number }) => k.id)).toEqual([a.data.id])
    const found = await P.api(s, owner).get('/v1/clients/search?q=sinar')
    expect(found.data.map((k: { name: string }) => k.name)).toEqual(['CV Sinar Jaya', 'PT Sinar Abadi'])
    // Renaming onto a taken name is refused; another name is fine.
    expect((await P.api(s, owner).patch(`/v1/clients/${b.data.id}`, { name: 'PT SINAR ABADI' })).status).toBe(
      422,
    )
    const renamed = await P.api(s, writeKey).patch(`/v1/clients/${b.data.id}`, {
      name: 'CV Sinar Baru',
      notes: 'n',
    })
    expect(renamed.status).toBe(200)
    expect(renamed.data).toMatchObject({ name: 'CV Sinar Baru', notes: 'n', industry: 'retail' })
    expect((await P.api(s, readKey).patch(`/v1/clients/${b.data.id}`, { notes: 'x' })).status).toBe(403)
  })

  it('links contacts with their leads, shows only visible leads, and deletes keeping both', async () => {
    const k = (await P.api(s, owner).post('/v1/clients', { name: 'PT Link' })).data
    const other = (await P.api(s, owner).post('/v1/clients', { name: 'PT Other' })).data
    const contact = await I.contact(s, w)
    const free = await P.lead(s, owner, {
      pipeline_id: flow.id,
      contact_id: contact.id,
      assignee_id: w.ownerId,
      value_estimate: 100,
    })
    const held = await P.lead(s, owner, { pipeline_id: flow.id, contact_id: contact.id, client_id: other.id })
    // Keys may not link (A).
    expect(
      (await P.api(s, writeKey).post(`/v1/clients/${k.id}/contacts`, { contact_id: contact.id })).status,
    ).toBe(403)
    const linked = await P.api(s, owner).post(`/v1/clients/${k.id}/contacts`, {
      contact_id: contact.id,
      link: true,
    })
    expect(linked.status).toBe(200)
    expect(linked.data).toMatchObject({ linked: true, leads_linked: [free.id], contacts_count: 1 })
    expect((await P.api(s, owner).get(`/v1/leads/${free.id}`)).data.client_id).toBe(k.id)
    expect((await P.api(s, owner).get(`/v1/leads/${held.id}`)).data.client_id).toBe(other.id)
    expect(
      (await P.api(s, owner).post(`/v1/clients/${k.id}/contacts`, { contact_id: 99999999 })).status,
    ).toBe(422)

    // A member who sees only their own leads sees the client's profile without the others' leads.
    const seller = await P.person(s, w, ['leads.view', 'leads.manage'])
    const mine = await P.lead(s, owner, {
      pipeline_id: flow.id,
      client_id: k.id,
      assignee_id: seller.id,
      value_estimate: 7,
    })
    await P.api(s, owner).post(`/v1/leads/${mine.id}/move`, {
      stage_id: P.stageOf(flow, 'won'),
      value_won: 9,
    })
    const full = await P.api(s, owner).get(`/v1/clients/${k.id}`)
    expect(full.data.contacts.map((c: { id: number }) => c.id)).toEqual([contact.id])
    expect(full.data.leads.map((l: { id: number }) => l.id).sort()).toEqual([free.id, mine.id].sort())
    expect(full.data.deals).toMatchObject({ open: 1, open_value: 100, won: 1, won_value: 9, lost: 0 })
    const limited = await P.api(s, seller.who).get(`/v1/clients/${k.id}`)
    expect(limited.status).toBe(200)
    expect(limited.data.leads.map((l: { id: number }) => l.id)).toEqual([mine.id])
    expect(limited.data.deals).toMatchObject({ open: 0, won: 1, won_value: 9 })
    // Without a contacts or leads permission: 403.
    const nobody = await P.person(s, w, ['tickets.view'])
    expect((await P.api(s, nobody.who).get('/v1/clients')).status).toBe(403)
    // Another workspace's client is 404.
    const w2 = await F.workspace(s, { plan: 'pro' })
    const owner2 = P.session(await F.signIn(s, w2.ownerEmail))
    expect((await P.api(s, owner2).get(`/v1/clients/${k.id}`)).status).toBe(404)
    expect((await P.api(s, owner2).del(`/v1/clients/${k.id}`)).status).toBe(404)

    // Unlinking: the contact leaves, the leads keep their client.
    const un = await P.api(s, owner).post(`/v1/clients/${k.id}/contacts`, {
      contact_id: contact.id,
      link: false,
    })
    expect(un.data).toMatchObject({ linked: false, contacts_count: 0 })
    expect((await P.api(s, owner).get(`/v1/leads/${free.id}`)).data.client_id).toBe(k.id)

    expect((await P.api(s, writeKey).del(`/v1/clients/${k.id}`)).status).toBe(403)
    const gone = await P.api(s, owner).del(`/v1/clients/${k.id}`)
    expect(gone.data).toEqual({ id: k.id, deleted: true })
    expect((await P.api(s, owner).get(`/v1/clients/${k.id}`)).status).toBe(404)
    const after = await P.api(s, owner).get(`/v1/leads/${free.id}`)
    expect(after.status).toBe(200)
    expect(after.data.client_id).toBeNull()
    expect((await P.api(s, owner).get(`/v1/contacts/${contact.id}`)).status).toBe(200)
  })

  it('publishes clients.changed after create, change, link and delete', async () => {
    const { c, answer } = await I.socketFor(s, ownerSession, `ws:${w.workspaceId}`)
    expect(answer.op).toBe('subscribed')
    try {
      const k = (await P.api(s, owner).post('/v1/clients', { name: 'PT Evented' })).data
      const made = await c.next((f) => f.event === 'clients.changed')
      expect(made.data).toEqual({ client_id: k.id })
      await P.api(s, owner).del(`/v1/clients/${k.id}`)
      const gone = await c.next((f) => f.event === 'clients.changed')
      expect(gone.data).toEqual({ client_id: k.id })
    } finally {
      c.close()
    }
  })
})
