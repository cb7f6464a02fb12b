import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, type Who } from '../contacts/support'
import * as I from '../inbox/support'
import { png } from '../livechat/support'
import { linkedNumber } from '../msgapp/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { advance, ENV, get, recipients, warmedUp } from './support'

/**
 * A broadcast's attachment is also the file of every message it sent (and of its test sends): the
 * inbox must keep showing those when the broadcast is deleted or its draft's attachment changes.
 * Found by the review of session 37: the broadcast removed the file, and every sent message in the
 * customers' conversations lost its picture.
 */
let s: TestServer
let owner: Who
let number: Awaited<ReturnType<typeof linkedNumber>>
let contactId = 0

beforeAll(async () => {
  s = await startTestServer({ ...ENV, REDIS_URL: '' })
  const w = await F.workspace(s, { plan: 'pro' })
  const session = await F.signIn(s, w.ownerEmail)
  owner = session.headers()
  number = await linkedNumber(s, session, '6281277800001')
  await warmedUp(s, number.ch.id)
  contactId = (await api(s, owner).post('/v1/contacts', { name: 'Dewi', phone: '+6281277811101' })).data.id
}, 60_000)
afterAll(() => s?.stop())

const image = new Uint8Array(png(4, 4))

const upload = (id: number, bytes: Uint8Array) =>
  s.fetch(`/v1/broadcasts/${id}/media`, {
    method: 'POST',
    headers: owner,
    body: I.form({}, [{ field: 'file', name: 'promo.png', type: 'image/png', bytes }]),
  })

/** The message's media as the inbox serves it: status and bytes. */
const mediaOf = async (messageId: number) => {
  const r = await s.fetch(`/v1/messages/${messageId}/media`, { headers: owner })
  return { status: r.status, bytes: new Uint8Array(await r.arrayBuffer()) }
}

const draftWithImage = async (name: string) => {
  const o = api(s, owner)
  const b = await o.post('/v1/broadcasts', {
    name,
    channel_id: number.ch.id,
    audience: { contact_ids: [contactId] },
    messages: [{ text: 'Halo {{first_name}}, katalog baru!' }],
    settings: { pace_per_minute: 30, random_delay_seconds: 0, quiet_hours: null, skip_recent_hours: 0 },
  })
  expect(b.status, JSON.stringify(b.error)).toBe(201)
  expect((await upload(b.data.id, image)).status).toBe(200)
  return b.data.id as number
}

describe('the attachment of sent broadcast messages', () => {
  it('stays in the inbox when the completed broadcast is deleted', async () => {
    const o = api(s, owner)
    const id = await draftWithImage('Katalog')
    expect((await o.post(`/v1/broadcasts/${id}/schedule`, { risk_ack: true })).status).toBe(200)
    for (let i = 0; i < 200; i++) {
      if ((await get(s, owner, `/v1/broadcasts/${id}`)).data.status === 'completed') break
      await advance(s, 2500)
      await new Promise((r) => setTimeout(r, 30))
    }
    const [r] = await recipients(s, id)
    expect(r).toMatchObject({ state: 'sent' })
    expect(await mediaOf(r!.message_id!)).toEqual({ status: 200, bytes: image })
    expect((await o.del(`/v1/broadcasts/${id}`)).status).toBe(200)
    expect(await mediaOf(r!.message_id!)).toEqual({ status: 200, bytes: image })
  })

  it("stays on a test send when the draft's attachment is replaced, removed or the draft deleted", async () => {
    const o = api(s, owner)
    const id = await draftWithImage('Uji')
    const sendTest = async () => {
      const t = await o.post(`/v1/broadcasts/${id}/test`, { phone: '+6281277811199' })
      expect(t.status, JSON.stringify(t.error)).toBe(200)
      return t.data.message.id as number
    }
    const first = await sendTest()
    expect((await upload(id, new Uint8Array(png(6, 6)))).status).toBe(200)
    expect(await mediaOf(first)).toEqual({ status: 200, bytes: image })
    const second = await sendTest()
    expect((await o.del(`/v1/broadcasts/${id}/media`)).status).toBe(200)
    expect(await mediaOf(second)).toEqual({ status: 200, bytes: new Uint8Array(png(6, 6)) })
    expect((await upload(id, image)).status).toBe(200)
    const third = await sendTest()
    expect((await o.del(`/v1/broadcasts/${id}`)).status).toBe(200)
    expect(await mediaOf(third)).toEqual({ status: 200, bytes: image })
  })

  it('stays the broadcast’s when the contact a test went to is deleted', async () => {
    const o = api(s, owner)
    const id = await draftWithImage('Hapus kontak')
    const t = await o.post(`/v1/broadcasts/${id}/test`, { phone: '+6281277811188' })
    expect(t.status, JSON.stringify(t.error)).toBe(200)
    const tested = (await get(s, owner, `/v1/contacts?q=${encodeURIComponent('6281277811188')}`)).data
    expect(tested).toHaveLength(1)
    // Deleting the contact removes its conversation and the files only it used: this one is still
    // the broadcast's attachment.
    expect((await o.del(`/v1/contacts/${tested[0].id}`)).status).toBe(200)
    const b = (await get(s, owner, `/v1/broadcasts/${id}`)).data
    expect(b.attachment).toMatchObject({ name: 'promo.png' })
    const got = await s.fetch(b.attachment.url, { headers: owner })
    expect(got.status).toBe(200)
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(image)
  })
})
