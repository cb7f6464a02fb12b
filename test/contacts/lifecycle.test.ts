import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConversationActor } from '../../actors/inbox/ConversationActor'
import { FileStorage } from '../../engine/storage/FileStorage'
import * as Files from '../../store/files'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { api, type Who } from './support'

/**
 * Spec 2 §4.4 merge and delete, racing inbound messages of the API channel on the contact:
 * nothing lost, nothing orphaned, nothing resurrected.
 */
let s: TestServer
let w: F.Seeded
let owner: Who
let channelKey: string
let channelId: number
beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = (await F.signIn(s, w.ownerEmail)).headers()
  const ch = (await api(s, owner).post('/v1/channels/api', { name: 'Backend' })).data
  channelKey = ch.credentials.key
  channelId = ch.id
})
afterAll(() => s?.stop())

let seq = 0
const inbound = (thread: string, email: string, text = 'halo') =>
  s.fetch(
    '/v1/channel-api/messages',
    F.json(
      { conversation_id: thread, contact: { email, name: 'Pelanggan' }, message: { id: `m-${seq++}`, text } },
      F.bearer(channelKey),
    ),
  )

const contactOfThread = async (thread: string) => {
  const [row] = await I.sql<{ contact_id: number }>(
    s,
    (db) => db`SELECT c.contact_id FROM channel_api_threads t JOIN conversations c ON c.id = t.conversation_id
      WHERE t.channel_id = ${channelId} AND t.external_id = ${thread}`,
  )
  return row?.contact_id ?? null
}

const orphans = async () =>
  (
    await I.sql<{ n: number }>(
      s,
      (db) =>
        db`SELECT count(*)::int AS n FROM conversations WHERE workspace_id = ${w.workspaceId} AND kind = 'chat' AND contact_id IS NULL`,
    )
  )[0]!.n

const messagesWith = (clientIds: readonly string[]) =>
  I.sql<{ client_id: string; contact_id: number | null }>(
    s,
    (
      db,
    ) => db`SELECT m.client_id, c.contact_id FROM messages m JOIN conversations c ON c.id = m.conversation_id
      WHERE c.workspace_id = ${w.workspaceId} AND m.client_id IN ${db.in(clientIds)}`,
  )

describe('merge', () => {
  it('moves conversations, labels, notes and values; the source disappears', async () => {
    const o = api(s, owner)
    const label = (await o.post('/v1/labels', { name: 'Dari sumber' })).data
    await o.post('/v1/contact-fields', { label: 'Asal', type: 'text' })
    const target = (await o.post('/v1/contacts', { name: 'Target', email: 'target@example.com' })).data
    const source = (
      await o.post('/v1/contacts', {
        name: 'Sumber',
        phone: '081234599001',
        label_ids: [label.id],
        custom: { asal: 'Surabaya' },
      })
    ).data
    await o.post(`/v1/contacts/${source.id}/notes`, { body: 'catatan sumber' })
    const conv = await I.conversation(s, w, { contactId: source.id })
    const r = await o.post(`/v1/contacts/${target.id}/merge`, { source_id: source.id })
    expect(r.status).toBe(200)
    expect(r.data).toMatchObject({
      id: target.id,
      name: 'Target',
      email: 'target@example.com',
      phone: '+6281234599001',
      label_ids: [label.id],
      custom: { asal: 'Surabaya' },
    })
    expect((await o.get(`/v1/contacts/${source.id}`)).status).toBe(404)
    expect((await o.get(`/v1/contacts/${target.id}/notes`)).data.map((n: any) => n.body)).toEqual([
      'catatan sumber',
    ])
    expect((await o.get(`/v1/interactions/${conv.id}`)).data.contact.id).toBe(target.id)
    const timeline = await o.get(`/v1/contacts/${target.id}/timeline`)
    expect(timeline.data[0].data).toMatchObject({ kind: 'merged', data: { source_id: source.id } })
    expect((await o.post(`/v1/contacts/${target.id}/merge`, { source_id: target.id })).status).toBe(422)
    expect((await o.post(`/v1/contacts/${target.id}/merge`, { source_id: source.id })).status).toBe(422)
    expect((await o.post(`/v1/contacts/${source.id}/merge`, { source_id: target.id })).status).toBe(404)
    const keyWho = F.bearer(await F.apiKey(s, w))
    expect((await api(s, keyWho).post(`/v1/contacts/${target.id}/merge`, { source_id: 1 })).status).toBe(403)
  })

  it('races inbound messages on the source: every message lands, on the target', async () => {
    const o = api(s, owner)
    const email = `race-src-${Date.now()}@example.com`
    expect((await inbound('src-main', email)).status).toBe(201)
    const sourceId = (await contactOfThread('src-main'))!
    const target = (await o.post('/v1/contacts', { name: 'Tujuan' })).data
    const sends: Promise<Response>[] = []
    const ids: string[] = []
    for (let i = 0; i < 30; i++) {
      const thread = i % 3 === 0 ? `src-new-${i}` : 'src-main'
      ids.push(`api:m-${seq}`)
      sends.push(inbound(thread, email, `pesan ${i}`))
      if (i === 10) sends.push(o.post(`/v1/contacts/${target.id}/merge`, { source_id: sourceId }) as never)
    }
    const results = await Promise.all(sends)
    const statuses = results.map((r) => ('status' in r ? r.status : 0))
    expect(statuses.filter((x) => x !== 201 && x !== 200)).toEqual([])
    const stored = await messagesWith(ids)
    expect(stored).toHaveLength(30)
    expect(new Set(stored.map((m) => m.contact_id))).toEqual(new Set([target.id]))
    expect((await o.get(`/v1/contacts/${sourceId}`)).status).toBe(404)
    expect(await orphans()).toBe(0)
    // After the merge, the source's address finds the target.
    expect((await inbound('src-after', email)).status).toBe(201)
    expect(await contactOfThread('src-after')).toBe(target.id)
  })
})

describe('delete', () => {
  it('deletes conversations, messages, media (also on disk), notes and timeline', async () => {
    const o = api(s, owner)
    const c = (await o.post('/v1/contacts', { name: 'Hapus', phone: '081234599002' })).data
    await o.post(`/v1/contacts/${c.id}/notes`, { body: 'x' })
    const conv = await I.conversation(s, w, { contactId: c.id })
    const file = await s.run(
      Files.save(w.workspaceId, { name: 'a.jpg', mime: 'image/jpeg', bytes: I.bytes(100) }, null),
    )
    await s.run(
      Effect.flatMap(ConversationActor, (a) =>
        a.ask(conv.id, {
          _tag: 'Append',
          direction: 'in',
          type: 'image',
          body: '',
          sender: { name: 'x' },
          fileId: file.id,
        }),
      ),
    )
    const keyWho = F.bearer(await F.apiKey(s, w))
    expect((await api(s, keyWho).del(`/v1/contacts/${c.id}`)).status).toBe(403)
    expect((await o.del(`/v1/contacts/${c.id}`)).status).toBe(200)
    expect((await o.get(`/v1/contacts/${c.id}`)).status).toBe(404)
    expect((await o.get(`/v1/interactions/${conv.id}`)).status).toBe(404)
    expect(await s.run(Files.byId(w.workspaceId, file.id))).toBeNull()
    expect(await s.run(Effect.flatMap(FileStorage, (st) => st.read(file.storage_key)))).toBeNull()
    const left = await I.sql<{ n: number }>(
      s,
      (db) => db`SELECT (SELECT count(*) FROM contact_notes WHERE contact_id = ${c.id})
        + (SELECT count(*) FROM contact_events WHERE contact_id = ${c.id})
        + (SELECT count(*) FROM messages WHERE conversation_id = ${conv.id}) AS n`,
    )
    expect(Number(left[0]!.n)).toBe(0)
    expect((await o.del(`/v1/contacts/${c.id}`)).status).toBe(404)
  })

  it('races inbound messages: nothing half-deleted, no orphan, later messages start a new contact', async () => {
    const o = api(s, owner)
    const email = `race-del-${Date.now()}@example.com`
    expect((await inbound('del-main', email)).status).toBe(201)
    const contactId = (await contactOfThread('del-main'))!
    const sends: Promise<Response | { status: number }>[] = []
    const ids: string[] = []
    for (let i = 0; i < 30; i++) {
      ids.push(`api:m-${seq}`)
      sends.push(inbound(i % 3 === 0 ? `del-new-${i}` : 'del-main', email, `pesan ${i}`))
      if (i === 10) sends.push(o.del(`/v1/contacts/${contactId}`))
    }
    const results = await Promise.all(sends)
    expect(results.map((r) => r.status).filter((x) => x !== 201 && x !== 200)).toEqual([])
    expect((await o.get(`/v1/contacts/${contactId}`)).status).toBe(404)
    const [gone] = await I.sql<{ n: number }>(
      s,
      (db) => db`SELECT count(*)::int AS n FROM contacts WHERE id = ${contactId}`,
    )
    expect(gone!.n).toBe(0)
    // Each message was deleted with the contact, or arrived after and lives with a new contact.
    const stored = await messagesWith(ids)
    for (const m of stored) {
      expect(m.contact_id).not.toBeNull()
      expect(m.contact_id).not.toBe(contactId)
    }
    expect(await orphans()).toBe(0)
    // A message now finds (or makes) a live contact, never the deleted one.
    expect((await inbound('del-main', email)).status).toBe(201)
    const now = await contactOfThread('del-main')
    expect(now).not.toBe(contactId)
    expect((await o.get(`/v1/contacts/${now}`)).status).toBe(200)
  })
})
