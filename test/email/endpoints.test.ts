import * as net from 'node:net'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectSmtp, probe, SignInRefused } from '../../connectors/email/mailbox'
import * as F from '../support/fixtures'
import { freePort, startTestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { body, connectMailbox, EMAIL_ENV, type MailWorld, mailbox, servers, startMailWorld } from './support'

let w: MailWorld
let ws: F.Seeded
let owner: F.Session
beforeAll(async () => {
  w = await startMailWorld()
  ws = await F.workspace(w.s, { plan: 'pro' })
  owner = await F.signIn(w.s, ws.ownerEmail)
})
afterAll(() => w?.stop())

const post = (path: string, b: unknown, session = owner) => w.s.fetch(path, F.json(b, session.headers()))
const patch = (path: string, b: unknown) =>
  w.s.fetch(path, { ...F.json(b, owner.headers()), method: 'PATCH' })

describe.skipIf(lacks('dovecot-imapd'))('e-mail channel endpoints', () => {
  it('detect: known providers, app-password hints, the unsupported suite, and the generic fallback', async () => {
    const gmail = await body(await post('/v1/channels/email/detect', { address: 'someone@gmail.com' }))
    expect(gmail.data).toMatchObject({
      provider: 'gmail',
      supported: true,
      imap: { host: 'imap.gmail.com', port: 993, security: 'ssl' },
      smtp: { host: 'smtp.gmail.com' },
      hint: 'app_password',
    })
    expect(gmail.data.hint_text).toMatch(/app password/)
    const yahoo = await body(await post('/v1/channels/email/detect', { address: 'a@yahoo.com' }))
    expect(yahoo.data.provider).toBe('yahoo')
    const other = await body(await post('/v1/channels/email/detect', { address: 'a@shop.example' }))
    expect(other.data).toMatchObject({
      provider: 'other',
      imap: { host: 'imap.shop.example' },
      smtp: { host: 'smtp.shop.example' },
      hint: null,
    })
    const bad = await post('/v1/channels/email/detect', { address: 'not-an-address' })
    expect(bad.status).toBe(422)
    expect((await body(bad)).error.fields.address).toBeTruthy()
    // Signed-in sessions only.
    const key = await F.apiKey(w.s, ws)
    expect(
      (await w.s.fetch('/v1/channels/email/detect', F.json({ address: 'a@gmail.com' }, F.bearer(key))))
        .status,
    ).toBe(403)
  })

  it('test: signs in to both servers, lists folders and the special-use Sent folder; per-field 422', async () => {
    const box = mailbox(w)
    const good = await post('/v1/channels/email/test', {
      address: box.address,
      password: box.password,
      ...servers(w),
    })
    const g = await body(good)
    expect(good.status, JSON.stringify(g)).toBe(200)
    expect(g.data.sent_folder).toBe('Sent')
    expect(g.data.folders).toEqual(expect.arrayContaining(['Sent', 'Projects']))
    expect(g.data.folders).not.toContain('INBOX')
    expect(w.smtp.received).toHaveLength(0)

    const wrong = await post('/v1/channels/email/test', {
      address: box.address,
      password: 'wrong',
      ...servers(w),
    })
    expect(wrong.status).toBe(422)
    expect(Object.keys((await body(wrong)).error.fields)).toEqual(['password'])

    const smtpOnly = await post('/v1/channels/email/test', {
      address: box.address,
      password: box.password,
      ...servers(w),
      smtp_password: 'also-wrong',
    })
    expect(smtpOnly.status).toBe(422)
    expect(Object.keys((await body(smtpOnly)).error.fields)).toEqual(['smtp_password'])

    const closed = await post('/v1/channels/email/test', {
      address: box.address,
      password: box.password,
      ...servers(w),
      imap_port: 1,
    })
    expect(closed.status).toBe(422)
    expect(Object.keys((await body(closed)).error.fields)).toEqual(['imap_host'])

    const nowhere = await post('/v1/channels/email/test', {
      address: box.address,
      password: box.password,
      ...servers(w),
      smtp_host: 'no-such-host.invalid',
    })
    expect(nowhere.status).toBe(422)
    expect(Object.keys((await body(nowhere)).error.fields)).toEqual(['smtp_host'])
  })

  it('connect: password sealed and never answered; 409 for an address in another workspace; 404 across workspaces', async () => {
    const box = mailbox(w)
    const ch = await connectMailbox(w, owner, box, {
      folders: ['Projects'],
      history_days: 3,
      sender_name: 'Support',
    })
    expect(ch.type).toBe('email')
    expect(ch.email).toMatchObject({
      address: box.address,
      folders: ['Projects'],
      sent_folder: 'Sent',
      history_days: 3,
      save_sent: true,
      sender_name: 'Support',
    })
    expect(JSON.stringify(ch)).not.toContain(box.password)
    // The channel detail shows the same e-mail block, without the password.
    const detail = await body(await w.s.fetch(`/v1/channels/${ch.id}`, { headers: owner.headers() }))
    expect(detail.data.email).toEqual(ch.email)
    expect(JSON.stringify(detail)).not.toContain(box.password)
    const list = await w.s.fetch('/v1/channels', { headers: owner.headers() })
    const text = await list.text()
    expect(text).not.toContain(box.password)
    expect(JSON.parse(text).data.some((c: { id: number }) => c.id === ch.id)).toBe(true)
    const stored = (await w.s.run((await import('../../store/email')).byChannel(ch.id) as never)) as {
      password_sealed: string
    }
    expect(stored.password_sealed).not.toContain(box.password)
    expect(stored.password_sealed).toMatch(/^v1\./)

    const other = await F.workspace(w.s, { plan: 'pro' })
    const otherOwner = await F.signIn(w.s, other.ownerEmail)
    const taken = await post(
      '/v1/channels/email',
      { address: box.address.toUpperCase(), password: box.password, ...servers(w) },
      otherOwner,
    )
    expect(taken.status).toBe(409)
    expect((await body(taken)).error.code).toBe('conflict')
    // Another workspace's channel does not exist for them.
    expect((await patch(`/v1/channels/${ch.id}/email`, { name: 'x' })).status).toBe(200)
    const foreign = await w.s.fetch(`/v1/channels/${ch.id}/email/folders`, { headers: otherOwner.headers() })
    expect(foreign.status).toBe(404)

    const unknownFolder = await post('/v1/channels/email', {
      address: mailbox(w).address,
      password: 'x',
      ...servers(w),
    })
    expect(unknownFolder.status).toBe(422)
  })

  it('counts against the channel quota shared by all types (Free: one channel → 402)', async () => {
    const free = await F.workspace(w.s, { plan: 'free' })
    const freeOwner = await F.signIn(w.s, free.ownerEmail)
    await connectMailbox(w, freeOwner, mailbox(w))
    const box = mailbox(w)
    const second = await post(
      '/v1/channels/email',
      { address: box.address, password: box.password, ...servers(w) },
      freeOwner,
    )
    expect(second.status).toBe(402)
    const list = await body(await w.s.fetch('/v1/channels', { headers: freeOwner.headers() }))
    expect(list.meta.quota).toEqual({ used: 1, limit: 1 })
  })

  it('refuses mail servers on private addresses unless EMAIL_ALLOW_INSECURE', async () => {
    const box = mailbox(w)
    const refused = await probe(
      {
        address: box.address,
        imap: {
          host: w.dovecot.host,
          port: w.dovecot.port,
          security: 'ssl',
          user: box.address,
          pass: box.password,
        },
        smtp: {
          host: w.smtp.host,
          port: w.smtp.port,
          security: 'ssl',
          user: box.address,
          pass: box.password,
        },
      },
      { allowInsecure: false },
      'password',
    ).then(
      () => null,
      (e: unknown) => (e instanceof SignInRefused ? e.refusal : e),
    )
    expect(refused).toMatchObject({ reason: 'not_allowed' })
    // Every outgoing mail checks the server again, by the name's answer now (a name can come to
    // answer with an address of our own network after the mailbox was saved).
    const outbound = await connectSmtp(
      { host: 'localhost', port: w.smtp.port, security: 'ssl', user: box.address, pass: box.password },
      { allowInsecure: false },
    ).then(
      () => null,
      (e: unknown) => (e instanceof SignInRefused ? e.refusal : e),
    )
    expect(outbound).toEqual({ field: 'smtp_host', reason: 'not_allowed' })
  })

  it('patch: changed credentials are re-tested before saving; other changes save directly', async () => {
    const box = mailbox(w)
    const ch = await connectMailbox(w, owner, box)
    const bad = await patch(`/v1/channels/${ch.id}/email`, { password: 'wrong-now' })
    expect(bad.status).toBe(422)
    expect(Object.keys((await body(bad)).error.fields)).toEqual(['password'])
    const badFolder = await patch(`/v1/channels/${ch.id}/email`, { folders: ['Nope'] })
    expect(badFolder.status).toBe(422)
    expect((await body(badFolder)).error.fields.folders).toBeTruthy()
    const good = await patch(`/v1/channels/${ch.id}/email`, {
      folders: ['Projects'],
      signature_html: '<p>Regards</p>',
      sender_with_agent: true,
      ignore: ['@noreply.example'],
      name: 'Support mail',
    })
    const g = await body(good)
    expect(good.status, JSON.stringify(g)).toBe(200)
    expect(g.data.name).toBe('Support mail')
    expect(g.data.email).toMatchObject({
      folders: ['Projects'],
      sender_with_agent: true,
      ignore: ['@noreply.example'],
    })
    expect(JSON.stringify(g)).not.toContain(box.password)
    // The stored password still works: a bad password was never saved.
    const folders = await body(
      await w.s.fetch(`/v1/channels/${ch.id}/email/folders`, { headers: owner.headers() }),
    )
    expect(folders.data.folders).toEqual(
      expect.arrayContaining([
        { name: 'Projects', selected: true },
        { name: 'Sent', selected: false },
      ]),
    )
    expect(folders.data.sent_folder).toBe('Sent')
    const notEmail = await w.s.fetch('/v1/channels/999999/email/folders', { headers: owner.headers() })
    expect(notEmail.status).toBe(404)
  })

  it('patch: a new server is never signed in to with the stored password (it would learn it)', async () => {
    const box = mailbox(w)
    const ch = await connectMailbox(w, owner, box)
    // Servers of the caller's choosing that note every password they are given.
    const heard: string[] = []
    const smtp = new SMTPServer({
      secure: false,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      logger: false,
      onAuth(auth, _session, cb) {
        heard.push(String(auth.password))
        cb(new Error('Invalid username or password'))
      },
    })
    const smtpPort = await freePort()
    await new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve))
    const imap = net.createServer((sock) => {
      sock.write('* OK IMAP4rev1 ready\r\n')
      sock.on('data', (d) => {
        for (const line of d.toString().split('\r\n').filter(Boolean)) {
          heard.push(line)
          const [tag, cmd] = line.split(' ')
          if (cmd?.toUpperCase() === 'CAPABILITY') sock.write(`* CAPABILITY IMAP4rev1\r\n${tag} OK done\r\n`)
          else sock.write(`${tag} NO [AUTHENTICATIONFAILED] no\r\n`)
        }
      })
    })
    const imapPort = await freePort()
    await new Promise<void>((resolve) => imap.listen(imapPort, '127.0.0.1', resolve))
    try {
      const toSmtp = await patch(`/v1/channels/${ch.id}/email`, { smtp_port: smtpPort })
      expect(toSmtp.status).toBe(422)
      expect((await body(toSmtp)).error.fields.password).toBeTruthy()
      const toImap = await patch(`/v1/channels/${ch.id}/email`, { imap_port: imapPort })
      expect(toImap.status).toBe(422)
      expect((await body(toImap)).error.fields.password).toBeTruthy()
      expect(heard.join('\n')).not.toContain(box.password)
      // With the password given, the change is tried (and here refused by that server).
      const given = await patch(`/v1/channels/${ch.id}/email`, { smtp_port: smtpPort, password: 'typed-now' })
      expect(given.status).toBe(422)
      expect(heard).toContain('typed-now')
      expect(heard.join('\n')).not.toContain(box.password)
    } finally {
      await new Promise<void>((resolve) => smtp.close(() => resolve()))
      imap.close()
    }
  })
})

describe.runIf(process.env.REDIS_URL && !lacks('dovecot-imapd'))('a cluster node without SECRETS_KEY', () => {
  it('refuses to store a mailbox password with 503 unavailable', async () => {
    const s = await startTestServer({ ...EMAIL_ENV, SECRETS_KEY: '' })
    try {
      const ws2 = await F.workspace(s, { plan: 'pro' })
      const o = await F.signIn(s, ws2.ownerEmail)
      const box = mailbox(w)
      const res = await s.fetch(
        '/v1/channels/email',
        F.json({ address: box.address, password: box.password, ...servers(w) }, o.headers()),
      )
      expect(res.status).toBe(503)
      expect((await body(res)).error.code).toBe('unavailable')
    } finally {
      await s.stop()
    }
  })
})
