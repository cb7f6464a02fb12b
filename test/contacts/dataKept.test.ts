import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, type Who } from '../contacts/support'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * What an import or a merge must not lose or duplicate: one live contact per phone within one
 * file, a later row's values over an earlier one's (as separate imports would), and a merged
 * contact's client (company) link.
 */
let s: TestServer
beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
}, 60_000)
afterAll(() => s?.stop())

const upload = async (who: Who, content: string) => {
  const bytes = new TextEncoder().encode(content)
  const res = await s.fetch('/v1/contacts/import', {
    method: 'POST',
    headers: who,
    body: I.form({}, [{ field: 'file', name: 'contacts.csv', type: 'text/csv', bytes }]),
  })
  return { status: res.status, ...((await res.json()) as any) }
}

const rows = <A extends object>(f: (sql: SqlClient.SqlClient) => Effect.Effect<readonly A[], unknown>) =>
  s.run(Effect.flatMap(SqlClient.SqlClient, (c) => f(c) as Effect.Effect<readonly A[], never>))

const fresh = async () => {
  const w = await F.workspace(s, { plan: 'pro' })
  const o = (await F.signIn(s, w.ownerEmail)).headers()
  return { w, o }
}

describe('contacts CSV import', () => {
  it('leaves one live contact per phone when a file names it twice, once with an existing e-mail', async () => {
    const { w, o } = await fresh()
    const x = await api(s, o).post('/v1/contacts', { name: 'Xena', email: 'xena@example.com' })
    expect(x.status).toBe(201)
    // Row 2 names a new phone; row 3 names the same phone together with Xena's e-mail.
    const r = await upload(
      o,
      ['name,phone,email', 'Andi,+6281234500077,', 'Xena,+6281234500077,xena@example.com'].join('\n'),
    )
    expect(r.status).toBe(200)
    const holders = await rows<{ id: number; name: string }>(
      (db) => db`SELECT id, name FROM contacts WHERE workspace_id = ${w.workspaceId}
        AND phone = '+6281234500077' AND merged_into IS NULL AND deleting_at IS NULL ORDER BY id`,
    )
    // The API itself refuses a second holder of a phone:
    const again = await api(s, o).post('/v1/contacts', { name: 'Third', phone: '+6281234500077' })
    expect(again.status).toBe(422)
    expect(holders.length).toBe(1)
  })

  it('takes a later row’s e-mail for the same person, as two separate imports do', async () => {
    const { w, o } = await fresh()
    const one = await upload(o, ['name,phone,email', 'Budi,+6281234500088,budi.lama@example.com'].join('\n'))
    expect(one.data).toMatchObject({ created: 1 })
    const two = await upload(o, ['name,phone,email', 'Budi,+6281234500088,budi.baru@example.com'].join('\n'))
    expect(two.data).toMatchObject({ updated: 1 })
    const separate = await rows<{ email: string }>(
      (db) =>
        db`SELECT email FROM contacts WHERE workspace_id = ${w.workspaceId} AND phone = '+6281234500088'`,
    )
    // The same two rows in one file.
    const { w: w2, o: o2 } = await fresh()
    const both = await upload(
      o2,
      [
        'name,phone,email',
        'Budi,+6281234500088,budi.lama@example.com',
        'Budi,+6281234500088,budi.baru@example.com',
      ].join('\n'),
    )
    const oneFile = await rows<{ email: string }>(
      (db) =>
        db`SELECT email FROM contacts WHERE workspace_id = ${w2.workspaceId} AND phone = '+6281234500088'`,
    )
    expect(separate[0]!.email).toBe('budi.baru@example.com')
    expect(both.data).toMatchObject({ created: 1, updated: 1 })
    expect(oneFile[0]!.email).toBe('budi.baru@example.com')
  })
})

describe('contact merge', () => {
  it("keeps the source's client link when the target has none", async () => {
    const { w, o } = await fresh()
    const client = await api(s, o).post('/v1/clients', { name: 'PT Sumber Makmur' })
    expect(client.status, JSON.stringify(client.error)).toBe(201)
    const source = await api(s, o).post('/v1/contacts', { name: 'Sari', phone: '+6281234500099' })
    const target = await api(s, o).post('/v1/contacts', { name: 'Sari K', email: 'sari@example.com' })
    const link = await api(s, o).post(`/v1/clients/${client.data.id}/contacts`, {
      contact_id: source.data.id,
    })
    expect(link.status, JSON.stringify(link.error)).toBe(200)
    const merged = await api(s, o).post(`/v1/contacts/${target.data.id}/merge`, { source_id: source.data.id })
    expect(merged.status, JSON.stringify(merged.error)).toBe(200)
    const after = await rows<{ client_id: number | null; phone: string | null }>(
      (db) =>
        db`SELECT client_id, phone FROM contacts WHERE id = ${target.data.id} AND workspace_id = ${w.workspaceId}`,
    )
    const profile = await api(s, o).get(`/v1/clients/${client.data.id}`)
    expect(after[0]!.phone).toBe('+6281234500099') // other empty fields are filled from the source
    expect(after[0]!.client_id).toBe(client.data.id)
    expect(profile.data.contacts.map((c: { id: number }) => c.id)).toEqual([target.data.id])
  })
})
