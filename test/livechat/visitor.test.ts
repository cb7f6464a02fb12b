import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Workspaces from '../../store/workspaces'
import { type Smtp, startSmtp } from '../email/dovecot'
import { advance } from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'
import { body, createLivechat, form, patch, png, sleep, startVisitor, v } from './support'

/**
 * Spec 1 §4.6 widget endpoints over HTTP and WebSocket against a real server: config (the only
 * CORS answer), start with its form token and per-address budget, conversation, idempotent send
 * with files, visitor-only file access, real-time `visitor:{session}` with queue, pickup, replies,
 * typing and read, `visitor.online`, allowed domains, and the e-mail fallback.
 */
let smtp: Smtp
let s: TestServer
let w: F.Seeded
let owner: F.Session
let ch: any
let key: string
beforeAll(async () => {
  smtp = await startSmtp()
  smtp.accounts.set('mailer@kotak.test', 'pw')
  s = await startTestServer({
    LIVECHAT_MIN_FILL_MS: '150',
    LIVECHAT_STARTS_PER_MINUTE: '1000',
    MSGAPP_TRANSPORT: 'test',
    SMTP_URL: `smtp://mailer%40kotak.test:pw@${smtp.host}:${smtp.port}`,
    MAIL_FROM: 'Kotak <no-reply@kotak.test>',
  })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  ch = await createLivechat(s, owner, { title: 'Acme chat' })
  key = ch.livechat.key
})
afterAll(async () => {
  await s?.stop()
  await smtp?.stop()
})

/** Start with the minimum fill time respected. */
const start = async (k = key, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
  const cfg = await body(await s.fetch(`/v1/livechat/${k}/config`))
  await sleep(200)
  return startVisitor(s, k, { form_token: cfg.data.form_token, ...extra }, headers)
}
const send = (token: string, b: Record<string, unknown>, k = key) =>
  s.fetch(`/v1/livechat/${k}/messages`, F.json(b, v(token)))
const agentSocket = async (channels: string[]) => {
  const t = await body(await s.fetch('/v1/realtime/token', F.json({ channels }, owner.headers())))
  const c = await connect(t.data.url)
  for (const _ of channels) await c.next((f) => f.op === 'subscribed')
  return c
}
const visitorSocket = async (token: string, k = key) => {
  const r = await body(await s.fetch(`/v1/livechat/${k}/realtime`, F.json({}, v(token))))
  const c = await connect(r.data.url)
  await c.next((f) => f.op === 'subscribed' && f.channel === r.data.channel)
  return { c, channel: r.data.channel as string }
}

describe('a visitor’s socket and its channel', () => {
  it('archiving the channel ends the visitor’s subscription (unsubscribed, access_lost)', async () => {
    const other = await createLivechat(s, owner, { title: 'Archived soon' })
    const d = await start(other.livechat.key)
    const { c, channel } = await visitorSocket(d.token, other.livechat.key)
    // A message of the visitor's makes a conversation, so the channel is archived, not deleted.
    expect((await send(d.token, { text: 'hello', client_id: 'arch-1' }, other.livechat.key)).status).toBe(201)
    const gone = await s.fetch(`/v1/channels/${other.id}`, { method: 'DELETE', headers: owner.headers() })
    expect(gone.status).toBeLessThan(300)
    const f = await c.next((x) => x.op === 'unsubscribed' && x.channel === channel)
    expect(f.reason).toBe('access_lost')
    c.close()
  })
})

describe('config and start', () => {
  it('config answers the widget look, hours, form token, and CORS for any origin; nothing else is CORS-open', async () => {
    const r = await s.fetch(`/v1/livechat/${key}/config`, { headers: { origin: 'https://shop.example.com' } })
    expect(r.status).toBe(200)
    expect(r.headers.get('access-control-allow-origin')).toBe('*')
    const d = (await body(r)).data
    expect(d).toMatchObject({ title: 'Acme chat', attachments: 'images', allowed: true, logo_url: null })
    expect(typeof d.open).toBe('boolean')
    expect(typeof d.form_token).toBe('string')
    const started = await start()
    for (const res of [
      await s.fetch(`/v1/livechat/${key}/conversation`, {
        headers: v(started.token, { origin: 'https://x.test' }),
      }),
      await s.fetch(`/v1/livechat/${key}/logo`, { headers: { origin: 'https://x.test' } }),
      await s.fetch('/v1/channels', { headers: owner.headers({ origin: 'https://x.test' }) }),
    ])
      expect(res.headers.get('access-control-allow-origin')).toBeNull()
    expect((await s.fetch('/v1/livechat/lc_AAAAAAAAAAAAAAAAAAAAAAAA/config')).status).toBe(404)
  })

  it('starts a chat: token, session, queue position; the agent sees a new live chat in the inbox', async () => {
    const agent = await agentSocket([`ws:${w.workspaceId}`])
    const d = await start()
    expect(d.token).toMatch(/^lcv_/)
    expect(d.channel).toBe(`visitor:${d.session}`)
    expect(d.queue.waiting).toBe(true)
    expect(d.queue.position).toBeGreaterThanOrEqual(1)
    expect(d.agent).toBeNull()
    const ev = await agent.next(
      (f: any) => f.event === 'inbox.changed' && f.data.interaction_id === d.interaction_id,
    )
    expect(ev.data.channel_id).toBe(ch.id)
    const conv = await body(
      await s.fetch(`/v1/interactions/${d.interaction_id}`, { headers: owner.headers() }),
    )
    expect(conv.data.contact?.name ?? conv.data.contact_name ?? JSON.stringify(conv.data)).toContain(
      'Vera Visitor',
    )
    agent.close()
  })

  it('refuses missing fields, a forged, reused or too-fast form token (422) and keeps a per-address budget (429)', async () => {
    const cfg = (await body(await s.fetch(`/v1/livechat/${key}/config`))).data
    const missing = await s.fetch(`/v1/livechat/${key}/visitors`, F.json({ form_token: cfg.form_token }))
    expect(missing.status).toBe(422)
    expect(Object.keys((await body(missing)).error.fields).sort()).toEqual(['email', 'name', 'phone'])
    const base = { name: 'A', email: 'a@example.com', phone: '+6281234567' }
    // Too fast whatever the machine's load: the server's clock goes back while it is sent.
    await advance(s, -60_000)
    const fast = await s.fetch(
      `/v1/livechat/${key}/visitors`,
      F.json({ ...base, form_token: cfg.form_token }),
    )
    await advance(s, 60_000)
    expect(fast.status).toBe(422)
    expect(Object.keys((await body(fast)).error.fields)).toEqual(['form_token'])
    await sleep(200)
    const forged = await s.fetch(
      `/v1/livechat/${key}/visitors`,
      F.json({ ...base, form_token: `${cfg.form_token.slice(0, -3)}abc` }),
    )
    expect(forged.status).toBe(422)
    const first = await s.fetch(
      `/v1/livechat/${key}/visitors`,
      F.json({ ...base, form_token: cfg.form_token }),
    )
    expect(first.status).toBe(201)
    const again = await s.fetch(
      `/v1/livechat/${key}/visitors`,
      F.json({ ...base, form_token: cfg.form_token }),
    )
    expect(again.status).toBe(422)
    // Another channel's token is no good here.
    const other = await createLivechat(s, owner)
    const otherCfg = (await body(await s.fetch(`/v1/livechat/${other.livechat.key}/config`))).data
    await sleep(200)
    const cross = await s.fetch(
      `/v1/livechat/${key}/visitors`,
      F.json({ ...base, form_token: otherCfg.form_token }),
    )
    expect(cross.status).toBe(422)
    const badEmail = await s.fetch(
      `/v1/livechat/${key}/visitors`,
      F.json({ ...base, email: 'nope', phone: 'x', form_token: otherCfg.form_token }),
    )
    expect(Object.keys((await body(badEmail)).error.fields).sort()).toEqual(['email', 'phone'])
  })

  it('per-address budget of starts (429 with Retry-After)', async () => {
    const s2 = await startTestServer({ LIVECHAT_MIN_FILL_MS: '0', LIVECHAT_STARTS_PER_MINUTE: '2' })
    try {
      const w2 = await F.workspace(s2, { plan: 'free' })
      const o2 = await F.signIn(s2, w2.ownerEmail)
      const c2 = await createLivechat(s2, o2)
      const statuses: number[] = []
      for (let i = 0; i < 3; i++) {
        const cfg = (await body(await s2.fetch(`/v1/livechat/${c2.livechat.key}/config`))).data
        const r = await s2.fetch(
          `/v1/livechat/${c2.livechat.key}/visitors`,
          F.json({ name: 'A', email: `a${i}@example.com`, phone: '+6281234567', form_token: cfg.form_token }),
        )
        statuses.push(r.status)
        if (r.status === 429) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
      }
      expect(statuses).toEqual([201, 201, 429])
    } finally {
      await s2.stop()
    }
    // A second server of its own: on the embedded database its start (every migration) alone
    // can take most of 30 s on a loaded machine.
  }, 90_000)

  it('consent must be accepted when the widget asks for it', async () => {
    const c = await createLivechat(s, owner)
    await s.fetch(`/v1/channels/${c.id}/livechat`, patch({ consent: 'I agree' }, owner.headers()))
    const cfg = (await body(await s.fetch(`/v1/livechat/${c.livechat.key}/config`))).data
    expect(cfg.consent).toBe('I agree')
    await sleep(200)
    const r = await s.fetch(
      `/v1/livechat/${c.livechat.key}/visitors`,
      F.json({ name: 'A', email: 'a@example.com', phone: '+6281234567', form_token: cfg.form_token }),
    )
    expect(r.status).toBe(422)
    expect(Object.keys((await body(r)).error.fields)).toEqual(['consent'])
    await start(c.livechat.key, { consent: true })
  })
})

describe('business hours and frozen workspaces', () => {
  it('config says whether the channel is open now (its own hours, else the workspace’s)', async () => {
    const c = await createLivechat(s, owner)
    const closedAllWeek = {
      enabled: true,
      days: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open: false, from: '09:00', to: '17:00' })),
    }
    await s.fetch(`/v1/channels/${c.id}/livechat`, patch({ hours: closedAllWeek }, owner.headers()))
    const cfg = (await body(await s.fetch(`/v1/livechat/${c.livechat.key}/config`))).data
    expect(cfg).toMatchObject({ open: false, email_fallback: true })
    await s.fetch(
      `/v1/channels/${c.id}/livechat`,
      patch({ hours: { enabled: false, days: [] } }, owner.headers()),
    )
    expect((await body(await s.fetch(`/v1/livechat/${c.livechat.key}/config`))).data.open).toBe(true)
  })

  it('a frozen workspace keeps showing the widget but refuses its writes (423)', async () => {
    const w2 = await F.workspace(s, { plan: 'pro' })
    const o2 = await F.signIn(s, w2.ownerEmail)
    const c = await createLivechat(s, o2)
    const d = await start(c.livechat.key)
    const cfg = (await body(await s.fetch(`/v1/livechat/${c.livechat.key}/config`))).data
    await s.run(Workspaces.setFrozen(w2.workspaceId, true))
    expect((await s.fetch(`/v1/livechat/${c.livechat.key}/config`)).status).toBe(200)
    expect(
      (await s.fetch(`/v1/livechat/${c.livechat.key}/conversation`, { headers: v(d.token) })).status,
    ).toBe(200)
    expect((await send(d.token, { text: 'hi', client_id: 'z' }, c.livechat.key)).status).toBe(423)
    await sleep(200)
    const r = await s.fetch(
      `/v1/livechat/${c.livechat.key}/visitors`,
      F.json({ name: 'A', email: 'a@example.com', phone: '+6281234567', form_token: cfg.form_token }),
    )
    expect(r.status).toBe(423)
  })
})

describe('allowed domains', () => {
  it('config says whether the page may show the widget; starting from another site is 403; the frame names its ancestors', async () => {
    const c = await createLivechat(s, owner)
    const k = c.livechat.key
    await s.fetch(
      `/v1/channels/${c.id}/livechat`,
      patch({ allowed_domains: ['shop.example.com', '*.acme.test'] }, owner.headers()),
    )
    const allowed = async (q: string, h: Record<string, string> = {}) =>
      (await body(await s.fetch(`/v1/livechat/${k}/config${q}`, { headers: h }))).data.allowed
    expect(await allowed(`?page=${encodeURIComponent('https://shop.example.com/a')}`)).toBe(true)
    expect(await allowed(`?page=${encodeURIComponent('https://www.acme.test/')}`)).toBe(true)
    expect(await allowed(`?page=${encodeURIComponent('https://evil.test/')}`)).toBe(false)
    expect(await allowed('', { origin: 'https://acme.test' })).toBe(true)
    expect(await allowed('', { origin: 'https://evil.test' })).toBe(false)
    expect(await allowed('')).toBe(false)
    const cfg = (await body(await s.fetch(`/v1/livechat/${k}/config`))).data
    await sleep(200)
    const refused = await s.fetch(
      `/v1/livechat/${k}/visitors`,
      F.json({
        name: 'A',
        email: 'a@example.com',
        phone: '+6281234567',
        page_url: 'https://evil.test/',
        form_token: cfg.form_token,
      }),
    )
    expect(refused.status).toBe(403)
    await start(k, { page_url: 'https://shop.example.com/checkout' })
    const frame = await s.fetch(`/livechat/${k}/frame`)
    expect(frame.status).toBe(200)
    expect(frame.headers.get('content-security-policy')).toContain(
      'frame-ancestors http://shop.example.com:* https://shop.example.com:* http://*.acme.test:* https://*.acme.test:*',
    )
    expect(frame.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('visitor endpoints', () => {
  it('401 without, with a bad or another channel’s token; 404 for an unknown or replaced key', async () => {
    const d = await start()
    const other = await createLivechat(s, owner)
    const o = await start(other.livechat.key)
    const paths: Array<[string, string, unknown?]> = [
      ['GET', '/conversation'],
      ['POST', '/messages', { text: 'x', client_id: 'c1' }],
      ['GET', '/files/1'],
      ['POST', '/realtime', {}],
      ['POST', '/typing', {}],
      ['POST', '/seen', {}],
    ]
    for (const [method, p, b] of paths) {
      const call = (k: string, h: Record<string, string>) =>
        s.fetch(`/v1/livechat/${k}${p}`, {
          method,
          headers: { ...h, ...(b ? { 'content-type': 'application/json' } : {}) },
          body: b ? JSON.stringify(b) : undefined,
        })
      expect((await call(key, {})).status, `${p} no token`).toBe(401)
      expect((await call(key, v('lcv_' + 'x'.repeat(43)))).status, `${p} bad token`).toBe(401)
      expect((await call(key, v(o.token))).status, `${p} other channel`).toBe(401)
      expect((await call('lc_AAAAAAAAAAAAAAAAAAAAAAAA', v(d.token))).status, `${p} unknown key`).toBe(404)
    }
    // Replacing the key: the old one names nothing, the visitor's token works under the new one.
    const r = await body(await s.fetch(`/v1/channels/${other.id}/livechat/key`, F.json({}, owner.headers())))
    expect(
      (await s.fetch(`/v1/livechat/${other.livechat.key}/conversation`, { headers: v(o.token) })).status,
    ).toBe(404)
    expect((await s.fetch(`/v1/livechat/${r.data.key}/conversation`, { headers: v(o.token) })).status).toBe(
      200,
    )
  })

  it('sends with client_id: a resend never duplicates; conversation lists messages after an id', async () => {
    const d = await start()
    const a = await send(d.token, { text: 'Hello, anyone there?', client_id: 'm-1' })
    expect(a.status).toBe(201)
    const first = (await body(a)).data
    expect(first).toMatchObject({
      direction: 'in',
      from: 'visitor',
      body: 'Hello, anyone there?',
      client_id: 'm-1',
    })
    const again = await send(d.token, { text: 'Hello, anyone there?', client_id: 'm-1' })
    expect(again.status).toBe(200)
    expect((await body(again)).data.id).toBe(first.id)
    const b = (await body(await send(d.token, { text: 'Second', client_id: 'm-2' }))).data
    const all = (await body(await s.fetch(`/v1/livechat/${key}/conversation`, { headers: v(d.token) }))).data
    expect(all.messages.map((m: any) => m.id)).toEqual([first.id, b.id])
    expect(all.queue.waiting).toBe(true)
    const after = (
      await body(await s.fetch(`/v1/livechat/${key}/conversation?after=${first.id}`, { headers: v(d.token) }))
    ).data
    expect(after.messages.map((m: any) => m.id)).toEqual([b.id])
    expect((await send(d.token, { text: '   ', client_id: 'm-3' })).status).toBe(422)
    expect((await send(d.token, { text: 'x' })).status).toBe(422)
    // Agent notes never reach the visitor.
    await s.fetch(
      `/v1/interactions/${d.interaction_id}/messages`,
      F.json({ type: 'note', text: 'secret note' }, owner.headers()),
    )
    const again2 = (await body(await s.fetch(`/v1/livechat/${key}/conversation`, { headers: v(d.token) })))
      .data
    expect(JSON.stringify(again2)).not.toContain('secret note')
  })

  it('files follow `attachments` and are reachable by that visitor only', async () => {
    const c = await createLivechat(s, owner)
    const k = c.livechat.key
    const d = await start(k)
    const other = await start(k)
    const up = (token: string, bytes: Buffer, name: string, type: string, cid: string) =>
      s.fetch(`/v1/livechat/${k}/messages`, {
        method: 'POST',
        headers: v(token),
        body: form({ client_id: cid, text: 'see file' }, { file: { bytes, name, type } }),
      })
    // Default `images`: a PNG goes, a text file posing as an image does not.
    const image = await up(d.token, png(8, 8), 'shot.png', 'image/png', 'f1')
    expect(image.status).toBe(201)
    const sent = (await body(image)).data
    expect(sent.type).toBe('image')
    expect(sent.media.url).toMatch(new RegExp(`^/v1/livechat/${k}/files/\\d+$`))
    const fake = await up(d.token, Buffer.from('hello'), 'x.png', 'image/png', 'f2')
    expect(fake.status).toBe(422)
    expect(Object.keys((await body(fake)).error.fields)).toEqual(['file'])
    const mine = await s.fetch(sent.media.url, { headers: v(d.token) })
    expect(mine.status).toBe(200)
    expect(Buffer.from(await mine.arrayBuffer()).equals(png(8, 8))).toBe(true)
    expect((await s.fetch(sent.media.url, { headers: v(other.token) })).status).toBe(404)
    expect((await s.fetch(sent.media.url)).status).toBe(401)
    // `files`: any file; `off`: none.
    await s.fetch(`/v1/channels/${c.id}/livechat`, patch({ attachments: 'files' }, owner.headers()))
    expect((await up(d.token, Buffer.from('%PDF-1.4'), 'a.pdf', 'application/pdf', 'f3')).status).toBe(201)
    await s.fetch(`/v1/channels/${c.id}/livechat`, patch({ attachments: 'off' }, owner.headers()))
    expect((await up(d.token, png(8, 8), 'b.png', 'image/png', 'f4')).status).toBe(422)
  })

  it("names a visitor's image after what its bytes are, for the agents and their downloads", async () => {
    const c = await createLivechat(s, owner)
    const k = c.livechat.key
    const d = await start(k)
    const up = (bytes: Buffer, name: string, type: string, cid: string) =>
      s.fetch(`/v1/livechat/${k}/messages`, {
        method: 'POST',
        headers: v(d.token),
        body: form({ client_id: cid }, { file: { bytes, name, type } }),
      })
    // A PNG sent as a page: agents are offered `invoice.html.png`, which opens as the image it is.
    for (const [name, type, cid] of [
      ['invoice.html', 'text/html', 'n1'],
      ['invoice.html', 'image/png', 'n2'],
      ['scan', 'application/octet-stream', 'n3'],
      ['Shot.PNG', 'image/png', 'n4'],
    ] as const)
      expect((await up(png(4, 4), name, type, cid)).status).toBe(201)
    const list = await body(
      await s.fetch(`/v1/interactions/${d.interaction_id}/messages`, { headers: owner.headers() }),
    )
    const media = list.data.map((m: any) => m.media)
    expect(media.map((m: any) => [m.name, m.mime])).toEqual([
      ['invoice.html.png', 'image/png'],
      ['invoice.html.png', 'image/png'],
      ['scan.png', 'image/png'],
      ['Shot.PNG', 'image/png'],
    ])
    const download = await s.fetch(`${media[0].url}?download=1`, { headers: owner.headers() })
    expect(download.status).toBe(200)
    expect(download.headers.get('content-type')).toBe('image/png')
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="invoice.html.png"; filename*=UTF-8''invoice.html.png`,
    )
    // The visitor sees the same name.
    const mine = await body(await s.fetch(`/v1/livechat/${k}/conversation`, { headers: v(d.token) }))
    expect(mine.data.messages.map((m: any) => m.media?.name)).toEqual([
      'invoice.html.png',
      'invoice.html.png',
      'scan.png',
      'Shot.PNG',
    ])
  })

  it('real-time: a visitor joins only its own channel; members cannot join visitor channels', async () => {
    const d = await start()
    const other = await start()
    const { c } = await visitorSocket(d.token)
    c.send({ op: 'subscribe', channel: `visitor:${other.session}`, ref: 1 })
    expect((await c.next((f) => f.ref === 1)).op).toBe('refused')
    c.send({ op: 'subscribe', channel: `ws:${w.workspaceId}`, ref: 2 })
    expect((await c.next((f) => f.ref === 2)).op).toBe('refused')
    c.send({ op: 'subscribe', channel: `conv:${d.interaction_id}`, ref: 3 })
    expect((await c.next((f) => f.ref === 3)).op).toBe('refused')
    c.close()
    const t = await body(await s.fetch('/v1/realtime/token', F.json({}, owner.headers())))
    const m = await connect(t.data.url)
    m.send({ op: 'subscribe', channel: `visitor:${d.session}`, ref: 9 })
    expect((await m.next((f) => f.ref === 9)).op).toBe('refused')
    m.close()
  })

  it('queue, pickup, agent replies, typing and read reach the visitor; visitor messages, typing and visitor.online reach agents', async () => {
    const c = await createLivechat(s, owner)
    const k = c.livechat.key
    const first = await start(k)
    const second = await start(k)
    expect(first.queue.position).toBe(1)
    expect(second.queue.position).toBe(2)
    const v1 = (await visitorSocket(first.token, k)).c
    const v2 = (await visitorSocket(second.token, k)).c
    const agent = await agentSocket([`conv:${first.interaction_id}`])
    // Visitor → agent: message, typing, online.
    const sent = (await body(await send(first.token, { text: 'I need help', client_id: 'q1' }, k))).data
    const created = await agent.next((f: any) => f.event === 'message.created')
    expect(created.data).toMatchObject({ id: sent.id, direction: 'in', body: 'I need help' })
    expect((await v1.next((f: any) => f.event === 'message')).data.id).toBe(sent.id)
    await s.fetch(`/v1/livechat/${k}/typing`, F.json({ typing: true }, v(first.token)))
    expect((await agent.next((f: any) => f.event === 'typing')).data).toMatchObject({
      customer: true,
      typing: true,
    })
    const seen = await s.fetch(`/v1/livechat/${k}/seen`, F.json({ message_id: sent.id }, v(first.token)))
    expect(seen.status).toBe(200)
    const online = await agent.next((f: any) => f.event === 'visitor.online')
    expect(online.data).toMatchObject({ interaction_id: first.interaction_id, name: 'Vera Visitor' })
    // A second beat within the interval says nothing more.
    await s.fetch(`/v1/livechat/${k}/seen`, F.json({}, v(first.token)))
    await sleep(300)
    expect(agent.frames.filter((f: any) => f.event === 'visitor.online')).toEqual([])
    // Pickup: the visitor is told who joined, the one behind moves up.
    const pick = await s.fetch(`/v1/interactions/${first.interaction_id}/pickup`, F.json({}, owner.headers()))
    expect(pick.status).toBe(200)
    const joined = await v1.next((f: any) => f.event === 'queue')
    expect(joined.data).toMatchObject({ position: 0, waiting: false, agent: { name: 'Olivia Owner' } })
    const moved = await v2.next((f: any) => f.event === 'queue')
    expect(moved.data).toMatchObject({ position: 1, waiting: true })
    // Assigning the next waiting chat (not a pickup) tells its visitor as well.
    const assign = await s.fetch(
      `/v1/interactions/${second.interaction_id}`,
      patch({ assignee_id: w.ownerId }, owner.headers()),
    )
    expect(assign.status).toBe(200)
    const assigned = await v2.next((f: any) => f.event === 'queue')
    expect(assigned.data).toMatchObject({ position: 0, waiting: false, agent: { name: 'Olivia Owner' } })
    const conv = (await body(await s.fetch(`/v1/livechat/${k}/conversation`, { headers: v(first.token) })))
      .data
    expect(conv.queue).toEqual({ position: 0, waiting: false })
    expect(conv.agent.name).toBe('Olivia Owner')
    // Agent typing and reply.
    await s.fetch(
      `/v1/interactions/${first.interaction_id}/typing`,
      F.json({ typing: true }, owner.headers()),
    )
    expect((await v1.next((f: any) => f.event === 'typing')).data).toMatchObject({
      from: 'agent',
      typing: true,
    })
    const reply = await s.fetch(
      `/v1/interactions/${first.interaction_id}/messages`,
      F.json({ text: 'Happy to help!' }, owner.headers()),
    )
    expect(reply.status).toBe(201)
    const got = await v1.next((f: any) => f.event === 'message' && f.data.direction === 'out')
    expect(got.data).toMatchObject({
      body: 'Happy to help!',
      from: 'agent',
      sender: { name: 'Olivia Owner' },
    })
    // The agent reads: the visitor hears `read`; the visitor sees the reply: the agent hears it is read.
    await s.fetch(`/v1/interactions/${first.interaction_id}/read`, F.json({}, owner.headers()))
    expect((await v1.next((f: any) => f.event === 'read')).data.by).toBe('agent')
    await s.fetch(`/v1/livechat/${k}/seen`, F.json({ message_id: got.data.id }, v(first.token)))
    const read = await agent.next(
      (f: any) => f.event === 'message.updated' && f.data.id === got.data.id && f.data.status === 'read',
    )
    expect(read.data.status).toBe('read')
    v1.close()
    v2.close()
    agent.close()
  })

  it('e-mail fallback: a reply while the widget is closed also goes to the visitor by e-mail', async () => {
    const c = await createLivechat(s, owner, { title: 'Fallback chat' })
    const d = await start(c.livechat.key, { email: 'away-visitor@example.com' })
    await send(d.token, { text: 'Leaving now', client_id: 'e1' }, c.livechat.key)
    // Age the widget's last beat past the away threshold.
    await s.run(
      (await import('effect')).Effect.flatMap(
        (await import('@effect/sql')).SqlClient.SqlClient,
        (sql) =>
          sql`UPDATE livechat_visitors SET seen_at = now() - interval '10 minutes' WHERE session = ${d.session}`,
      ),
    )
    const before = smtp.received.length
    await s.fetch(
      `/v1/interactions/${d.interaction_id}/messages`,
      F.json({ text: 'We will call you' }, owner.headers()),
    )
    const mail = await smtp.waitFor(
      (m) => m.to.includes('away-visitor@example.com') && smtp.received.indexOf(m) >= before,
    )
    expect(mail.parsed.subject).toContain('Fallback chat')
    expect(mail.parsed.text).toContain('We will call you')
    // Turned off: no mail.
    await s.fetch(`/v1/channels/${c.id}/livechat`, patch({ email_fallback: false }, owner.headers()))
    const count = smtp.received.length
    await s.fetch(
      `/v1/interactions/${d.interaction_id}/messages`,
      F.json({ text: 'No mail for this' }, owner.headers()),
    )
    await sleep(500)
    expect(smtp.received.length).toBe(count)
  })
})
