import * as fs from 'node:fs'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { encryptedStream, proto } from 'baileys'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FakeSocket } from '../../connectors/msgapp/TransportTest'
import { contact, setMember, socketFor } from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { body, ENV, linkedNumber, textFrom, waId, waitFor } from './support'

/**
 * What a number reports besides plain messages, as Baileys reports it: edits and revokes (both the
 * protocol message in `messages.upsert` and the `messages.update` Baileys derives from it),
 * presence, stickers, groups (with their photo), and calls.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let media: http.Server
const files = new Map<string, { bytes: Buffer; type: string }>()
let mediaUrl = ''
beforeAll(async () => {
  s = await startTestServer(ENV)
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  media = http.createServer((req, res) => {
    const f = files.get(req.url ?? '')
    if (!f) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-length': f.bytes.length, 'content-type': f.type }).end(f.bytes)
  })
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r))
  mediaUrl = `http://127.0.0.1:${(media.address() as AddressInfo).port}`
})
afterAll(async () => {
  media?.close()
  await s?.stop()
})

const get = async (p: string, session = owner) => s.fetch(p, { headers: session.headers() })
const conversationsOf = async (channelId: number) =>
  (await body(await get(`/v1/interactions?channel_ids=${channelId}`))).data as Array<Record<string, any>>
const messagesOf = async (id: number) =>
  (await body(await get(`/v1/interactions/${id}/messages`))).data as Array<Record<string, any>>
const patch = (id: number, fields: Record<string, unknown>) =>
  s.fetch(`/v1/channels/${id}`, { ...F.json(fields, owner.headers()), method: 'PATCH' })
const now = () => Math.floor(Date.now() / 1000)
const data = (f: Record<string, unknown>) => (f.data ?? {}) as Record<string, any>

/** A chat with one customer message, its conversation, and a socket on `conv:{id}`. */
const chat = async (phone: string, customer: string, text: string) => {
  const { ch, sock } = await linkedNumber(s, owner, phone)
  const first = textFrom(sock, customer, text)
  const conv = await waitFor(async () => (await conversationsOf(ch.id))[0])
  const { c } = await socketFor(s, owner, `conv:${conv.id}`)
  return { ch, sock, conv, first, ws: c, jid: `${customer}@s.whatsapp.net` }
}

/** Emits what Baileys emits for an edit: the protocol message, then the update it derives. */
const editFrom = (
  sock: FakeSocket,
  jid: string,
  target: string,
  text: string,
  forms: { upsert: boolean; update: boolean },
) => {
  const protocolMessage = {
    key: { remoteJid: jid, fromMe: false, id: target },
    type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
    editedMessage: { conversation: text },
    timestampMs: Date.now(),
  }
  if (forms.upsert)
    sock.emit('messages.upsert', {
      type: 'notify',
      messages: [
        {
          key: { remoteJid: jid, fromMe: false, id: waId() },
          message: { editedMessage: { message: { protocolMessage } } },
          messageTimestamp: now(),
        },
      ],
    })
  if (forms.update)
    sock.emit('messages.update', [
      {
        key: { remoteJid: jid, fromMe: false, id: target },
        update: { message: { editedMessage: { message: { conversation: text } } }, messageTimestamp: now() },
      },
    ])
}

const revokeFrom = (sock: FakeSocket, jid: string, target: string) => {
  const key = { remoteJid: jid, fromMe: false, id: waId() }
  sock.emit('messages.upsert', {
    type: 'notify',
    messages: [
      {
        key,
        message: {
          protocolMessage: {
            key: { remoteJid: jid, fromMe: false, id: target },
            type: proto.Message.ProtocolMessage.Type.REVOKE,
          },
        },
        messageTimestamp: now(),
      },
    ],
  })
  sock.emit('messages.update', [
    {
      key: { remoteJid: jid, fromMe: false, id: target },
      update: { message: null, messageStubType: proto.WebMessageInfo.StubType.REVOKE, key },
    },
  ])
}

const updated = (ws: Awaited<ReturnType<typeof chat>>['ws']) => ws.next((f) => f.event === 'message.updated')

describe('messaging-app events', () => {
  it('customer edits change the text once (message.updated); revokes unsend it once', async () => {
    const { sock, conv, first, ws, jid } = await chat('6281200000501', '6281399995001', 'Harga 10rb?')
    const second = textFrom(sock, '6281399995001', 'Warna merah')
    await ws.next((f) => f.event === 'message.created' && data(f).body === 'Warna merah')
    const [a, b] = (await messagesOf(conv.id)).filter((m) => m.direction === 'in')
    expect([a!.body, b!.body]).toEqual(['Harga 10rb?', 'Warna merah'])

    // The protocol message alone (as in a redelivered batch).
    editFrom(sock, jid, first, 'Harga 12rb?', { upsert: true, update: false })
    const e1 = await updated(ws)
    expect(e1.data).toMatchObject({ id: a!.id, body: 'Harga 12rb?', deleted_at: null })
    expect(e1.data.edited_at).toMatch(/Z$/)
    // The derived update alone.
    editFrom(sock, jid, second, 'Warna biru', { upsert: false, update: true })
    const e2 = await updated(ws)
    expect(e2.data).toMatchObject({ id: b!.id, body: 'Warna biru' })
    // Both, as a live socket reports one edit: a single message.updated.
    editFrom(sock, jid, second, 'Warna hijau', { upsert: true, update: true })
    const e3 = await updated(ws)
    expect(e3.data).toMatchObject({ id: b!.id, body: 'Warna hijau' })

    // A revoke (protocol message + derived stub update): unsent once, content gone.
    revokeFrom(sock, jid, first)
    const r = await updated(ws)
    expect(r.data).toMatchObject({ id: a!.id, body: '', media: null })
    expect(r.data.deleted_at).toMatch(/Z$/)
    // The next update is the next change: neither the edit nor the revoke was announced twice.
    editFrom(sock, jid, first, 'Too late', { upsert: true, update: true })
    revokeFrom(sock, jid, second)
    const next = await updated(ws)
    expect(next.data).toMatchObject({ id: b!.id, body: '' })
    expect(next.data.deleted_at).toMatch(/Z$/)

    const stored = (await messagesOf(conv.id)).filter((m) => m.direction === 'in')
    expect(stored.map((m) => [m.body, m.deleted_at !== null, m.edited_at !== null])).toEqual([
      ['', true, true],
      ['', true, true],
    ])
    // An edit or revoke of an unknown message changes nothing and creates nothing.
    editFrom(sock, jid, 'UNKNOWNID', 'x', { upsert: true, update: true })
    textFrom(sock, '6281399995001', 'Sync point')
    await ws.next((f) => f.event === 'message.created' && data(f).body === 'Sync point')
    expect((await messagesOf(conv.id)).length).toBe(3)
    expect(ws.frames.filter((f) => f.event === 'message.updated')).toEqual([])
    ws.close()
  })

  it('a customer can neither edit nor unsend the team’s reply, nor another chat’s or member’s message', async () => {
    const { ch, sock, conv, first, ws, jid } = await chat(
      '6281200000506',
      '6281399995006',
      'Berapa harganya?',
    )
    const res = await s.fetch(
      `/v1/interactions/${conv.id}/messages`,
      F.json({ text: 'Harga 150rb' }, owner.headers()),
    )
    expect(res.status).toBe(201)
    const reply = (await body(res)).data
    const replyWa = await waitFor(async () => sock.sent.length > 0 && sock.sent[0]!.id)
    const replyBody = (await messagesOf(conv.id)).find((m) => m.id === reply.id)!.body
    // The customer's phone sends an edit and a revoke naming the team's reply (as Baileys hands
    // them over: the protocol message, then the update derived from it).
    editFrom(sock, jid, replyWa, 'Harga 15rb saja', { upsert: true, update: true })
    revokeFrom(sock, jid, replyWa)
    // Another customer names the first customer's message.
    const otherJid = '6281399995066@s.whatsapp.net'
    textFrom(sock, '6281399995066', 'Saya juga mau')
    editFrom(sock, otherJid, first, 'Tidak jadi beli', { upsert: true, update: true })
    revokeFrom(sock, otherJid, first)
    // In a group, one member names another member's message.
    const gjid = '120363041234567806@g.us'
    const group = (participant: string, message: Record<string, unknown>, id = waId()) =>
      sock.emit('messages.upsert', {
        type: 'notify',
        messages: [
          { key: { remoteJid: gjid, fromMe: false, id, participant }, message, messageTimestamp: now() },
        ],
      })
    const rina = '6281399995061@s.whatsapp.net'
    const groupMsg = waId()
    group(rina, { conversation: 'Pesan 10 pcs' }, groupMsg)
    group('6281399995062@s.whatsapp.net', {
      protocolMessage: {
        key: { remoteJid: gjid, fromMe: false, id: groupMsg, participant: rina },
        type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
        editedMessage: { conversation: 'Pesan 100 pcs' },
      },
    })
    group('6281399995062@s.whatsapp.net', { conversation: 'Saya 5 pcs' })
    const groupConv = await waitFor(async () =>
      (await conversationsOf(ch.id)).find((c) => c.kind === 'group'),
    )
    const inGroup = await waitFor(async () => {
      const list = await messagesOf(groupConv.id)
      return list.length === 2 && list
    })
    expect(inGroup.map((m) => [m.body, m.edited_at])).toEqual([
      ['Pesan 10 pcs', null],
      ['Saya 5 pcs', null],
    ])
    // The member's own edit applies.
    group(rina, {
      protocolMessage: {
        key: { remoteJid: gjid, fromMe: false, id: groupMsg, participant: rina },
        type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
        editedMessage: { conversation: 'Pesan 12 pcs' },
      },
    })
    // The customer's own edit still applies: the sync point.
    editFrom(sock, jid, first, 'Berapa harganya kak?', { upsert: true, update: true })
    await ws.next((f) => f.event === 'message.updated' && data(f).body === 'Berapa harganya kak?')
    await waitFor(async () => (await messagesOf(groupConv.id))[0]?.body === 'Pesan 12 pcs')

    const mine = await messagesOf(conv.id)
    expect(mine.find((m) => m.id === reply.id)).toMatchObject({
      body: replyBody,
      deleted_at: null,
      edited_at: null,
    })
    expect(mine.find((m) => m.direction === 'in')).toMatchObject({
      body: 'Berapa harganya kak?',
      deleted_at: null,
    })
    const changed = (f: Record<string, unknown>) => data(f).edited_at || data(f).deleted_at
    expect(ws.frames.filter((f) => f.event === 'message.updated' && changed(f))).toEqual([])
    ws.close()
  })

  it('presence: composing is typing on the conversation, paused stops it', async () => {
    const { sock, conv, ws, jid } = await chat('6281200000502', '6281399995002', 'Halo')
    const presence = (state: 'composing' | 'recording' | 'paused' | 'available') =>
      sock.emit('presence.update', { id: jid, presences: { [jid]: { lastKnownPresence: state } } })
    presence('composing')
    const on = await ws.next((f) => f.event === 'typing')
    expect(on.data).toEqual({ user_id: null, name: null, typing: true, customer: true })
    presence('paused')
    const off = await ws.next((f) => f.event === 'typing')
    expect(off.data).toEqual({ user_id: null, name: null, typing: false, customer: true })
    presence('recording')
    expect((await ws.next((f) => f.event === 'typing')).data.typing).toBe(true)
    presence('available')
    expect((await ws.next((f) => f.event === 'typing')).data.typing).toBe(false)
    // Presence of a chat with no conversation is ignored.
    const other = '6281399995099@s.whatsapp.net'
    sock.emit('presence.update', { id: other, presences: { [other]: { lastKnownPresence: 'composing' } } })
    expect((await conversationsOf(conv.channel.id)).length).toBe(1)
    ws.close()
  })

  it('stickers arrive as type sticker with the file stored and reachable', async () => {
    const { sock, conv, ws, jid } = await chat('6281200000503', '6281399995003', 'Halo')
    const webp = Buffer.concat([
      Buffer.from('RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f', 'latin1'),
      Buffer.alloc(9, 1),
    ])
    const enc = await encryptedStream(webp, 'sticker')
    files.set('/sticker.enc', { bytes: fs.readFileSync(enc.encFilePath), type: 'application/octet-stream' })
    sock.emit('messages.upsert', {
      type: 'notify',
      messages: [
        {
          key: { remoteJid: jid, fromMe: false, id: waId() },
          message: {
            stickerMessage: {
              url: `${mediaUrl}/sticker.enc`,
              mimetype: 'image/webp',
              mediaKey: enc.mediaKey,
              fileEncSha256: enc.fileEncSha256,
              fileSha256: enc.fileSha256,
              fileLength: enc.fileLength,
              isAnimated: false,
            },
          },
          messageTimestamp: now(),
          pushName: 'Budi',
        },
      ],
    })
    const m = await ws.next((f) => f.event === 'message.created' && data(f).type === 'sticker')
    expect(m.data).toMatchObject({ direction: 'in', type: 'sticker', body: '' })
    expect(m.data.media).toEqual({
      url: `/v1/messages/${m.data.id}/media`,
      name: 'sticker.webp',
      mime: 'image/webp',
      size: webp.length,
    })
    const file = await get(m.data.media.url)
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('image/webp')
    expect(Buffer.from(await file.arrayBuffer()).equals(webp)).toBe(true)
    expect((await messagesOf(conv.id)).find((x) => x.id === m.data.id)?.type).toBe('sticker')
    ws.close()
  })

  it('groups: kind=group conversation, GET /groups/{id} with members matched, photo, 404 elsewhere; groups:false skips them', async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000504')
    const rina = await contact(s, w, { name: 'Rina Reseller', phone: '+6281399995041' })
    const gjid = '120363041234567890@g.us'
    sock.groups.set(gjid, {
      id: gjid,
      subject: 'Reseller Jakarta',
      owner: undefined,
      participants: [
        { id: '6281399995041@s.whatsapp.net', admin: 'admin' },
        { id: '99887766554433@lid', phoneNumber: '6281399995042@s.whatsapp.net', admin: null },
        { id: '11223344556677@lid', admin: null },
      ],
    })
    const jpeg = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex')
    files.set('/group.jpg', { bytes: jpeg, type: 'image/jpeg' })
    sock.avatars.set(gjid, `${mediaUrl}/group.jpg`)
    const { c: ws } = await socketFor(s, owner, `ws:${w.workspaceId}`)
    sock.emit('messages.upsert', {
      type: 'notify',
      messages: [
        {
          key: { remoteJid: gjid, fromMe: false, id: waId(), participant: '6281399995041@s.whatsapp.net' },
          message: { conversation: 'Stok aman?' },
          messageTimestamp: now(),
          pushName: 'Rina',
        },
      ],
    })
    const created = await ws.next(
      (f) => f.event === 'inbox.changed' && data(f).reason === 'conversation.created',
    )
    const conv = (await conversationsOf(ch.id)).find((c) => c.id === created.data.interaction_id)!
    expect(conv.kind).toBe('group')
    expect(conv.contact).toBeNull()
    expect(conv.group.name).toBe('Reseller Jakarta')
    const gid = conv.group.id as number
    const [msg] = await messagesOf(conv.id)
    expect(msg).toMatchObject({ direction: 'in', body: 'Stok aman?' })
    expect(msg!.sender).toMatchObject({ name: 'Rina', jid: '6281399995041@s.whatsapp.net' })
    expect(
      (await body(await get(`/v1/interactions?kind=group&channel_ids=${ch.id}`))).data.map(
        (c: { id: number }) => c.id,
      ),
    ).toEqual([conv.id])

    const res = await get(`/v1/groups/${gid}`)
    expect(res.status).toBe(200)
    const g = (await body(res)).data
    expect(g).toEqual({
      id: gid,
      name: 'Reseller Jakarta',
      channel_id: ch.id,
      avatar_url: `/v1/groups/${gid}/avatar`,
      members: [
        {
          jid: '6281399995041@s.whatsapp.net',
          name: null,
          phone: '+6281399995041',
          contact: { id: rina.id, name: 'Rina Reseller' },
        },
        { jid: '99887766554433@lid', name: null, phone: '+6281399995042', contact: null },
        { jid: '11223344556677@lid', name: null, phone: null, contact: null },
      ],
      interactions: [expect.objectContaining({ id: conv.id, kind: 'group' })],
    })
    const photo = await get(g.avatar_url)
    expect(photo.status).toBe(200)
    expect(photo.headers.get('content-type')).toBe('image/jpeg')
    expect(Buffer.from(await photo.arrayBuffer()).equals(jpeg)).toBe(true)

    // A member sees the group only with access to its number, and only the conversations they may see.
    const agent = await F.member(s, w)
    const agentSession = await F.signIn(s, agent.email)
    await setMember(s, w, agent.id, { viewAll: false, channelIds: [ch.id] })
    // Assigned to the owner: not the agent's to see without view-all.
    const assigned = await s.fetch(`/v1/interactions/${conv.id}`, {
      ...F.json({ assignee_id: w.ownerId }, owner.headers()),
      method: 'PATCH',
    })
    expect(assigned.status).toBe(200)
    const asAgent = await get(`/v1/groups/${gid}`, agentSession)
    expect(asAgent.status).toBe(200)
    const seen = (await body(asAgent)).data
    expect(seen.members).toEqual(g.members)
    expect(seen.interactions).toEqual([])
    expect((await get(`/v1/groups/${gid}/avatar`, agentSession)).status).toBe(200)
    await setMember(s, w, agent.id, { viewAll: true })
    expect(
      (await body(await get(`/v1/groups/${gid}`, agentSession))).data.interactions.map(
        (c: { id: number }) => c.id,
      ),
    ).toEqual([conv.id])
    const elsewhere = await s.fetch('/v1/channels/api', F.json({ name: 'Shop API' }, owner.headers()))
    await setMember(s, w, agent.id, { channelIds: [(await body(elsewhere)).data.id] })
    expect((await get(`/v1/groups/${gid}`, agentSession)).status).toBe(404)
    expect((await get(`/v1/groups/${gid}/avatar`, agentSession)).status).toBe(404)

    // Another workspace sees neither the group nor its photo.
    const other = await F.workspace(s, { plan: 'pro' })
    const stranger = await F.signIn(s, other.ownerEmail)
    const notFound = await get(`/v1/groups/${gid}`, stranger)
    expect(notFound.status).toBe(404)
    expect((await body(notFound)).error.code).toBe('not_found')
    expect((await get(`/v1/groups/${gid}/avatar`, stranger)).status).toBe(404)
    expect((await get('/v1/groups/999999999')).status).toBe(404)

    // The phone reports the photo removed, then changed.
    sock.emit('contacts.update', [{ id: gjid, imgUrl: 'removed' }])
    await waitFor(async () => (await body(await get(`/v1/groups/${gid}`))).data.avatar_url === null)
    expect((await get(`/v1/groups/${gid}/avatar`)).status).toBe(404)
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')
    files.set('/group2.png', { bytes: png, type: 'image/png' })
    sock.avatars.set(gjid, `${mediaUrl}/group2.png`)
    sock.emit('contacts.update', [{ id: gjid, imgUrl: 'changed' }])
    const again = await waitFor(async () => {
      const r = await get(`/v1/groups/${gid}/avatar`)
      return r.status === 200 ? r : null
    })
    expect(Buffer.from(await again.arrayBuffer()).equals(png)).toBe(true)

    // groups: false ignores group chats (new and known); direct chats still arrive.
    expect((await patch(ch.id, { groups: false })).status).toBe(200)
    for (const jid of [gjid, '120363049999999999@g.us']) {
      sock.emit('messages.upsert', {
        type: 'notify',
        messages: [
          {
            key: { remoteJid: jid, fromMe: false, id: waId(), participant: '6281399995041@s.whatsapp.net' },
            message: { conversation: 'Ignored' },
            messageTimestamp: now(),
          },
        ],
      })
    }
    textFrom(sock, '6281399995043', 'Direct')
    const direct = await waitFor(async () => (await conversationsOf(ch.id)).find((c) => c.kind === 'chat'))
    expect((await conversationsOf(ch.id)).map((c) => c.id).sort()).toEqual([conv.id, direct.id].sort())
    expect((await messagesOf(conv.id)).length).toBe(1)
    ws.close()
  })

  it('calls: with reject_calls an offer is rejected and call_reply sent; without it nothing happens', async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000505')
    const jid = '6281399995005@s.whatsapp.net'
    const call = (id: string, status: 'offer' | 'ringing' | 'terminate') =>
      sock.emit('call', [{ chatId: jid, from: jid, id, date: new Date(), offline: false, status }])
    const syncPoint = async (text: string) => {
      textFrom(sock, '6281399995005', text)
      await waitFor(async () => {
        const conv = (await conversationsOf(ch.id))[0]
        return conv && (await messagesOf(conv.id)).some((m) => m.body === text)
      })
    }

    // Off by default: nothing happens.
    call('CALL0', 'offer')
    await syncPoint('one')
    expect(sock.calls.filter((c) => c.op === 'rejectCall')).toEqual([])

    expect(
      (await patch(ch.id, { reject_calls: true, call_reply: 'Maaf, kami hanya melayani chat.' })).status,
    ).toBe(200)
    call('CALL1', 'offer')
    await waitFor(async () => sock.calls.some((c) => c.op === 'rejectCall'))
    expect(sock.calls.filter((c) => c.op === 'rejectCall')).toEqual([
      { op: 'rejectCall', args: ['CALL1', jid] },
    ])
    await waitFor(async () => sock.sent.length > 0)
    expect(sock.sent.map((x) => [x.jid, x.content])).toEqual([
      [jid, { text: 'Maaf, kami hanya melayani chat.' }],
    ])
    // The reply is a send of the number: in its send log.
    const health = (await body(await get(`/v1/channels/${ch.id}/status`))).data.health
    expect(health.log).toEqual([
      { at: expect.stringMatching(/Z$/), message_id: null, to: '+6281399995005', ok: true, error: null },
    ])
    // Only offers are rejected (not the ringing and end of the same call).
    call('CALL1', 'ringing')
    call('CALL1', 'terminate')
    await syncPoint('two')
    expect(sock.calls.filter((c) => c.op === 'rejectCall').length).toBe(1)
    // The reply is not a conversation message: the service's echo of it is not filed in the
    // caller's conversation as the team's reply from the phone.
    const conv = (await conversationsOf(ch.id))[0]
    expect((await messagesOf(conv.id)).map((m) => [m.direction, m.body])).toEqual([
      ['in', 'one'],
      ['in', 'two'],
    ])

    // An empty reply: rejected without a message.
    expect((await patch(ch.id, { call_reply: '' })).status).toBe(200)
    call('CALL2', 'offer')
    await waitFor(async () => sock.calls.filter((c) => c.op === 'rejectCall').length === 2)
    await syncPoint('three')
    expect(sock.sent.length).toBe(1)

    expect((await patch(ch.id, { reject_calls: false, call_reply: 'x' })).status).toBe(200)
    call('CALL3', 'offer')
    await syncPoint('four')
    expect(sock.calls.filter((c) => c.op === 'rejectCall').length).toBe(2)
    expect(sock.sent.length).toBe(1)
  })
})
