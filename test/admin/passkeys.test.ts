import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto'
import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Smtp, startSmtp } from '../email/dovecot'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'

/**
 * Passkeys through HTTP with a software authenticator made here (ES256, "none" attestation, as
 * the WebAuthn spec lays the bytes out), so every refusal can be provoked on purpose: an old or
 * reused challenge, a foreign origin, an unknown or deleted credential, a forged signature,
 * another person's passkey. The browser's own flow, with Chromium's virtual authenticator, is
 * test/app/passkeys.e2e.test.ts.
 */

// ---- a minimal CBOR encoder: the few types an attestation object needs ----
const head = (major: number, n: number): Buffer => {
  if (n < 24) return Buffer.from([(major << 5) | n])
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n])
  if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff])
  const b = Buffer.alloc(5)
  b[0] = (major << 5) | 26
  b.writeUInt32BE(n, 1)
  return b
}
type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>
const cbor = (v: Cbor): Buffer => {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v)
  if (typeof v === 'string') {
    const b = Buffer.from(v, 'utf8')
    return Buffer.concat([head(3, b.length), b])
  }
  if (v instanceof Map) {
    const parts = [head(5, v.size)]
    for (const [k, x] of v) parts.push(cbor(k), cbor(x))
    return Buffer.concat(parts)
  }
  return Buffer.concat([head(2, v.length), Buffer.from(v)])
}

const b64u = (b: Uint8Array | string) => Buffer.from(b).toString('base64url')
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest()

/** One credential on a software authenticator that verifies its user (UP + UV). */
class SoftKey {
  readonly id = randomBytes(16)
  readonly keys = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  counter = 0
  userHandle: string | undefined

  private cose() {
    const jwk = this.keys.publicKey.export({ format: 'jwk' })
    return new Map<Cbor, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ])
  }

  private authData(rpId: string, flags: number, attested?: Buffer) {
    const count = Buffer.alloc(4)
    count.writeUInt32BE(this.counter)
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])])
  }

  /** The answer to registration options, as @simplewebauthn/browser would send it. */
  create(options: Record<string, any>, origin: string) {
    this.userHandle = options.user.id
    const clientDataJSON = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin })
    const idLen = Buffer.alloc(2)
    idLen.writeUInt16BE(this.id.length)
    const attested = Buffer.concat([Buffer.alloc(16), idLen, this.id, cbor(this.cose())])
    // UP, UV, AT.
    const authData = this.authData(options.rp.id, 0x45, attested)
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    )
    return {
      id: b64u(this.id),
      rawId: b64u(this.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        attestationObject: b64u(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    }
  }

  /** The answer to sign-in options; `signer` forges with another key. */
  get(options: Record<string, any>, origin: string, signer: KeyObject = this.keys.privateKey) {
    this.counter += 1
    const clientDataJSON = JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin })
    const authData = this.authData(options.rpId, 0x05)
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), signer)
    return {
      id: b64u(this.id),
      rawId: b64u(this.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
      clientExtensionResults: {},
    }
  }
}

let s: TestServer
let origin: string
let w: F.Seeded
let owner: F.Session
let agent: F.Session
let ipSeq = 0
let smtp: Smtp

beforeAll(async () => {
  // Each test signs in from an address of its own (X-Forwarded-For), so the per-address budget of
  // passkey sign-ins counts only the test that is about it.
  smtp = await startSmtp()
  smtp.accounts.set('mailer@kotak.test', 'pw')
  s = await startTestServer({
    TRUST_PROXY: '1',
    SMTP_URL: `smtp://mailer%40kotak.test:pw@${smtp.host}:${smtp.port}`,
  })
  origin = new URL(s.cfg.publicUrl).origin
  w = await F.workspace(s)
  owner = await F.signIn(s, w.ownerEmail)
  const a = await F.member(s, w)
  agent = await F.signIn(s, a.email)
})
afterAll(async () => {
  await s?.stop()
  await smtp?.stop()
})

const body = async (res: Response) => (await res.json()) as Record<string, any>
/** The fields a 422 names. */
const refusedFields = async (res: Response) => {
  expect(res.status).toBe(422)
  return Object.keys((await body(res)).error.fields)
}
const post = (path: string, b: unknown, h: Record<string, string> = {}) => s.fetch(path, F.json(b, h))
const from = () => ({ 'x-forwarded-for': `198.51.100.${++ipSeq}` })

const registrationOptions = async (who: F.Session) => {
  const res = await post('/v1/me/passkeys/options', {}, who.headers())
  expect(res.status).toBe(200)
  return (await body(res)).data
}
const register = async (who: F.Session, key: SoftKey, name = 'Laptop') => {
  const options = await registrationOptions(who)
  const res = await post('/v1/me/passkeys', { name, response: key.create(options, origin) }, who.headers())
  expect(res.status).toBe(201)
  return (await body(res)).data
}
const signInOptions = async (ip: Record<string, string>) => {
  const res = await post('/auth/passkey/options', {}, ip)
  expect(res.status).toBe(200)
  return (await body(res)).data
}
const signInWith = async (key: SoftKey, ip = from()) =>
  post('/auth/passkey', { response: key.get(await signInOptions(ip), origin) }, ip)

describe('adding a passkey and signing in with it', () => {
  it('registers a named passkey, lists it, and signs its owner in with session cookies', async () => {
    const options = await registrationOptions(owner)
    // The relying party is the public address; the credential must be discoverable and verify the person.
    expect(options.rp.id).toBe(new URL(s.cfg.publicUrl).hostname)
    expect(options.authenticatorSelection).toMatchObject({
      residentKey: 'required',
      userVerification: 'required',
    })
    const key = new SoftKey()
    const res = await post(
      '/v1/me/passkeys',
      { name: '  Work laptop ', response: key.create(options, origin) },
      owner.headers(),
    )
    expect(res.status).toBe(201)
    const made = (await body(res)).data
    expect(made).toMatchObject({ name: 'Work laptop', transports: ['internal'], last_used_at: null })
    // Its secret parts never come back.
    expect(JSON.stringify(made)).not.toMatch(/public_key|credential_id|counter/)

    const list = (await body(await s.fetch('/v1/me/passkeys', { headers: owner.headers() }))).data
    expect(list.map((p: any) => p.id)).toContain(made.id)

    const signedIn = await signInWith(key)
    expect(signedIn.status).toBe(200)
    expect((await body(signedIn)).data).toEqual({ signed_in: true })
    const cookies = signedIn.headers.getSetCookie()
    expect(cookies.some((c) => /^kotak_session=[^;]+; HttpOnly/.test(c))).toBe(true)
    const cookie = cookies.map((c) => c.split(';')[0]).join('; ')
    const me = await body(await s.fetch('/v1/me', { headers: { cookie } }))
    expect(me.data.user.email).toBe(w.ownerEmail)
    const used = (await body(await s.fetch('/v1/me/passkeys', { headers: owner.headers() }))).data
    expect(used.find((p: any) => p.id === made.id).last_used_at).not.toBeNull()
    // The session says how it began.
    const via = await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ via: string }>`SELECT via FROM sessions ORDER BY id DESC LIMIT 1`,
      ),
    )
    expect(via[0]!.via).toBe('passkey')
  })

  it('does not register one credential twice (409) and refuses a reused registration challenge', async () => {
    const key = new SoftKey()
    const options = await registrationOptions(owner)
    const answer = key.create(options, origin)
    expect((await post('/v1/me/passkeys', { name: 'Phone', response: answer }, owner.headers())).status).toBe(
      201,
    )
    const again = await post('/v1/me/passkeys', { name: 'Phone', response: answer }, owner.headers())
    expect(again.status).toBe(422)
    const e = (await body(again)).error
    expect(e.code).toBe('validation_error')
    expect(Object.keys(e.fields)).toEqual(['challenge'])
    // The same credential answering a fresh challenge is still the same credential.
    const dup = await post(
      '/v1/me/passkeys',
      { name: 'Phone', response: key.create(await registrationOptions(owner), origin) },
      owner.headers(),
    )
    expect(dup.status).toBe(409)
    expect((await body(dup)).error.code).toBe('conflict')
  })

  it('refuses a challenge another person was given, or one that expired', async () => {
    const theirs = await registrationOptions(agent)
    const res = await post(
      '/v1/me/passkeys',
      { name: 'Stolen', response: new SoftKey().create(theirs, origin) },
      owner.headers(),
    )
    expect(await refusedFields(res)).toEqual(['challenge'])

    const options = await registrationOptions(owner)
    await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql`UPDATE passkey_challenges SET expires_at = now() - interval '1 second' WHERE challenge = ${options.challenge}`,
      ),
    )
    const late = await post(
      '/v1/me/passkeys',
      { name: 'Late', response: new SoftKey().create(options, origin) },
      owner.headers(),
    )
    expect(await refusedFields(late)).toEqual(['challenge'])
  })

  it('refuses an answer made for another origin, and one it cannot read', async () => {
    const options = await registrationOptions(owner)
    const foreign = await post(
      '/v1/me/passkeys',
      { name: 'Phish', response: new SoftKey().create(options, 'https://kotak.example.net') },
      owner.headers(),
    )
    expect(await refusedFields(foreign)).toEqual(['origin'])

    const garbled = new SoftKey().create(await registrationOptions(owner), origin)
    const res = await post(
      '/v1/me/passkeys',
      {
        name: 'Garbled',
        response: { ...garbled, response: { ...garbled.response, clientDataJSON: 'bm90IGpzb24' } },
      },
      owner.headers(),
    )
    expect(await refusedFields(res)).toEqual(['response'])

    // A broken attestation with a good challenge: the verification refuses it, never a 500.
    const options2 = await registrationOptions(owner)
    const broken = new SoftKey().create(options2, origin)
    const bad = await post(
      '/v1/me/passkeys',
      {
        name: 'Broken',
        response: { ...broken, response: { ...broken.response, attestationObject: 'AAAA' } },
      },
      owner.headers(),
    )
    expect(await refusedFields(bad)).toEqual(['response'])
  })

  it('checks names and bodies: 422 with the field named', async () => {
    const options = await registrationOptions(owner)
    const blank = await post(
      '/v1/me/passkeys',
      { name: '   ', response: new SoftKey().create(options, origin) },
      owner.headers(),
    )
    expect(await refusedFields(blank)).toContain('name')
    const missing = await post('/v1/me/passkeys', { name: 'No answer' }, owner.headers())
    expect(await refusedFields(missing)).toContain('response')
    const signIn = await post('/auth/passkey', { response: { id: 'x' } }, from())
    expect(signIn.status).toBe(422)
    expect((await body(signIn)).error.code).toBe('validation_error')
  })
})

describe('who may do what', () => {
  it('keeps each person’s passkeys their own: another person’s id answers 404', async () => {
    const mine = await register(owner, new SoftKey(), 'Owner key')
    const seen = (await body(await s.fetch('/v1/me/passkeys', { headers: agent.headers() }))).data
    expect(seen.map((p: any) => p.id)).not.toContain(mine.id)
    const rename = await s.fetch(`/v1/me/passkeys/${mine.id}`, {
      ...F.json({ name: 'Mine now' }, agent.headers()),
      method: 'PATCH',
    })
    expect(rename.status).toBe(404)
    const del = await s.fetch(`/v1/me/passkeys/${mine.id}`, { method: 'DELETE', headers: agent.headers() })
    expect(del.status).toBe(404)
    const still = (await body(await s.fetch('/v1/me/passkeys', { headers: owner.headers() }))).data
    expect(still.find((p: any) => p.id === mine.id).name).toBe('Owner key')
  })

  it('is for signed-in people in the app: no session 401, an API key 403, no CSRF token 419', async () => {
    expect((await s.fetch('/v1/me/passkeys')).status).toBe(401)
    const key = await F.apiKey(s, w)
    const viaKey = await s.fetch('/v1/me/passkeys', { headers: F.bearer(key) })
    expect(viaKey.status).toBe(403)
    const noCsrf = await s.fetch('/v1/me/passkeys/options', {
      method: 'POST',
      headers: { cookie: owner.cookie },
    })
    expect(noCsrf.status).toBe(419)
  })
})

describe('renaming and deleting', () => {
  it('renames, and a deleted passkey signs nobody in', async () => {
    const key = new SoftKey()
    const made = await register(owner, key, 'Old name')
    const renamed = await s.fetch(`/v1/me/passkeys/${made.id}`, {
      ...F.json({ name: 'New name' }, owner.headers()),
      method: 'PATCH',
    })
    expect(renamed.status).toBe(200)
    expect((await body(renamed)).data.name).toBe('New name')
    expect((await signInWith(key)).status).toBe(200)

    const del = await s.fetch(`/v1/me/passkeys/${made.id}`, { method: 'DELETE', headers: owner.headers() })
    expect(del.status).toBe(200)
    expect((await body(del)).data).toEqual({ id: made.id, deleted: true })
    const after = await signInWith(key)
    expect(after.status).toBe(401)
    expect((await body(after)).error.code).toBe('unauthorized')
    expect(after.headers.getSetCookie()).toEqual([])
    const gone = await s.fetch(`/v1/me/passkeys/${made.id}`, { method: 'DELETE', headers: owner.headers() })
    expect(gone.status).toBe(404)
  })
})

describe('signing in: refusals', () => {
  it('refuses an unknown credential, a forged signature and a replayed answer', async () => {
    expect((await signInWith(new SoftKey())).status).toBe(401)

    const key = new SoftKey()
    await register(owner, key)
    const ip = from()
    const forged = await post(
      '/auth/passkey',
      { response: key.get(await signInOptions(ip), origin, new SoftKey().keys.privateKey) },
      ip,
    )
    expect(forged.status).toBe(401)
    expect((await body(forged)).error.code).toBe('unauthorized')

    const answer = key.get(await signInOptions(ip), origin)
    expect((await post('/auth/passkey', { response: answer }, ip)).status).toBe(200)
    const replay = await post('/auth/passkey', { response: answer }, ip)
    expect(await refusedFields(replay)).toEqual(['challenge'])
  })

  it('refuses a sign-in answer made for another origin, or with a registration challenge', async () => {
    const key = new SoftKey()
    await register(owner, key)
    const ip = from()
    const foreign = await post(
      '/auth/passkey',
      { response: key.get(await signInOptions(ip), 'https://kotak.example.net') },
      ip,
    )
    expect(await refusedFields(foreign)).toEqual(['origin'])
    // A challenge issued to register a passkey does not sign anyone in.
    const reg = await registrationOptions(owner)
    const crossed = await post(
      '/auth/passkey',
      { response: key.get({ ...reg, rpId: reg.rp.id }, origin) },
      ip,
    )
    expect(await refusedFields(crossed)).toEqual(['challenge'])
  })

  it('limits sign-in attempts per address: 429 with Retry-After', async () => {
    const ip = from()
    const key = new SoftKey()
    // More than two windows' worth can never all fit in the budget, even across a minute's turn.
    let limited: Response | undefined
    for (let i = 0; i < 45 && !limited; i++) {
      const res = await signInWith(key, ip)
      if (res.status === 429) limited = res
      else expect(res.status).toBe(401)
    }
    expect(limited).toBeDefined()
    expect((await body(limited!)).error.code).toBe('rate_limited')
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0)
    // Another address is not held back.
    expect((await signInWith(key)).status).toBe(401)
  })
})

describe('sessions a passkey began', () => {
  const cookieOf = (res: Response) =>
    res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .join('; ')
  const csrfOf = (cookie: string) => /kotak_csrf=([^;]*)/.exec(cookie)![1]!

  it('end when the passkey is deleted from another session, sockets and all; others stay', async () => {
    const key = new SoftKey()
    const spare = new SoftKey()
    const made = await register(owner, key, 'Lost phone')
    await register(owner, spare, 'Desk key')
    const viaKey = await signInWith(key)
    expect(viaKey.status).toBe(200)
    const started = cookieOf(viaKey)
    const viaSpare = cookieOf(await signInWith(spare))
    const token = await post('/v1/realtime/token', {}, { cookie: started, 'x-csrf-token': csrfOf(started) })
    const socket = await connect((await body(token)).data.url)
    const spareToken = await post(
      '/v1/realtime/token',
      {},
      { cookie: viaSpare, 'x-csrf-token': csrfOf(viaSpare) },
    )
    const spareSocket = await connect((await body(spareToken)).data.url)
    expect((await s.fetch('/v1/me', { headers: { cookie: started } })).status).toBe(200)

    const del = await s.fetch(`/v1/me/passkeys/${made.id}`, { method: 'DELETE', headers: owner.headers() })
    expect(del.status).toBe(200)
    const after = await s.fetch('/v1/me', { headers: { cookie: started } })
    expect(after.status).toBe(401)
    expect((await body(after)).error.code).toBe('unauthorized')
    expect((await socket.closed).code).toBe(4503)
    // The session that deleted it, and one another passkey began, go on.
    expect((await s.fetch('/v1/me', { headers: owner.headers() })).status).toBe(200)
    expect((await s.fetch('/v1/me', { headers: { cookie: viaSpare } })).status).toBe(200)
    // …and so do their sockets: only the ended session's closed.
    spareSocket.send({ op: 'ping', ref: 'still' })
    expect((await spareSocket.next((f) => f.op === 'pong')).ref).toBe('still')
    spareSocket.close()
    // The ended session is kept on record, without the passkey it named.
    const rows = await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{ ended: boolean; passkey_id: number | null }>`
            SELECT ended_at IS NOT NULL AS ended, passkey_id FROM sessions
            WHERE via = 'passkey' AND user_id = (SELECT user_id FROM passkeys WHERE name = 'Desk key' LIMIT 1)
            ORDER BY id DESC LIMIT 2`,
      ),
    )
    expect(rows.map((r) => r.ended)).toEqual([false, true])
    expect(rows[1]!.passkey_id).toBeNull()
  })

  it('a passkey sign-in in a browser that had a session ends that session', async () => {
    const key = new SoftKey()
    await register(owner, key, 'Tablet')
    const first = cookieOf(await signInWith(key))
    const ip = from()
    const again = await post(
      '/auth/passkey',
      { response: key.get(await signInOptions(ip), origin) },
      {
        ...ip,
        cookie: first,
      },
    )
    expect(again.status).toBe(200)
    expect((await s.fetch('/v1/me', { headers: { cookie: first } })).status).toBe(401)
    expect((await s.fetch('/v1/me', { headers: { cookie: cookieOf(again) } })).status).toBe(200)
  })
})

describe('signing in with a passkey: login CSRF (security review)', () => {
  it('another site’s page, or a type a form may send, signs nobody in', async () => {
    const key = new SoftKey()
    await register(owner, key, 'CSRF check')
    const ip = from()
    const crossSite = await post(
      '/auth/passkey',
      { response: key.get(await signInOptions(ip), origin) },
      { ...ip, 'sec-fetch-site': 'cross-site' },
    )
    expect(crossSite.status).toBe(403)
    expect((await body(crossSite)).error.code).toBe('forbidden')
    expect(crossSite.headers.getSetCookie()).toEqual([])
    // A CORS-safelisted type that only mentions JSON: no preflight, so it must not count as JSON.
    const loose = await s.fetch('/auth/passkey', {
      method: 'POST',
      headers: { ...ip, 'content-type': 'text/plain; x=application/json' },
      body: JSON.stringify({ response: key.get(await signInOptions(ip), origin) }),
    })
    expect(loose.status).toBe(422)
    expect((await body(loose)).error.fields.body).toMatch(/application\/json/)
    expect(loose.headers.getSetCookie()).toEqual([])
    const own = await post(
      '/auth/passkey',
      { response: key.get(await signInOptions(ip), origin) },
      { ...ip, 'sec-fetch-site': 'same-origin' },
    )
    expect(own.status).toBe(200)
  })
})

describe('telling the owner', () => {
  it('e-mails the person when a passkey is added, in their language, naming it', async () => {
    const person = await F.member(s, w)
    const session = await F.signIn(s, person.email)
    await s.fetch('/v1/me', { ...F.json({ locale: 'id' }, session.headers()), method: 'PATCH' })
    await register(session, new SoftKey(), 'Ponsel kantor')
    const mail = await smtp.waitFor((m) => m.to.includes(person.email))
    expect(mail.parsed.subject).toBe('Passkey ditambahkan ke akun Kotak Anda')
    expect(String(mail.parsed.text)).toContain('"Ponsel kantor"')
    expect(String(mail.parsed.text)).toContain(`${s.cfg.publicUrl}/app/passkeys`)
  })
})
