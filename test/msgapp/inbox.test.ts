import * as fs from 'node:fs'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { encryptedStream } from 'baileys'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { socketFor, sql } from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { body, ENV, linkedNumber, textFrom, waId, waitFor } from './support'

let s: TestServer
let w: F.Seeded
let owner: F.Session
let media: http.Server
const files = new Map<string, Buffer>()
let mediaUrl = ''
beforeAll(async () => {
  s = await startTestServer(ENV)
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  // Serves media encrypted exactly as Baileys encrypts it, so the real download path decrypts it.
  media = http.createServer((req, res) => {
    const b = files.get(req.url ?? '')
    if (!b) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-length': b.length }).end(b)
  })
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r))
  mediaUrl = `http://127.0.0.1:${(media.address() as AddressInfo).port}`
})
afterAll(async () => {
  media?.close()
  await s?.stop()
})

const conversationsOf = async (channelId: number) => {
  const r = await body(
    await s.fetch(`/v1/interactions?channel_ids=${channelId}`, { headers: owner.headers() }),
  )
  return r.data as Array<Record<string, any>>
}
/** A customer's text as the service hands it over, with the sender's chosen name. */
const textMessage = (phone: string, text: string, pushName: string) => ({
  key: { remoteJid: `${phone}@s.whatsapp.net`, fromMe: false, id: waId() },
  message: { conversation: text },
  messageTimestamp: Math.floor(Date.now() / 1000),
  pushName,
})

const messagesOf = async (id: number) =>
  (await body(await s.fetch(`/v1/interactions/${id}/messages`, { headers: owner.headers() }))).data as Array<
    Record<string, any>
  >

describe('messaging-app inbox', () => {
  it('text, quote, media, location and contact arrive as messages (and on a socket)', async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000101')
    const { c: ws } = await socketFor(s, owner, `ws:${w.workspaceId}`)
    const first = textFrom(sock, '6281399990001', 'Halo, ada stok?')
    const conv = await waitFor(async () => (await conversationsOf(ch.id))[0])
    await ws.next((f) => f.event === 'inbox.changed')
    const { c: convWs } = await socketFor(s, owner, `conv:${conv.id}`)
    sock.emit('messages.upsert', {
      type: 'notify',
      messages: [
        {
          key: { remoteJid: '6281399990001@s.whatsapp.net', fromMe: false, id: waId() },
          message: { extendedTextMessage: { text: 'Yang biru', contextInfo: { stanzaId: first } } },
          messageTimestamp: Math.floor(Date.now() / 1000),
          pushName: 'Budi',
        },
      ],
    })
    const quoted = await convWs.next((f) => f.event === 'message.created')
    expect(quoted.data.body).toBe('Yang biru')
    expect(quoted.data.reply_to.body).toBe('Halo, ada stok?')

    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')
    const enc = await encryptedStream(png, 'image')
    files.set('/img.enc', fs.readFileSync(enc.encFilePath))
    const jid = '6281399990001@s.whatsapp.net'
    const ts = Math.floor(Date.now() / 1000)
    sock.emit('messages.upsert', {
      type: 'notify',
      messages: [
        {
          key: { remoteJid: jid, fromMe: false, id: waId() },
          message: {
            imageMessage: {
              url: `${mediaUrl}/img.enc`,
              mimetype: 'image/png',
              caption: 'Foto',
              mediaKey: enc.mediaKey,
              fileEncSha256: enc.fileEncSha256,
              fileSha256: enc.fileSha256,
              fileLength: enc.fileLength,
            },
          },
          messageTimestamp: ts,
        },
        {
          key: { remoteJid: jid, fromMe: false, id: waId() },
          message: {
            locationMessage: {
              degreesLatitude: -6.2,
              degreesLongitude: 106.8,
              name: 'Toko',
              address: 'Jl. Sudirman',
            },
          },
          messageTimestamp: ts,
        },
        {
          key: { remoteJid: jid, fromMe: false, id: waId() },
          message: {
            contactMessage: {
              displayName: 'Sari',
              vcard:
                'BEGIN:VCARD\nVERSION:3.0\nFN:Sari\nTEL;type=CELL;waid=6281211112222:+62 812 1111 2222\nEND:VCARD',
            },
          },
          messageTimestamp: ts,
        },
      ],
    })
    const image = await convWs.next(
      (f) => f.event === 'message.created' && (f.data as { type?: string }).type === 'image',
    )
    expect(image.data.body).toBe('Foto')
    const file = await s.fetch(image.data.media.url, { headers: owner.headers() })
    expect(file.status).toBe(200)
    expect(Buffer.from(await file.arrayBuffer()).equals(png)).toBe(true)
    const loc = await convWs.next(
      (f) => f.event === 'message.created' && (f.data as { type?: string }).type === 'location',
    )
    expect(loc.data.location).toMatchObject({ latitude: -6.2, longitude: 106.8, name: 'Toko' })
    const card = await convWs.next(
      (f) => f.event === 'message.created' && (f.data as { type?: string }).type === 'contact',
    )
    expect(card.data.shared_contact).toMatchObject({ name: 'Sari', phone: '+6281211112222' })
    // A redelivered message is stored once.
    const before = (await messagesOf(conv.id)).length
    sock.emit('messages.upsert', {
      type: 'notify',
      messages: [
        { key: { remoteJid: jid, fromMe: false, id: first }, message: { conversation: 'Halo, ada stok?' } },
      ],
    })
    await new Promise((r) => setTimeout(r, 300))
    expect((await messagesOf(conv.id)).length).toBe(before)
    ws.close()
    convWs.close()
  })

  it("a customer's document is named after, and stored as, the type its bytes are", async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000111')
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')
    const send = async (path: string, bytes: Buffer, mimetype: string, fileName: string) => {
      const e = await encryptedStream(bytes, 'document')
      files.set(path, fs.readFileSync(e.encFilePath))
      sock.emit('messages.upsert', {
        type: 'notify',
        messages: [
          {
            key: { remoteJid: '6281399990111@s.whatsapp.net', fromMe: false, id: waId() },
            message: {
              documentMessage: {
                url: `${mediaUrl}${path}`,
                mimetype,
                fileName,
                mediaKey: e.mediaKey,
                fileEncSha256: e.fileEncSha256,
                fileSha256: e.fileSha256,
                fileLength: e.fileLength,
              },
            },
            messageTimestamp: Math.floor(Date.now() / 1000),
            pushName: 'Budi',
          },
        ],
      })
    }
    await send('/doc.enc', png, 'image/png', 'invoice.html')
    const conv = await waitFor(async () => (await conversationsOf(ch.id))[0])
    const [m] = await waitFor(async () => {
      const list = await messagesOf(conv.id)
      return list.length > 0 && list
    })
    expect(m!.media).toMatchObject({ name: 'invoice.html.png', mime: 'image/png' })
    // Stored as what the bytes are, not as the app claims: a page claimed as a picture is a
    // download, and a picture claimed as a page is a picture.
    const html = Buffer.from('<html><body><script>alert(1)</script></body></html>')
    await send('/fake.enc', html, 'image/png', 'photo.png')
    await waitFor(async () => (await messagesOf(conv.id)).length === 2)
    await send('/real.enc', png, 'text/html', 'page.html')
    const list = await waitFor(async () => {
      const l = await messagesOf(conv.id)
      return l.length === 3 && l
    })
    const media = list.map((x) => x.media)
    expect(media).toContainEqual(
      expect.objectContaining({ name: 'photo.png', mime: 'application/octet-stream' }),
    )
    expect(media).toContainEqual(expect.objectContaining({ name: 'page.html.png', mime: 'image/png' }))
  })

  it('replies go out through the socket with initials; receipts and reactions update them; failures kept as failed; 429 beyond 30/min', async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000202')
    textFrom(sock, '6281399990002', 'Pesan')
    const conv = await waitFor(async () => (await conversationsOf(ch.id))[0])
    const res = await s.fetch(
      `/v1/interactions/${conv.id}/messages`,
      F.json({ text: 'Siap kak' }, owner.headers()),
    )
    expect(res.status).toBe(201)
    const sent = (await body(res)).data
    expect(sent.status).toBe('sent')
    expect(sock.sent[0]!.jid).toBe('6281399990002@s.whatsapp.net')
    expect((sock.sent[0]!.content as { text: string }).text).toMatch(/^Siap kak\n\n-/)
    const waMsg = await waitFor(async () => sock.sent.length > 0 && sock.sent[0]!.id)
    sock.emit('messages.update', [
      { key: { remoteJid: sock.sent[0]!.jid, id: waMsg, fromMe: true }, update: { status: 3 } },
    ])
    await waitFor(async () =>
      (await messagesOf(conv.id)).find((m) => m.id === sent.id && m.status === 'delivered'),
    )
    sock.emit('messages.update', [
      { key: { remoteJid: sock.sent[0]!.jid, id: waMsg, fromMe: true }, update: { status: 4 } },
    ])
    await waitFor(async () =>
      (await messagesOf(conv.id)).find((m) => m.id === sent.id && m.status === 'read'),
    )
    // Another chat's reaction naming this reply (the service relays whatever id a reaction
    // names) is not filed on it; the customer's own is.
    sock.emit('messages.reaction', [
      {
        key: { remoteJid: sock.sent[0]!.jid, id: waMsg, fromMe: true },
        reaction: {
          key: { remoteJid: '6281399990092@s.whatsapp.net', fromMe: false, id: waId() },
          text: '😡',
        },
      },
    ])
    sock.emit('messages.reaction', [
      {
        key: { remoteJid: sock.sent[0]!.jid, id: waMsg, fromMe: true },
        reaction: { key: { remoteJid: sock.sent[0]!.jid, fromMe: false, id: waId() }, text: '👍' },
      },
    ])
    const reacted = await waitFor(async () =>
      (await messagesOf(conv.id)).find((m) => m.id === sent.id && m.reactions.length > 0),
    )
    expect(reacted.reactions.map((r: { emoji: string }) => r.emoji)).toEqual(['👍'])

    // A failed send is kept as failed with the reason.
    sock.failures.push(Object.assign(new Error('rate-overlimit'), { output: { statusCode: 429 } }))
    const failed = await s.fetch(
      `/v1/interactions/${conv.id}/messages`,
      F.json({ text: 'x' }, owner.headers()),
    )
    expect((await body(failed)).data).toMatchObject({ status: 'failed' })
    // The throttle counts per clock minute: a run that crosses a minute boundary starts counting
    // again, so the exact count is asserted only when the sends stayed within one minute.
    const minute = () => Math.floor(Date.now() / 60_000)
    const started = minute()
    let last = 201
    let n = 2
    while (last !== 429 && n < 70) {
      last = (
        await s.fetch(`/v1/interactions/${conv.id}/messages`, F.json({ text: `m${n}` }, owner.headers()))
      ).status
      n++
    }
    expect(last).toBe(429)
    // Requests made so far = n: the 31st within the minute is refused.
    if (minute() === started) expect(n).toBe(31)
  })

  it('a reply is stored once though the socket reports the sent message back (Baileys’ own events)', async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000208')
    textFrom(sock, '6281399990208', 'Ada warna lain?')
    const conv = await waitFor(async () => (await conversationsOf(ch.id))[0])
    for (const text of ['Ada kak', 'Merah dan biru']) {
      const res = await s.fetch(`/v1/interactions/${conv.id}/messages`, F.json({ text }, owner.headers()))
      expect((await body(res)).data.status).toBe('sent')
    }
    textFrom(sock, '6281399990208', 'Oke')
    await waitFor(async () => (await messagesOf(conv.id)).some((m) => m.body === 'Oke'))
    expect((await messagesOf(conv.id)).map((m) => [m.direction, m.body])).toEqual([
      ['in', 'Ada warna lain?'],
      ['out', 'Ada kak'],
      ['out', 'Merah dan biru'],
      ['in', 'Oke'],
    ])
  })

  it('business labels are listed and applying one to a chat runs the label rules', async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000303')
    textFrom(sock, '6281399990003', 'Order')
    const conv = await waitFor(async () => (await conversationsOf(ch.id))[0])
    const { c: ws } = await socketFor(s, owner, `ws:${w.workspaceId}`)
    sock.emit('labels.edit', { id: '7', name: 'Paid', color: 3, deleted: false })
    // spec 1 §6: a channel's business labels changed, on the workspace's channel.
    const changed = await ws.next((f) => f.event === 'labels.changed')
    expect(changed.data).toEqual({ channel_id: ch.id, label_id: '7', name: 'Paid', deleted: false })
    await waitFor(async () => {
      const r = (await body(await s.fetch(`/v1/channels/${ch.id}/labels`, { headers: owner.headers() }))).data
      return r.length === 1 && r[0].name === 'Paid'
    })
    const rule = await s.fetch(
      '/v1/msgapp-label-rules',
      F.json({ channel_id: ch.id, label_name: 'paid', action: 'solve' }, owner.headers()),
    )
    expect(rule.status).toBe(201)
    sock.emit('labels.association', {
      type: 'add',
      association: { type: 'label_jid', chatId: '6281399990003@s.whatsapp.net', labelId: '7' } as never,
    })
    await waitFor(async () => {
      const r = (await body(await s.fetch(`/v1/interactions/${conv.id}`, { headers: owner.headers() }))).data
      return r.status === 'solved'
    })
  })

  it('a customer’s text, name and history holding NUL arrive, the NUL shown as U+FFFD (it cannot be stored)', async () => {
    // Issue 50 item 2 for what strangers send: PostgreSQL stores no NUL in text, so a message
    // holding one must not fail (and be lost, or retried for ever); it arrives with U+FFFD.
    const { ch, sock } = await linkedNumber(s, owner, '6281200000505')
    textFrom(sock, '6281399990005', 'Halo\u0000 ada stok?', { pushName: 'Bu\u0000di' })
    const conv = await waitFor(async () => (await conversationsOf(ch.id))[0], 10_000)
    // The conversation may be listed a moment before its first message is.
    const first = await waitFor(async () => {
      const b = (await messagesOf(conv.id)).map((m) => m.body)
      return b.length > 0 ? b : null
    }, 10_000)
    expect(first).toEqual(['Halo\uFFFD ada stok?'])
    const contact = await body(await s.fetch(`/v1/contacts/${conv.contact.id}`, { headers: owner.headers() }))
    expect(contact.data.name).toBe('Bu\uFFFDdi')
    const res = await s.fetch(`/v1/channels/${ch.id}/history`, F.json({ days: 7 }, owner.headers()))
    expect(res.status).toBe(200)
    await waitFor(async () => sock.calls.some((c) => c.op === 'fetchMessageHistory'))
    sock.emit('messaging-history.set', {
      chats: [],
      contacts: [],
      isLatest: false,
      progress: 100,
      messages: [
        {
          key: { remoteJid: '6281399990005@s.whatsapp.net', fromMe: false, id: waId() },
          message: { conversation: 'Kemarin\u0000 lalu' },
          messageTimestamp: Math.floor(Date.now() / 1000) - 86_400,
        },
      ],
    })
    const bodies = await waitFor(async () => {
      const b = (await messagesOf(conv.id)).map((m) => m.body)
      return b.length === 2 ? b : null
    }, 10_000)
    expect(bodies).toContain('Kemarin\uFFFD lalu')
  })

  it('a customer known only by a LID (no phone) stays one contact and one conversation, and is answered there', async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000506')
    const lid = '99887766554406@lid'
    const from = (text: string) =>
      sock.emit('messages.upsert', {
        type: 'notify',
        messages: [
          {
            key: { remoteJid: lid, fromMe: false, id: waId() },
            message: { conversation: text },
            messageTimestamp: Math.floor(Date.now() / 1000),
            pushName: 'Sari',
          },
        ],
      })
    from('Halo, pesanan saya?')
    const conv = await waitFor(async () => (await conversationsOf(ch.id))[0])
    await waitFor(async () => (await messagesOf(conv.id)).length === 1)
    from('Nomor pesanan 1234')
    textFrom(sock, '6281399990006', 'Sync point')
    // Events are handled in order: once Budi's conversation is listed, Sari's message is stored.
    await waitFor(async () => (await conversationsOf(ch.id)).some((c) => c.contact?.name === 'Budi'))
    const hers = (await conversationsOf(ch.id)).filter((c) => c.contact?.name === 'Sari')
    expect(hers.map((c) => c.id)).toEqual([conv.id])
    expect((await messagesOf(conv.id)).map((m) => m.body)).toEqual([
      'Halo, pesanan saya?',
      'Nomor pesanan 1234',
    ])
    // The team's reply goes to the chat she wrote from (she has no phone to address).
    const res = await s.fetch(
      `/v1/interactions/${conv.id}/messages`,
      F.json({ text: 'Sudah dikirim kak' }, owner.headers()),
    )
    expect(res.status).toBe(201)
    expect((await body(res)).data).toMatchObject({ status: 'sent', error: null })
    const out = sock.sent.at(-1)!
    expect(out.jid).toBe(lid)
    expect((out.content as { text: string }).text).toMatch(/^Sudah dikirim kak/)
  })

  it('a sender’s oversized name neither loses their message nor the others of the same batch', async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000507')
    // A name no client of the service would send (its app allows 25 characters) and too long for
    // an index entry: 3000 CJK letters in no order, so it does not compress.
    const chars: string[] = []
    for (let n = 7, i = 0; i < 3000; i++) {
      n = (n * 48271) % 2147483647
      chars.push(String.fromCodePoint(0x4e00 + (n % 20000)))
    }
    const huge = chars.join('')
    sock.emit('messages.upsert', {
      type: 'notify',
      messages: [
        textMessage('6281399990007', 'Dari nama panjang', huge),
        textMessage('6281399990008', 'Pesan biasa', 'Ani'),
      ],
    })
    const list = await waitFor(async () => {
      const l = await conversationsOf(ch.id)
      return l.length === 2 && l
    })
    const ani = list.find((c) => c.contact?.name === 'Ani')!
    const other = list.find((c) => c.id !== ani.id)!
    // A conversation may be listed a moment before its first message is.
    const bodies = (id: number) =>
      waitFor(async () => {
        const b = (await messagesOf(id)).map((m) => m.body)
        return b.length > 0 && b
      })
    expect(await bodies(ani.id)).toEqual(['Pesan biasa'])
    expect(await bodies(other.id)).toEqual(['Dari nama panjang'])
    expect(other.contact.name).toBe(huge.slice(0, 200))
  })

  it('one message that cannot be stored does not lose the others of its batch', async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000508')
    // A fault of one message's own (here the database refusing its new contact) while the batch
    // carries other customers' messages, as a catch-up after a reconnect does.
    await sql(
      s,
      (db) => db`CREATE FUNCTION kotak_t_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.name = 'Ditolak' THEN RAISE EXCEPTION 'refused for the test'; END IF; RETURN NEW; END $$`,
    )
    await sql(
      s,
      (db) =>
        db`CREATE TRIGGER kotak_t_refuse BEFORE INSERT ON contacts FOR EACH ROW EXECUTE FUNCTION kotak_t_refuse()`,
    )
    try {
      sock.emit('messages.upsert', {
        type: 'notify',
        messages: [
          textMessage('6281399990011', 'Pertama', 'Budi'),
          textMessage('6281399990012', 'Tidak tersimpan', 'Ditolak'),
          textMessage('6281399990013', 'Ketiga', 'Citra'),
        ],
      })
      const list = await waitFor(async () => {
        const l = await conversationsOf(ch.id)
        return l.length === 2 && l
      })
      expect(list.map((c) => c.contact?.name).sort()).toEqual(['Budi', 'Citra'])
      for (const c of list) {
        const bodies = await waitFor(async () => {
          const b = (await messagesOf(c.id)).map((m) => m.body)
          return b.length > 0 && b
        })
        expect(bodies).toEqual([c.contact.name === 'Budi' ? 'Pertama' : 'Ketiga'])
      }
    } finally {
      await sql(s, (db) => db`DROP TRIGGER kotak_t_refuse ON contacts`)
      await sql(s, (db) => db`DROP FUNCTION kotak_t_refuse()`)
    }
  })

  it('history import: 7/30/90 only, progress as channel.updated, messages inside the window imported', async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000404')
    textFrom(sock, '6281399990004', 'Baru')
    await waitFor(async () => (await conversationsOf(ch.id))[0])
    expect(
      (await s.fetch(`/v1/channels/${ch.id}/history`, F.json({ days: 10 }, owner.headers()))).status,
    ).toBe(422)
    const { c: ws } = await socketFor(s, owner, `ws:${w.workspaceId}`)
    const res = await s.fetch(`/v1/channels/${ch.id}/history`, F.json({ days: 7 }, owner.headers()))
    expect(res.status).toBe(200)
    await waitFor(async () => sock.calls.some((c) => c.op === 'fetchMessageHistory'))
    const jid = '6281399990004@s.whatsapp.net'
    const day = 86_400
    const now = Math.floor(Date.now() / 1000)
    sock.emit('messaging-history.set', {
      chats: [],
      contacts: [],
      isLatest: false,
      progress: 50,
      messages: [
        {
          key: { remoteJid: jid, fromMe: false, id: waId() },
          message: { conversation: 'Tiga hari lalu' },
          messageTimestamp: now - 3 * day,
        },
        {
          key: { remoteJid: jid, fromMe: false, id: waId() },
          message: { conversation: 'Sepuluh hari lalu' },
          messageTimestamp: now - 10 * day,
        },
      ],
    })
    const half = await ws.next(
      (f) =>
        f.event === 'channel.updated' &&
        (f.data as { history?: { progress?: number } }).history?.progress === 50,
    )
    expect(half.data.history).toMatchObject({ days: 7, imported: 1 })
    sock.emit('messaging-history.set', { chats: [], contacts: [], messages: [], progress: 100 })
    await ws.next(
      (f) =>
        f.event === 'channel.updated' &&
        (f.data as { history?: { progress?: number } }).history?.progress === 100,
    )
    const conv = (await conversationsOf(ch.id))[0]!
    const bodies = (await messagesOf(conv.id)).map((m) => m.body)
    expect(bodies).toContain('Tiga hari lalu')
    expect(bodies).not.toContain('Sepuluh hari lalu')
    ws.close()
  })
})
