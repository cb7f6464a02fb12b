import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Members from '../../store/members'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { body, createLivechat, form, jpegHeader, patch, png, webpHeader } from './support'

let s: TestServer
let w: F.Seeded
let owner: F.Session
beforeAll(async () => {
  s = await startTestServer({ LIVECHAT_MIN_FILL_MS: '0', MSGAPP_TRANSPORT: 'test' })
  w = await F.workspace(s, { plan: 'free' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

describe('live chat channels', () => {
  it('creates on any plan with a public key and embed code, using one slot of the shared quota', async () => {
    const ch = await createLivechat(s, owner, { title: 'Talk to Acme', color: '#FF5500' })
    expect(ch.type).toBe('livechat')
    expect(ch.livechat.key).toMatch(/^lc_[A-Za-z0-9_-]{24}$/)
    expect(ch.livechat.embed_code).toBe(
      `<script src="${s.url}/widget.js" data-kotak-key="${ch.livechat.key}" async></script>`,
    )
    expect(ch.livechat.title).toBe('Talk to Acme')
    expect(ch.livechat.color).toBe('#ff5500')
    expect(ch.livechat.attachments).toBe('images')
    const list = await body(await s.fetch('/v1/channels', { headers: owner.headers() }))
    expect(list.meta.quota.used).toBe(list.data.length)
    expect(list.data.find((c: any) => c.id === ch.id).livechat.key).toBe(ch.livechat.key)
    // Free allows a fixed number of channels; past it, 402 like every other type.
    const limit = list.meta.quota.limit
    const results: number[] = []
    for (let i = list.meta.quota.used; i < limit + 1; i++) {
      results.push(
        (await s.fetch('/v1/channels/livechat', F.json({ name: `w${i}` }, owner.headers()))).status,
      )
    }
    expect(results.at(-1)).toBe(402)
    expect(results.slice(0, -1).every((x) => x === 201)).toBe(true)
  })

  it('is app-only and needs channels.manage', async () => {
    const w2 = await F.workspace(s, { plan: 'pro' })
    const key = await F.apiKey(s, w2)
    expect((await s.fetch('/v1/channels/livechat', F.json({ name: 'x' }, F.bearer(key)))).status).toBe(403)
    const agent = await F.member(s, w2, 'Agent')
    const session = await F.signIn(s, agent.email)
    expect((await s.fetch('/v1/channels/livechat', F.json({ name: 'x' }, session.headers()))).status).toBe(
      403,
    )
    const o2 = await F.signIn(s, w2.ownerEmail)
    expect((await s.fetch('/v1/channels/livechat', F.json({}, o2.headers()))).status).toBe(422)
  })

  it('PATCH sets every widget field and refuses bad ones with 422 naming each field', async () => {
    const w2 = await F.workspace(s, { plan: 'pro' })
    const o2 = await F.signIn(s, w2.ownerEmail)
    const ch = await createLivechat(s, o2)
    const all = {
      name: 'Site chat',
      title: 'Hello there',
      subtitle: 'Replies in 5 minutes',
      color: '#112233',
      font: 'serif',
      radius: 20,
      position: 'left',
      launcher_icon: 'help',
      intro: 'Welcome!',
      consent: 'I agree to the privacy policy',
      start_label: 'Go',
      attachments: 'files',
      email_fallback: false,
      allowed_domains: ['Shop.Example.com', '*.acme.test'],
      hours: { enabled: true, days: [{ day: 1, open: true, from: '08:00', to: '17:00' }] },
      auto_reply: { greeting_on: true, greeting: 'Hi!' },
    }
    const r = await s.fetch(`/v1/channels/${ch.id}/livechat`, patch(all, o2.headers()))
    expect(r.status).toBe(200)
    const d = (await body(r)).data
    expect(d.name).toBe('Site chat')
    expect(d.livechat).toMatchObject({
      title: 'Hello there',
      subtitle: 'Replies in 5 minutes',
      color: '#112233',
      font: 'serif',
      radius: 20,
      position: 'left',
      launcher_icon: 'help',
      intro: 'Welcome!',
      consent: 'I agree to the privacy policy',
      start_label: 'Go',
      attachments: 'files',
      email_fallback: false,
      allowed_domains: ['shop.example.com', '*.acme.test'],
      key: ch.livechat.key,
    })
    expect(d.hours.enabled).toBe(true)
    expect(d.auto_reply.greeting).toBe('Hi!')
    const bad = await s.fetch(
      `/v1/channels/${ch.id}/livechat`,
      patch(
        {
          color: 'red',
          font: 'comic',
          radius: 99,
          position: 'top',
          launcher_icon: 'x',
          attachments: 'all',
          email_fallback: 'yes',
          allowed_domains: ['https://x.com/'],
          title: '',
          start_label: 'x'.repeat(41),
        },
        o2.headers(),
      ),
    )
    expect(bad.status).toBe(422)
    const fields = Object.keys((await body(bad)).error.fields)
    for (const f of [
      'color',
      'font',
      'radius',
      'position',
      'launcher_icon',
      'attachments',
      'email_fallback',
      'title',
      'start_label',
    ])
      expect(fields).toContain(f)
    expect(fields.some((f) => f.startsWith('allowed_domains'))).toBe(true)
    // Another type's channel has no live chat settings.
    const api = await s.fetch('/v1/channels/api', F.json({ name: 'api' }, o2.headers()))
    const apiId = (await body(api)).data.id
    expect(
      (await s.fetch(`/v1/channels/${apiId}/livechat`, patch({ title: 'x' }, o2.headers()))).status,
    ).toBe(404)
  })

  it('replacing the key stops the old one at once', async () => {
    const w2 = await F.workspace(s, { plan: 'pro' })
    const o2 = await F.signIn(s, w2.ownerEmail)
    const ch = await createLivechat(s, o2)
    const old = ch.livechat.key
    expect((await s.fetch(`/v1/livechat/${old}/config`)).status).toBe(200)
    const r = await s.fetch(`/v1/channels/${ch.id}/livechat/key`, F.json({}, o2.headers()))
    expect(r.status).toBe(200)
    const fresh = (await body(r)).data
    expect(fresh.key).not.toBe(old)
    expect(fresh.embed_code).toContain(fresh.key)
    expect((await s.fetch(`/v1/livechat/${old}/config`)).status).toBe(404)
    expect((await s.fetch(`/livechat/${old}/frame`)).status).toBe(404)
    expect((await s.fetch(`/v1/livechat/${fresh.key}/config`)).status).toBe(200)
  })

  it('grant_selected_members adds the new channel to members on selected-channel access', async () => {
    const w2 = await F.workspace(s, { plan: 'pro' })
    const o2 = await F.signIn(s, w2.ownerEmail)
    const agent = await F.member(s, w2, 'Agent')
    await s.run(
      Effect.gen(function* () {
        const m = yield* Members.activeMembership(agent.id, w2.workspaceId)
        yield* Members.applyChange(w2.workspaceId, m!.member.id, {
          channelAccess: 'selected',
          channelIds: [],
        })
      }),
    )
    const agentSession = await F.signIn(s, agent.email)
    const seen = async () =>
      ((await body(await s.fetch('/v1/channels', { headers: agentSession.headers() }))).data as any[]).map(
        (c) => c.id,
      )
    const without = await createLivechat(s, o2)
    expect(await seen()).not.toContain(without.id)
    const withGrant = await createLivechat(s, o2, { grant_selected_members: true })
    expect(await seen()).toContain(withGrant.id)
    const api = (
      await body(
        await s.fetch('/v1/channels/api', F.json({ name: 'a', grant_selected_members: true }, o2.headers())),
      )
    ).data
    expect(await seen()).toContain(api.id)
    const msgapp = (
      await body(
        await s.fetch('/v1/channels', F.json({ name: 'n', grant_selected_members: true }, o2.headers())),
      )
    ).data
    expect(await seen()).toContain(msgapp.id)
  })
})

describe('channel icons', () => {
  it('takes a square PNG, JPG or WebP up to 512 KB by content; 422 otherwise; GET and DELETE', async () => {
    const w2 = await F.workspace(s, { plan: 'pro' })
    const o2 = await F.signIn(s, w2.ownerEmail)
    const ch = await createLivechat(s, o2)
    const up = (bytes: Buffer, name: string, type: string) =>
      s.fetch(`/v1/channels/${ch.id}/icon`, {
        method: 'POST',
        headers: o2.headers(),
        body: form({}, { icon: { bytes, name, type } }),
      })
    expect((await s.fetch(`/v1/channels/${ch.id}/icon`, { headers: o2.headers() })).status).toBe(404)
    expect((await s.fetch(`/v1/livechat/${ch.livechat.key}/logo`)).status).toBe(404)
    // Not square, not an image (whatever its name says), too large: 422 on `icon`.
    for (const [bytes, name, type] of [
      [png(64, 32), 'wide.png', 'image/png'],
      [Buffer.from('GIF89a not really'), 'logo.png', 'image/png'],
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'logo.webp', 'image/webp'],
      [png(64, 64, 600 * 1024), 'big.png', 'image/png'],
    ] as const) {
      const r = await up(bytes, name, type)
      expect(r.status, name).toBe(422)
      expect(Object.keys((await body(r)).error.fields)).toEqual(['icon'])
    }
    expect((await up(jpegHeader(80, 80), 'a.jpg', 'image/jpeg')).status).toBe(200)
    expect((await body(await up(webpHeader(48, 48), 'a.bin', 'application/octet-stream'))).data.mime).toBe(
      'image/webp',
    )
    // A PNG sent under a misleading name and type is still a PNG.
    const ok = await up(png(32, 32), 'icon.txt', 'text/plain')
    expect(ok.status).toBe(200)
    const d = (await body(ok)).data
    expect(d).toMatchObject({ mime: 'image/png', width: 32, height: 32 })
    const get = await s.fetch(`/v1/channels/${ch.id}/icon`, { headers: o2.headers() })
    expect(get.status).toBe(200)
    expect(get.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await get.arrayBuffer()).equals(png(32, 32))).toBe(true)
    const detail = (await body(await s.fetch(`/v1/channels/${ch.id}`, { headers: o2.headers() }))).data
    expect(detail.icon_url).toMatch(new RegExp(`^/v1/channels/${ch.id}/icon\\?v=`))
    const cfg = (await body(await s.fetch(`/v1/livechat/${ch.livechat.key}/config`))).data
    expect(cfg.logo_url).toMatch(new RegExp(`^/v1/livechat/${ch.livechat.key}/logo`))
    const logo = await s.fetch(cfg.logo_url)
    expect(logo.status).toBe(200)
    expect(logo.headers.get('content-type')).toBe('image/png')
    // Members without access to the channel do not see its icon.
    const agent = await F.member(s, w2, 'Agent')
    await s.run(
      Effect.gen(function* () {
        const m = yield* Members.activeMembership(agent.id, w2.workspaceId)
        yield* Members.applyChange(w2.workspaceId, m!.member.id, {
          channelAccess: 'selected',
          channelIds: [],
        })
      }),
    )
    const as = await F.signIn(s, agent.email)
    expect((await s.fetch(`/v1/channels/${ch.id}/icon`, { headers: as.headers() })).status).toBe(404)
    const del = await s.fetch(`/v1/channels/${ch.id}/icon`, { method: 'DELETE', headers: o2.headers() })
    expect(del.status).toBe(200)
    expect((await s.fetch(`/v1/channels/${ch.id}/icon`, { headers: o2.headers() })).status).toBe(404)
    expect((await s.fetch(`/v1/livechat/${ch.livechat.key}/logo`)).status).toBe(404)
    expect(
      (await body(await s.fetch(`/v1/channels/${ch.id}`, { headers: o2.headers() }))).data.icon_url,
    ).toBeNull()
  })
})
