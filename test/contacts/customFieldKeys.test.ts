import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as P from '../pipeline/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * Custom field values are a record's own: a key that names something every object inherits
 * (`constructor`, made from the label "Constructor") reads as "no value" where none is stored,
 * in details, exports and change logs alike (spec 2 §2 custom fields).
 */
let s: TestServer
let w: F.Seeded
let owner: P.Who

beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  owner = P.session(await F.signIn(s, w.ownerEmail))
}, 60_000)
afterAll(() => s?.stop())

const csvOf = async (path: string) => {
  const r = await s.fetch(path, { headers: owner })
  expect(r.status).toBe(200)
  return (await r.text())
    .replace(/^\uFEFF/, '')
    .trim()
    .split('\n')
}

describe('a custom field keyed `constructor`', () => {
  it('is empty where no value is stored: lead and contact details, CSV exports, ticket log', async () => {
    const o = P.api(s, owner)
    for (const entity of ['lead', 'contact', 'ticket']) {
      const f = await o.post('/v1/custom-fields', { entity, label: 'Constructor', type: 'text' })
      expect(f.status).toBe(201)
      expect(f.data.key).toBe('constructor')
    }
    const flow = await P.workflow(s, owner)
    const bare = await P.lead(s, owner, { pipeline_id: flow.id, title: 'Bare' })
    const filled = await P.lead(s, owner, {
      pipeline_id: flow.id,
      title: 'Filled',
      custom: { constructor: 'PT Bangun' },
    })
    const lead = await o.get(`/v1/leads/${bare.id}`)
    expect(lead.data.custom).toEqual({})
    expect(lead.data.custom_fields).toEqual([expect.objectContaining({ key: 'constructor', value: null })])
    const leads = await csvOf(`/v1/pipeline/export?type=leads&pipeline_id=${flow.id}`)
    expect(leads[0]!.split(',').at(-1)).toBe('constructor')
    const byTitle = (t: string) => leads.find((line) => line.includes(`,${t},`))!
    expect(byTitle('Bare').split(',').at(-1)).toBe('')
    expect(byTitle('Filled').split(',').at(-1)).toBe('PT Bangun')
    expect(filled.custom).toEqual({ constructor: 'PT Bangun' })

    const contact = await o.post('/v1/contacts', { name: 'Tanpa Nilai', phone: P.phone() })
    const detail = await o.get(`/v1/contacts/${contact.data.id}`)
    expect(detail.data.custom_fields).toEqual([expect.objectContaining({ key: 'constructor', value: null })])
    const contacts = await csvOf('/v1/contacts/export')
    const row = contacts.find((line) => line.includes('Tanpa Nilai'))!
    expect(row.split(',').at(-1)).toBe('')

    // Clearing a value the ticket never had changes nothing, and logs nothing.
    const team = await P.team(s, w, [])
    const t = await o.post('/v1/tickets', { subject: 'Cek', team_id: team })
    const cleared = await o.patch(`/v1/tickets/${t.data.id}`, { custom: { constructor: null } })
    expect(cleared.status).toBe(200)
    const log = await o.get(`/v1/tickets/${t.data.id}/messages`)
    expect(log.meta.events.map((e: { kind: string }) => e.kind)).toEqual(['created'])
  })
})
