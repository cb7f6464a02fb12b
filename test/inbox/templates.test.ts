import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as I from './support'

/** Spec 2 §4.2 reply templates: CRUD, filters, attachment, `rendered` for a conversation. */
let s: TestServer
let w: F.Seeded
let owner: F.Session
beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  w = await F.workspace(s, { plan: 'pro', name: 'Toko Maju' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

const create = (b: Record<string, unknown>) =>
  s
    .fetch('/v1/templates', F.json(b, owner.headers()))
    .then(async (r) => ({ status: r.status, ...(await I.body(r)) }) as any)

describe('templates', () => {
  it('creates, lists with q and category filters, reads, changes and deletes', async () => {
    const a = await create({
      name: 'Salam',
      shortcut: '/salam',
      category: 'Umum',
      body: 'Halo {{contact_name}}!',
    })
    expect(a.status).toBe(201)
    expect(a.data).toMatchObject({
      name: 'Salam',
      shortcut: '/salam',
      category: 'Umum',
      body: 'Halo {{contact_name}}!',
      attachment: null,
    })
    await create({ name: 'Ongkir', category: 'Pengiriman', body: 'Ongkir ke {{city}} Rp 10.000' })
    const all = await I.body(await s.fetch('/v1/templates', { headers: owner.headers() }))
    expect(all.data.map((t: any) => t.name)).toEqual(['Ongkir', 'Salam'])
    expect(all.meta).toEqual({ total: 2, categories: ['Pengiriman', 'Umum'] })
    expect(
      (await I.body(await s.fetch('/v1/templates?q=ongkir', { headers: owner.headers() }))).data,
    ).toHaveLength(1)
    expect(
      (await I.body(await s.fetch('/v1/templates?category=umum', { headers: owner.headers() }))).data[0].name,
    ).toBe('Salam')
    const changed = await I.body(
      await s.fetch(`/v1/templates/${a.data.id}`, I.patch({ body: 'Hai {{contact_name}}' }, owner.headers())),
    )
    expect(changed.data).toMatchObject({ name: 'Salam', shortcut: '/salam', body: 'Hai {{contact_name}}' })
    expect((await s.fetch(`/v1/templates/${a.data.id}`, I.del(owner.headers()))).status).toBe(200)
    expect((await s.fetch(`/v1/templates/${a.data.id}`, { headers: owner.headers() })).status).toBe(404)
  })

  it('keeps shortcuts unique per workspace and validates fields', async () => {
    await create({ name: 'One', shortcut: 'dup', body: 'x' })
    expect((await create({ name: 'Two', shortcut: 'DUP', body: 'y' })).error.fields).toEqual({
      shortcut: 'is already used here',
    })
    expect((await create({ name: '', body: 'y' })).status).toBe(422)
    expect((await create({ name: 'Bad', shortcut: 'has space', body: 'y' })).status).toBe(422)
  })

  it('keeps a shortcut unique when two templates take it at once: one 201, the other 422', async () => {
    // Found by the review of session 37: both passed the check, the unique index refused the
    // second write, and its author got a 500.
    for (let round = 0; round < 5; round++) {
      const shortcut = `race${round}`
      const made = await Promise.all(
        ['A', 'B', 'C'].map((n) => create({ name: `${n} ${round}`, shortcut, body: 'x' })),
      )
      expect(made.map((r) => r.status).sort()).toEqual([201, 422, 422])
      for (const r of made.filter((x) => x.status === 422))
        expect(r.error.fields).toEqual({ shortcut: 'is already used here' })
      const others = await Promise.all(['D', 'E'].map((n) => create({ name: `${n} ${round}`, body: 'y' })))
      const changed = await Promise.all(
        others.map((o) =>
          s.fetch(`/v1/templates/${o.data.id}`, I.patch({ shortcut: `moved${round}` }, owner.headers())),
        ),
      )
      expect(changed.map((r) => r.status).sort()).toEqual([200, 422])
    }
  })

  it('renders each template for a conversation the caller can see, 404 for one they cannot', async () => {
    await create({
      name: 'Render me',
      body: 'Halo {{ contact_name }} ({{contact_phone}}), saya {{agent_name}} dari {{workspace_name}}. {{unknown}}',
    })
    const ct = await I.contact(s, w, { name: 'Rina', phone: '+62877' })
    const c = await I.conversation(s, w, { contactId: ct.id })
    const r = await I.body(
      await s.fetch(`/v1/templates?q=render&interaction_id=${c.id}`, { headers: owner.headers() }),
    )
    expect(r.data[0].rendered).toBe('Halo Rina (+62877), saya Olivia Owner dari Toko Maju. {{unknown}}')
    const one = await I.body(
      await s.fetch(`/v1/templates/${r.data[0].id}?interaction_id=${c.id}`, { headers: owner.headers() }),
    )
    expect(one.data.rendered).toBe(r.data[0].rendered)
    const other = await F.workspace(s, { plan: 'pro' })
    const foreign = await I.conversation(s, other)
    expect(
      (await s.fetch(`/v1/templates?interaction_id=${foreign.id}`, { headers: owner.headers() })).status,
    ).toBe(404)
    // Without interaction_id there is no `rendered`.
    expect(
      (await I.body(await s.fetch('/v1/templates?q=render', { headers: owner.headers() }))).data[0],
    ).not.toHaveProperty('rendered')
  })

  it('leaves names of inherited properties ({{constructor}}, {{toString}}) as written, also when sent', async () => {
    const body = 'Halo {{contact_name}} {{constructor}} {{toString}} {{__proto__}} {{hasOwnProperty}}'
    const tpl = (await create({ name: 'Inherited', body })).data
    const ct = await I.contact(s, w, { name: 'Rina', phone: '+62878' })
    const c = await I.conversation(s, w, { contactId: ct.id })
    const expected = 'Halo Rina {{constructor}} {{toString}} {{__proto__}} {{hasOwnProperty}}'
    const one = await I.body(
      await s.fetch(`/v1/templates/${tpl.id}?interaction_id=${c.id}`, { headers: owner.headers() }),
    )
    expect(one.data.rendered).toBe(expected)
    const sent = await s.fetch(
      `/v1/interactions/${c.id}/messages`,
      F.json({ template_id: tpl.id }, owner.headers()),
    )
    expect(sent.status).toBe(201)
    expect((await I.body(sent)).data.body).toBe(expected)
  })

  it('sets, serves, replaces and removes the attachment; creates with one in multipart', async () => {
    const made = await I.body(
      await s.fetch('/v1/templates', {
        method: 'POST',
        headers: owner.headers(),
        body: I.form({ name: 'Katalog', body: 'Katalog terbaru' }, [
          { field: 'file', name: 'katalog.pdf', type: 'application/pdf', bytes: I.bytes(500) },
        ]),
      }),
    )
    expect(made.data.attachment).toEqual({
      name: 'katalog.pdf',
      mime: 'application/pdf',
      size: 500,
      url: `/v1/templates/${made.data.id}/attachment`,
    })
    const got = await s.fetch(made.data.attachment.url, { headers: owner.headers({ range: 'bytes=10-19' }) })
    expect(got.status).toBe(206)
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(I.bytes(500).slice(10, 20))
    const replaced = await I.body(
      await s.fetch(`/v1/templates/${made.data.id}/attachment`, {
        method: 'POST',
        headers: owner.headers(),
        body: I.form({}, [{ field: 'file', name: 'v2.png', type: 'image/png', bytes: I.bytes(42) }]),
      }),
    )
    expect(replaced.data.attachment).toMatchObject({ name: 'v2.png', size: 42 })
    const missing = await s.fetch(`/v1/templates/${made.data.id}/attachment`, {
      method: 'POST',
      headers: owner.headers(),
      body: I.form({ x: '1' }),
    })
    expect((await I.body(missing)).error.fields).toEqual({ file: 'a file is required' })
    const removed = await I.body(
      await s.fetch(`/v1/templates/${made.data.id}/attachment`, I.del(owner.headers())),
    )
    expect(removed.data.attachment).toBeNull()
    expect(
      (await s.fetch(`/v1/templates/${made.data.id}/attachment`, { headers: owner.headers() })).status,
    ).toBe(404)
  })

  it('reads with interactions.reply (keys too); writes need templates.manage in the app', async () => {
    const agent = await I.agent(s, w)
    expect((await s.fetch('/v1/templates', { headers: agent.session.headers() })).status).toBe(200)
    expect(
      (await s.fetch('/v1/templates', F.json({ name: 'x', body: 'y' }, agent.session.headers()))).status,
    ).toBe(403)
    const key = await F.apiKey(s, w)
    expect((await s.fetch('/v1/templates', { headers: F.bearer(key) })).status).toBe(200)
    expect((await s.fetch('/v1/templates', F.json({ name: 'x', body: 'y' }, F.bearer(key)))).status).toBe(403)
    const viewer = await I.agent(s, w, await I.role(s, w, ['interactions.view']))
    expect((await s.fetch('/v1/templates', { headers: viewer.session.headers() })).status).toBe(403)
  })
})
