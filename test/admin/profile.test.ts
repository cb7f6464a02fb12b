import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'

/**
 * A person's own profile through HTTP: the name beside `PATCH /v1/me`'s language and zone, the
 * photo (upload checked by its bytes, served to the workspace's members only, removed), and the
 * sessions (listed without tokens, one ended with its socket while the others go on).
 * The app's page is test/app/profile.e2e.test.ts.
 */

/** A PNG's signature and header chunk: what the byte check reads (width × height). */
const png = (width: number, height: number) => {
  const b = Buffer.alloc(64)
  Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').copy(b, 0)
  b.writeUInt32BE(width, 16)
  b.writeUInt32BE(height, 20)
  return b
}

const upload = (session: F.Session, bytes: Uint8Array, name = 'me.png', type = 'image/png') => {
  const form = new FormData()
  form.append('avatar', new Blob([bytes], { type }), name)
  return { method: 'POST', headers: session.headers(), body: form }
}

const body = async (r: Response) => (await r.json()) as Record<string, any>

describe('profile', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer()
  })
  afterAll(async () => {
    await s?.stop()
  })

  it('changes the name (trimmed, 1 to 100 characters) with the language and zone', async () => {
    const w = await F.workspace(s)
    const owner = await F.signIn(s, w.ownerEmail)
    const patch = (b: unknown) => s.fetch('/v1/me', { ...F.json(b, owner.headers()), method: 'PATCH' })

    const r = await patch({ name: '  Sari Wulandari  ', locale: 'id', timezone: 'Asia/Makassar' })
    expect(r.status).toBe(200)
    const me = (await body(r)).data
    expect(me.user).toMatchObject({ name: 'Sari Wulandari', locale: 'id', timezone: 'Asia/Makassar' })
    expect(me.timezone).toBe('Asia/Makassar')
    const again = await body(await s.fetch('/v1/me', { headers: owner.headers() }))
    expect(again.data.user.name).toBe('Sari Wulandari')
    // Members lists read the same row.
    const members = await body(await s.fetch('/v1/members', { headers: owner.headers() }))
    expect(members.data.map((m: any) => m.user.name)).toContain('Sari Wulandari')

    for (const bad of ['   ', 'x'.repeat(101), 7]) {
      const refused = await patch({ name: bad })
      expect(refused.status).toBe(422)
      const e = (await body(refused)).error
      expect(e.code).toBe('validation_error')
      expect(Object.keys(e.fields)).toEqual(['name'])
      // In the language just chosen.
      if (typeof bad === 'string') expect(e.fields.name).toBe('harus 1 sampai 100 karakter')
    }
    expect((await body(await s.fetch('/v1/me', { headers: owner.headers() }))).data.user.name).toBe(
      'Sari Wulandari',
    )
    // Back to following the workspace's zone.
    const follow = await body(await patch({ timezone: '' }))
    expect(follow.data.user.timezone).toBeNull()
    expect(follow.data.timezone).toBe('Asia/Jakarta')
  })

  it('uploads a photo checked by its bytes, shows it to the workspace only, and removes it', async () => {
    const w = await F.workspace(s)
    const owner = await F.signIn(s, w.ownerEmail)
    const agent = await F.member(s, w)
    const colleague = await F.signIn(s, agent.email)
    const other = await F.workspace(s)
    const stranger = await F.signIn(s, other.ownerEmail)

    const up = await s.fetch('/v1/me/avatar', upload(owner, png(120, 80)))
    expect(up.status).toBe(200)
    const made = (await body(up)).data
    expect(made).toMatchObject({ mime: 'image/png', width: 120, height: 80, size: 64 })
    expect(made.avatar_url).toMatch(new RegExp(`^/v1/users/${w.ownerId}/avatar\\?v=`))
    const me = await body(await s.fetch('/v1/me', { headers: owner.headers() }))
    expect(me.data.user.avatar_url).toBe(made.avatar_url)

    const own = await s.fetch(made.avatar_url, { headers: owner.headers() })
    expect(own.status).toBe(200)
    expect(own.headers.get('content-type')).toBe('image/png')
    expect(own.headers.get('x-content-type-options')).toBe('nosniff')
    expect(Buffer.from(await own.arrayBuffer()).equals(png(120, 80))).toBe(true)
    expect((await s.fetch(made.avatar_url, { headers: colleague.headers() })).status).toBe(200)
    // Members lists carry the same address.
    const listed = await body(await s.fetch('/v1/members', { headers: owner.headers() }))
    expect(listed.data.find((m: any) => m.user.id === w.ownerId).user.avatar_url).toBe(made.avatar_url)
    // Someone of another workspace, and nobody signed out, get nothing.
    expect((await s.fetch(made.avatar_url, { headers: stranger.headers() })).status).toBe(404)
    expect((await s.fetch(made.avatar_url)).status).toBe(401)

    // A name or a claimed type proves nothing: the bytes must be an image.
    const fake = await s.fetch('/v1/me/avatar', upload(owner, Buffer.from('<svg onload=alert(1)>'), 'x.png'))
    expect(fake.status).toBe(422)
    expect((await body(fake)).error.fields).toEqual({ avatar: 'must be a PNG, JPG or WebP image' })
    const gif = Buffer.from('474946383961010001000000', 'hex')
    expect((await s.fetch('/v1/me/avatar', upload(owner, gif, 'a.gif', 'image/gif'))).status).toBe(422)
    const big = Buffer.concat([png(10, 10), Buffer.alloc(1024 * 1024)])
    const tooBig = await s.fetch('/v1/me/avatar', upload(owner, big))
    expect(tooBig.status).toBe(422)
    expect((await body(tooBig)).error.fields.avatar).toContain('1 MB')
    const none = await s.fetch('/v1/me/avatar', {
      method: 'POST',
      headers: owner.headers(),
      body: new FormData(),
    })
    expect(none.status).toBe(422)
    // In Indonesian for an Indonesian speaker.
    const id = await s.fetch('/v1/me/avatar', {
      ...upload(owner, Buffer.from('not an image')),
      headers: owner.headers({ 'x-locale': 'id' }),
    })
    expect((await body(id)).error.fields.avatar).toBe('harus gambar PNG, JPG, atau WebP')
    // The refusals kept the photo.
    expect((await s.fetch(made.avatar_url, { headers: owner.headers() })).status).toBe(200)

    const del = await s.fetch('/v1/me/avatar', { method: 'DELETE', headers: owner.headers() })
    expect(del.status).toBe(200)
    expect((await body(del)).data).toEqual({ avatar_url: null })
    expect(
      (await body(await s.fetch('/v1/me', { headers: owner.headers() }))).data.user.avatar_url,
    ).toBeNull()
    expect((await s.fetch(made.avatar_url, { headers: owner.headers() })).status).toBe(404)
  })

  it('lists the sessions without tokens and ends one, closing its socket only', async () => {
    const w = await F.workspace(s)
    const here = await F.signIn(s, w.ownerEmail)
    const there = await F.signIn(s, w.ownerEmail)
    const other = await F.workspace(s)
    const stranger = await F.signIn(s, other.ownerEmail)

    const listed = await s.fetch('/v1/me/sessions', { headers: here.headers() })
    expect(listed.status).toBe(200)
    const text = await listed.text()
    for (const secret of [here.cookie.split(';')[0]!.split('=')[1]!, there.csrf]) {
      expect(text).not.toContain(secret)
    }
    const rows = JSON.parse(text).data as Array<Record<string, any>>
    expect(rows).toHaveLength(2)
    expect(rows.map((r) => r.current)).toEqual([false, true])
    for (const r of rows) {
      expect(Object.keys(r).sort()).toEqual([
        'created_at',
        'current',
        'expires_at',
        'id',
        'ip',
        'user_agent',
        'via',
      ])
      expect(r.via).toBe('link')
      expect(typeof r.ip).toBe('string')
      expect(r.user_agent).toBeTruthy()
    }
    const [theirs, mine] = rows
    const seen = await body(await s.fetch('/v1/me/sessions', { headers: there.headers() }))
    expect(seen.data.find((r: any) => r.current).id).toBe(theirs!.id)

    const socketOf = async (session: F.Session) => {
      const token = await s.fetch('/v1/realtime/token', F.json({}, session.headers()))
      return connect((await body(token)).data.url)
    }
    const hereSocket = await socketOf(here)
    const thereSocket = await socketOf(there)

    // Nobody else's session, nor one already ended.
    const foreign = await s.fetch(`/v1/me/sessions/${theirs!.id}`, {
      method: 'DELETE',
      headers: stranger.headers(),
    })
    expect(foreign.status).toBe(404)
    const end = await s.fetch(`/v1/me/sessions/${theirs!.id}`, { method: 'DELETE', headers: here.headers() })
    expect(end.status).toBe(200)
    expect((await body(end)).data).toEqual({ id: theirs!.id, deleted: true })
    expect((await thereSocket.closed).code).toBe(4503)
    const after = await s.fetch('/v1/me', { headers: there.headers() })
    expect(after.status).toBe(401)
    expect(
      (await s.fetch(`/v1/me/sessions/${theirs!.id}`, { method: 'DELETE', headers: here.headers() })).status,
    ).toBe(404)
    // This session and its socket go on.
    hereSocket.send({ op: 'ping', ref: 'still' })
    expect((await hereSocket.next((f) => f.op === 'pong')).ref).toBe('still')
    const left = await body(await s.fetch('/v1/me/sessions', { headers: here.headers() }))
    expect(left.data.map((r: any) => r.id)).toEqual([mine!.id])
    hereSocket.close()

    // An API key has no sessions of its own to list.
    const key = await F.apiKey(s, w)
    expect((await s.fetch('/v1/me/sessions', { headers: F.bearer(key) })).status).toBe(403)
  })
})
