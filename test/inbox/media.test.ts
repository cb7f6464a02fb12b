import * as fs from 'node:fs'
import * as path from 'node:path'
import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileStorage } from '../../engine/storage/FileStorage'
import * as Files from '../../store/files'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as I from './support'

/** Spec 2 §4.1 media and §8 size limits: private files through the storage port, Range, downloads. */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let conv: number
beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  // An API channel: it takes any file (a messaging-app number takes only what the app does, by
  // the bytes: messages.test.ts), and these are about storing and serving files.
  const ch = await I.channel(s, w, 'api')
  conv = (await I.conversation(s, w, { channelId: ch.id, contactId: (await I.contact(s, w)).id })).id
})
afterAll(() => s?.stop())

const MB = 1024 * 1024
const upload = (fields: Record<string, string>, files: Parameters<typeof I.form>[1], id = conv) =>
  s.fetch(`/v1/interactions/${id}/messages`, {
    method: 'POST',
    headers: owner.headers(),
    body: I.form(fields, files),
  })

describe('private files', () => {
  const content = I.bytes(100_000)
  let media = ''

  beforeAll(async () => {
    const res = await upload({ text: 'the photo' }, [
      { field: 'file', name: 'foto produk.jpg', type: 'image/jpeg', bytes: content },
    ])
    expect(res.status).toBe(201)
    const m = (await I.body(res)).data
    expect(m).toMatchObject({
      type: 'image',
      body: 'the photo',
      media: { name: 'foto produk.jpg', mime: 'image/jpeg', size: 100_000 },
    })
    media = m.media.url
  })

  it('serves the whole file inline, private to those who may see the conversation', async () => {
    const res = await s.fetch(media, { headers: owner.headers() })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/jpeg')
    expect(res.headers.get('accept-ranges')).toBe('bytes')
    expect(res.headers.get('content-disposition')).toMatch(
      /^inline; filename="foto produk.jpg"; filename\*=UTF-8''foto%20produk.jpg$/,
    )
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(content)
    // Without a credential, or from another workspace: nothing.
    expect((await s.fetch(media)).status).toBe(401)
    const other = await F.workspace(s, { plan: 'pro' })
    expect((await s.fetch(media, { headers: (await F.signIn(s, other.ownerEmail)).headers() })).status).toBe(
      404,
    )
    // A colleague without access to the number does not see the conversation, nor its files.
    const agent = await F.member(s, w, 'Agent')
    await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql`UPDATE members SET channel_access = 'selected', channel_ids = '{}' WHERE user_id = ${agent.id}`,
      ),
    )
    const blind = (await F.signIn(s, agent.email)).headers()
    expect((await s.fetch(`/v1/interactions/${conv}`, { headers: blind })).status).toBe(404)
    expect((await s.fetch(media, { headers: blind })).status).toBe(404)
    expect((await s.fetch(`${media}?download=1`, { headers: blind })).status).toBe(404)
  })

  it('downloads with ?download=1', async () => {
    const res = await s.fetch(`${media}?download=1`, { headers: owner.headers() })
    expect(res.headers.get('content-disposition')).toMatch(/^attachment;/)
    await res.arrayBuffer()
  })

  it.each([
    ['bytes=0-99', 0, 99],
    ['bytes=99000-', 99_000, 99_999],
    ['bytes=-500', 99_500, 99_999],
    ['bytes=99990-200000', 99_990, 99_999],
  ])('answers Range %s with 206 and exactly those bytes', async (range, start, end) => {
    const res = await s.fetch(media, { headers: owner.headers({ range }) })
    expect(res.status).toBe(206)
    expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/100000`)
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(content.slice(start, end + 1))
  })

  it('answers an unsatisfiable range with 416 and the size, and ignores a malformed one', async () => {
    const res = await s.fetch(media, { headers: owner.headers({ range: 'bytes=100000-' }) })
    expect(res.status).toBe(416)
    expect(res.headers.get('content-range')).toBe('bytes */100000')
    await res.arrayBuffer()
    const whole = await s.fetch(media, { headers: owner.headers({ range: 'pages=1-2' }) })
    expect(whole.status).toBe(200)
    expect((await whole.arrayBuffer()).byteLength).toBe(100_000)
  })

  it('keeps the bytes under DATA_DIR/files by default, behind the storage port', async () => {
    const dir = path.join(s.cfg.dataDir, 'files', String(w.workspaceId))
    expect(fs.existsSync(dir)).toBe(true)
    expect(s.cfg.filesDir).toBe(path.join(s.cfg.dataDir, 'files'))
  })

  it('sends active content (HTML, SVG) only as a download', async () => {
    const res = await upload({}, [
      {
        field: 'file',
        name: 'x.svg',
        type: 'image/svg+xml',
        bytes: new TextEncoder().encode('<svg onload="alert(1)"/>'),
      },
    ])
    const m = (await I.body(res)).data
    const got = await s.fetch(m.media.url, { headers: owner.headers() })
    expect(got.headers.get('content-disposition')).toMatch(/^attachment;/)
    expect(got.headers.get('content-security-policy')).toMatch(/sandbox/)
    await got.arrayBuffer()
  })
})

describe('size limits', () => {
  it('refuses a single attachment over 16 MB with a 422 naming the field and the limit', async () => {
    const res = await upload({}, [
      { field: 'file', name: 'big.mp4', type: 'video/mp4', bytes: new Uint8Array(16 * MB + 1) },
    ])
    expect(res.status).toBe(422)
    expect((await I.body(res)).error).toMatchObject({
      code: 'validation_error',
      fields: { file: 'must be at most 16 MB' },
    })
    const ok = await upload({}, [
      { field: 'file', name: 'ok.mp4', type: 'video/mp4', bytes: new Uint8Array(16 * MB) },
    ])
    expect(ok.status).toBe(201)
    expect((await I.body(ok)).data).toMatchObject({ type: 'video', media: { size: 16 * MB } })
  })

  it('answers 413 for a body over the route limit, holding none of it, to a client that sends it all first', async () => {
    const res = await upload({}, [
      { field: 'file', name: 'huge.bin', type: 'application/octet-stream', bytes: new Uint8Array(22 * MB) },
    ])
    expect(res.status).toBe(413)
    expect((await I.body(res)).error.code).toBe('payload_too_large')
  })

  it('keeps the JSON limit for JSON bodies on upload routes', async () => {
    const res = await s.fetch(
      `/v1/interactions/${conv}/messages`,
      F.json({ text: 'x'.repeat(60_000), pad: 'y'.repeat(1_100_000) }, owner.headers()),
    )
    expect(res.status).toBe(413)
    // Routes without uploads keep refusing multipart.
    const other = await s.fetch(`/v1/interactions/${conv}/typing`, {
      method: 'POST',
      headers: owner.headers(),
      body: I.form({ typing: 'true' }),
    })
    expect(other.status).toBe(422)
  })

  it('refuses a malformed multipart body with 422', async () => {
    const res = await s.fetch(`/v1/interactions/${conv}/messages`, {
      method: 'POST',
      headers: owner.headers({ 'content-type': 'multipart/form-data; boundary=zzz' }),
      body: '--zzz\r\nContent-Disposition: form-data; name="text"\r\n\r\nunterminated',
    })
    expect(res.status).toBe(422)
  })

  it('refuses an unexpected file field', async () => {
    const res = await upload({ text: 'x' }, [
      { field: 'photo', name: 'a.png', type: 'image/png', bytes: I.bytes(10) },
    ])
    expect((await I.body(res)).error.fields).toEqual({ photo: 'is not allowed' })
  })
})

describe('the storage port (local adapter)', () => {
  it('stores atomically, reads ranges, reports sizes, and forgets idempotently', async () => {
    const r = await s.run(
      Effect.gen(function* () {
        const st = yield* FileStorage
        const key = yield* st.put('t', I.bytes(1000))
        const other = yield* st.put('t', I.bytes(10))
        const whole = yield* st.read(key)
        const part = yield* st.read(key, { start: 990, end: 5000 })
        const size = yield* st.size(key)
        yield* st.remove(key)
        yield* st.remove(key)
        return { key, other, whole, part, size, after: yield* st.read(key), sizeAfter: yield* st.size(key) }
      }),
    )
    expect(r.key).not.toBe(r.other)
    expect(r.whole).toEqual(I.bytes(1000))
    expect(r.part).toEqual(I.bytes(1000).slice(990))
    expect(r.size).toBe(1000)
    expect(r.after).toBeNull()
    expect(r.sizeAfter).toBeNull()
  })

  it('refuses keys that could leave its directory', async () => {
    const exit = await s.run(Effect.exit(Effect.flatMap(FileStorage, (st) => st.read('../../etc/passwd'))))
    expect(exit._tag).toBe('Failure')
  })

  it('answers 404 for a file whose bytes are gone', async () => {
    const row = await s.run(
      Files.save(w.workspaceId, { name: 'gone.txt', mime: 'text/plain', bytes: I.bytes(5) }, null),
    )
    await s.run(Effect.flatMap(FileStorage, (st) => st.remove(row.storage_key)))
    const tpl = await I.body(
      await s.fetch('/v1/templates', F.json({ name: 't', body: 'b' }, owner.headers())),
    )
    const { SqlClient } = await import('@effect/sql')
    await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`UPDATE templates SET file_id = ${row.id} WHERE id = ${tpl.data.id}`,
      ),
    )
    expect(
      (await s.fetch(`/v1/templates/${tpl.data.id}/attachment`, { headers: owner.headers() })).status,
    ).toBe(404)
  })
})

describe('avatars and groups', () => {
  it('serves a contact photo and a group photo when there is one, 404 otherwise', async () => {
    const { SqlClient } = await import('@effect/sql')
    const ct = await I.contact(s, w)
    expect((await s.fetch(`/v1/contacts/${ct.id}/avatar`, { headers: owner.headers() })).status).toBe(404)
    const file = await s.run(
      Files.save(w.workspaceId, { name: 'a.png', mime: 'image/png', bytes: I.bytes(64) }, null),
    )
    await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`UPDATE contacts SET avatar_file_id = ${file.id} WHERE id = ${ct.id}`,
      ),
    )
    const got = await s.fetch(`/v1/contacts/${ct.id}/avatar`, { headers: owner.headers() })
    expect(got.status).toBe(200)
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(I.bytes(64))
    const { create } = await import('../../store/groups')
    const ch = await I.channel(s, w, 'msgapp')
    const g = await s.run(
      create(w.workspaceId, {
        channelId: ch.id,
        name: 'Reseller Jakarta',
        externalId: '1203@g.us',
        members: [
          { jid: '6281@s.whatsapp.net', name: 'Budi', phone: '+6281999' },
          { jid: '6282@s.whatsapp.net', name: 'Unknown', phone: '+6282999' },
        ],
      }),
    )
    await I.contact(s, w, { name: 'Budi (contact)', phone: '+6281999' })
    const gc = await I.conversation(s, w, { channelId: ch.id, kind: 'group', groupId: g.id })
    expect((await s.fetch(`/v1/groups/${g.id}/avatar`, { headers: owner.headers() })).status).toBe(404)
    const info = await I.body(await s.fetch(`/v1/groups/${g.id}`, { headers: owner.headers() }))
    expect(info.data).toMatchObject({
      id: g.id,
      name: 'Reseller Jakarta',
      members: [
        { name: 'Budi', phone: '+6281999', contact: { name: 'Budi (contact)' } },
        { name: 'Unknown', contact: null },
      ],
      interactions: [{ id: gc.id, kind: 'group', group: { id: g.id, name: 'Reseller Jakarta' } }],
    })
    expect((await s.fetch('/v1/groups/999999', { headers: owner.headers() })).status).toBe(404)
  })
})
