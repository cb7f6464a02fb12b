import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultPrechat, prechatOf } from '../../actors/channels/livechatPrechat'
import { decideStart } from '../../actors/livechat/prechat'
import { type Smtp, startSmtp } from '../email/dovecot'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { body, createLivechat, patch, sleep, v } from './support'

/**
 * The live chat start form an owner can loosen (`prechat`: each of name, e-mail and phone
 * required, optional or hidden; the spec's all-required is the default), the widget's language
 * (`locale`, `default_texts`), refusals in the visitor's language (X-Locale), and the e-mail
 * fallback for a visitor who gave no address or chatted in Indonesian.
 */
describe('the pre-chat rules, with plain values', () => {
  it('reads missing or unknown modes as required', () => {
    expect(prechatOf(undefined)).toEqual(defaultPrechat)
    expect(prechatOf({ email: 'optional', phone: 'nonsense' })).toEqual({
      name: 'required',
      email: 'optional',
      phone: 'required',
    })
  })

  it('refuses what is required and blank; names a visitor without a name; keeps what was given', () => {
    expect(decideStart(defaultPrechat, { name: ' ', email: 'a@b.co' }, 1234)).toEqual({
      _tag: 'Missing',
      fields: ['name', 'phone'],
    })
    const loose = { name: 'optional', email: 'hidden', phone: 'hidden' } as const
    expect(decideStart(loose, {}, 4821)).toEqual({
      _tag: 'Ok',
      fields: { name: 'Visitor 4821', email: null, phone: null },
    })
    expect(decideStart(loose, { name: ' Ana ', email: 'ana@example.com' }, 1)).toEqual({
      _tag: 'Ok',
      fields: { name: 'Ana', email: 'ana@example.com', phone: null },
    })
  })
})

let smtp: Smtp
let s: TestServer
let owner: F.Session
beforeAll(async () => {
  smtp = await startSmtp()
  smtp.accounts.set('mailer@kotak.test', 'pw')
  s = await startTestServer({
    LIVECHAT_MIN_FILL_MS: '0',
    LIVECHAT_STARTS_PER_MINUTE: '1000',
    SMTP_URL: `smtp://mailer%40kotak.test:pw@${smtp.host}:${smtp.port}`,
    MAIL_FROM: 'Kotak <no-reply@kotak.test>',
  })
  const w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(async () => {
  await s?.stop()
  await smtp?.stop()
})

const config = async (key: string) => (await body(await s.fetch(`/v1/livechat/${key}/config`))).data
const startWith = async (
  key: string,
  fields: Record<string, unknown>,
  headers: Record<string, string> = {},
) => {
  const cfg = await config(key)
  return s.fetch(`/v1/livechat/${key}/visitors`, F.json({ form_token: cfg.form_token, ...fields }, headers))
}

describe('owner settings', () => {
  it('a new channel asks for all three, as the spec says; PATCH sets one field at a time and refuses bad modes', async () => {
    const ch = await createLivechat(s, owner)
    expect(ch.livechat.prechat).toEqual({ name: 'required', email: 'required', phone: 'required' })
    expect(ch.livechat.locale).toBe('auto')
    expect((await config(ch.livechat.key)).prechat).toEqual(ch.livechat.prechat)

    const r1 = await s.fetch(
      `/v1/channels/${ch.id}/livechat`,
      patch({ prechat: { email: 'optional' } }, owner.headers()),
    )
    expect(r1.status).toBe(200)
    const r2 = await s.fetch(
      `/v1/channels/${ch.id}/livechat`,
      patch({ prechat: { phone: 'hidden' }, locale: 'id' }, owner.headers()),
    )
    expect((await body(r2)).data.livechat).toMatchObject({
      prechat: { name: 'required', email: 'optional', phone: 'hidden' },
      locale: 'id',
    })
    expect((await config(ch.livechat.key)).prechat).toEqual({
      name: 'required',
      email: 'optional',
      phone: 'hidden',
    })

    const bad = await s.fetch(
      `/v1/channels/${ch.id}/livechat`,
      patch({ prechat: { email: 'maybe', name: 3 }, locale: 'fr' }, owner.headers({ 'x-locale': 'id' })),
    )
    expect(bad.status).toBe(422)
    const err = (await body(bad)).error
    expect(err.code).toBe('validation_error')
    expect(Object.keys(err.fields)).toEqual(
      expect.arrayContaining(['locale', 'prechat.email', 'prechat.name']),
    )
    expect(err.fields['prechat.email']).toBe('harus salah satu dari: required, optional, hidden')
    const notObject = await s.fetch(
      `/v1/channels/${ch.id}/livechat`,
      patch({ prechat: 'optional' }, owner.headers()),
    )
    expect(notObject.status).toBe(422)
    expect(Object.keys((await body(notObject)).error.fields)).toEqual(['prechat'])
    // Two owners changing different fields at once: both changes stay.
    const both = await Promise.all([
      s.fetch(`/v1/channels/${ch.id}/livechat`, patch({ prechat: { name: 'optional' } }, owner.headers())),
      s.fetch(`/v1/channels/${ch.id}/livechat`, patch({ prechat: { email: 'hidden' } }, owner.headers())),
    ])
    expect(both.map((r) => r.status)).toEqual([200, 200])
    const merged = (await body(await s.fetch(`/v1/channels/${ch.id}`, { headers: owner.headers() }))).data
    expect(merged.livechat.prechat).toEqual({ name: 'optional', email: 'hidden', phone: 'hidden' })
    await s.fetch(
      `/v1/channels/${ch.id}/livechat`,
      patch({ prechat: { name: 'required', email: 'optional' } }, owner.headers()),
    )
    // Nothing of the refused bodies was stored.
    const now = (await body(await s.fetch(`/v1/channels/${ch.id}`, { headers: owner.headers() }))).data
      .livechat
    expect(now.prechat).toEqual({ name: 'required', email: 'optional', phone: 'hidden' })
    expect(now.locale).toBe('id')
  })

  it('config gives the Indonesian of texts still at their default, none of what the owner wrote', async () => {
    const ch = await createLivechat(s, owner)
    expect((await config(ch.livechat.key)).default_texts).toEqual({
      id: {
        title: 'Chat dengan kami',
        subtitle: 'Biasanya kami membalas dalam hitungan menit',
        intro: 'Halo! Isi data Anda dan kami akan segera melayani.',
        start_label: 'Mulai chat',
      },
    })
    await s.fetch(
      `/v1/channels/${ch.id}/livechat`,
      patch({ title: 'Toko Kopi', start_label: 'Ayo ngobrol' }, owner.headers()),
    )
    const cfg = await config(ch.livechat.key)
    expect(cfg.title).toBe('Toko Kopi')
    expect(Object.keys(cfg.default_texts.id).sort()).toEqual(['intro', 'subtitle'])
  })
})

describe('starting a chat', () => {
  it('the default refuses a missing e-mail or phone (422 with fields), in the language of X-Locale', async () => {
    const ch = await createLivechat(s, owner)
    const r = await startWith(ch.livechat.key, { name: 'Budi' }, { 'x-locale': 'id' })
    expect(r.status).toBe(422)
    const err = (await body(r)).error
    expect(err.fields).toEqual({ email: 'wajib diisi', phone: 'wajib diisi' })
    expect(err.message).toBe('Beberapa isian tidak valid.')
    const en = await startWith(ch.livechat.key, { name: 'Budi', email: '', phone: '  ' })
    expect((await body(en)).error.fields).toEqual({ email: 'is required', phone: 'is required' })
  })

  it('name required, e-mail optional, phone hidden: starts without e-mail and phone, still needs the name', async () => {
    const ch = await createLivechat(s, owner)
    await s.fetch(
      `/v1/channels/${ch.id}/livechat`,
      patch({ prechat: { email: 'optional', phone: 'hidden' } }, owner.headers()),
    )
    const noName = await startWith(ch.livechat.key, { email: 'x@example.com' })
    expect(noName.status).toBe(422)
    expect((await body(noName)).error.fields).toEqual({ name: 'is required' })
    const badEmail = await startWith(ch.livechat.key, { name: 'Sari', email: 'not-an-address' })
    expect(badEmail.status).toBe(422)
    expect(Object.keys((await body(badEmail)).error.fields)).toEqual(['email'])

    const ok = await startWith(ch.livechat.key, { name: 'Sari', locale: 'id' })
    expect(ok.status, await ok.clone().text()).toBe(201)
    const d = (await body(ok)).data
    const conv = (
      await body(await s.fetch(`/v1/livechat/${ch.livechat.key}/conversation`, { headers: v(d.token) }))
    ).data
    expect(conv.visitor).toMatchObject({ name: 'Sari', email: null })
    // The agent's side: a contact with the name and no address.
    const item = (
      await body(await s.fetch(`/v1/interactions/${d.interaction_id}`, { headers: owner.headers() }))
    ).data
    expect(item.contact).toMatchObject({ name: 'Sari', details: { email: null, phone: null } })
  })

  it('all hidden: anyone may start, named Visitor and four digits', async () => {
    const ch = await createLivechat(s, owner)
    await s.fetch(
      `/v1/channels/${ch.id}/livechat`,
      patch({ prechat: { name: 'hidden', email: 'hidden', phone: 'hidden' } }, owner.headers()),
    )
    const r = await startWith(ch.livechat.key, {})
    expect(r.status).toBe(201)
    const d = (await body(r)).data
    const conv = (
      await body(await s.fetch(`/v1/livechat/${ch.livechat.key}/conversation`, { headers: v(d.token) }))
    ).data
    expect(conv.visitor.name).toMatch(/^Visitor [1-9][0-9]{3}$/)
  })
})

describe('the e-mail fallback', () => {
  const ageVisitor = (session: string) =>
    s.run(
      Effect.flatMap(
        // Imported here: the test's own database handle, as visitor.test.ts does.
        Effect.promise(() => import('@effect/sql')),
        (m) =>
          Effect.flatMap(
            m.SqlClient.SqlClient,
            (sql) =>
              sql`UPDATE livechat_visitors SET seen_at = now() - interval '10 minutes' WHERE session = ${session}`,
          ),
      ),
    )

  it('mails a person’s reply only, never an automatic one; links back only to a page of the widget’s own domains', async () => {
    const ch = await createLivechat(s, owner, { title: 'Toko Teh' })
    const set = await s.fetch(
      `/v1/channels/${ch.id}/livechat`,
      patch(
        {
          allowed_domains: ['shop.example'],
          hours: { enabled: false, days: [] },
          auto_reply: { greeting_on: true, greeting: 'Thanks, someone will be with you shortly.' },
        },
        owner.headers(),
      ),
    )
    expect(set.status).toBe(200)
    const d = (
      await body(
        await startWith(ch.livechat.key, {
          name: 'Pat',
          email: 'pat@example.com',
          phone: '+62 813 333 333',
          page_url: 'https://shop.example/cart',
        }),
      )
    ).data
    await ageVisitor(d.session)
    const before = smtp.received.length
    const first = await s.fetch(
      `/v1/livechat/${ch.livechat.key}/messages`,
      F.json({ text: 'Is the oolong in stock?', client_id: 'p1' }, v(d.token)),
    )
    expect(first.status).toBe(201)
    // The greeting goes to the widget (stored as an outgoing message) but not by e-mail.
    for (let i = 0; i < 50; i++) {
      const list = await body(
        await s.fetch(`/v1/interactions/${d.interaction_id}/messages`, { headers: owner.headers() }),
      )
      if (list.data.some((m: { body: string }) => m.body.startsWith('Thanks, someone'))) break
      await sleep(100)
    }
    await s.fetch(
      `/v1/interactions/${d.interaction_id}/messages`,
      F.json({ text: 'Yes, two tins left' }, owner.headers()),
    )
    const mail = await smtp.waitFor(
      (m) => m.to.includes('pat@example.com') && smtp.received.indexOf(m) >= before,
    )
    expect(mail.parsed.text).toContain('Yes, two tins left')
    expect(mail.parsed.text).toContain('Continue the chat: https://shop.example/cart')
    await sleep(300)
    const toPat = smtp.received.slice(before).filter((m) => m.to.includes('pat@example.com'))
    expect(toPat.map((m) => (m.parsed.text ?? '').split('\n')[0])).toEqual(['Yes, two tins left'])
  })

  it('a visitor without an address gets the reply in the widget only; one who chatted in Indonesian gets it in Indonesian', async () => {
    const ch = await createLivechat(s, owner, { title: 'Toko Kopi' })
    await s.fetch(
      `/v1/channels/${ch.id}/livechat`,
      patch({ prechat: { email: 'optional' } }, owner.headers()),
    )
    const silent = (
      await body(await startWith(ch.livechat.key, { name: 'Tanpa Email', phone: '+62 811 111 111' }))
    ).data
    await ageVisitor(silent.session)
    const before = smtp.received.length
    const reply = await s.fetch(
      `/v1/interactions/${silent.interaction_id}/messages`,
      F.json({ text: 'Kami sudah kembali' }, owner.headers()),
    )
    expect(reply.status).toBe(201)

    const indo = (
      await body(
        await startWith(ch.livechat.key, {
          name: 'Dewi',
          email: 'dewi@example.com',
          phone: '+62 812 222 222',
          locale: 'id',
        }),
      )
    ).data
    await ageVisitor(indo.session)
    await s.fetch(
      `/v1/interactions/${indo.interaction_id}/messages`,
      F.json({ text: 'Pesanan Anda siap' }, owner.headers()),
    )
    const mail = await smtp.waitFor((m) => m.to.includes('dewi@example.com'))
    expect(mail.parsed.subject).toBe('Toko Kopi: balasan untuk obrolan Anda')
    expect(mail.parsed.text).toContain('Pesanan Anda siap')
    // The widget takes any site: the page the chat began on is the visitor's word, not linked.
    expect(mail.parsed.text).not.toContain('Lanjutkan obrolan:')
    await sleep(300)
    // Only Dewi's: the visitor without an address got none (and the reply was still sent).
    expect(smtp.received.slice(before).map((m) => m.to.join(','))).toEqual(['dewi@example.com'])
    // A title left at the default is the Indonesian default in her mail.
    await s.fetch(`/v1/channels/${ch.id}/livechat`, patch({ title: 'Chat with us' }, owner.headers()))
    const after = smtp.received.length
    await s.fetch(
      `/v1/interactions/${indo.interaction_id}/messages`,
      F.json({ text: 'Sudah kami kirim' }, owner.headers()),
    )
    const second = await smtp.waitFor(
      (m) => smtp.received.indexOf(m) >= after && m.to.includes('dewi@example.com'),
    )
    expect(second.parsed.subject).toBe('Chat dengan kami: balasan untuk obrolan Anda')
  })
})
