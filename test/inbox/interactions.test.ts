import { SqlClient } from '@effect/sql'
import { Effect, Schema } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InteractionItemSchema, InteractionSchema } from '../../actors/inbox/schemas'
import * as Conversations from '../../store/conversations'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as I from './support'

/** Spec 2 §4.1 conversations: the list with every filter, counts and teams, detail, start, changes. */
let s: TestServer
let owner: F.Session

beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
})
afterAll(() => s?.stop())

const list = (session: F.Session | Record<string, string>, q = '') =>
  s
    .fetch(`/v1/interactions${q}`, {
      headers: 'headers' in session ? (session as F.Session).headers() : session,
    })
    .then(async (r) => ({ status: r.status, ...(await I.body(r)) }) as Record<string, any>)
const ids = (r: Record<string, any>) => (r.data as Array<{ id: number }>).map((x) => x.id)

const at = (iso: string) => new Date(iso)

describe('the list', () => {
  let w: F.Seeded
  let agentUser: { id: number; name: string }
  let agent: F.Session
  const c: Record<string, number> = {}
  let teamA = 0
  let teamB = 0
  let msgapp = 0
  let email = 0
  let label = 0
  let vip = 0
  let parentCat = 0
  let childCat = 0

  beforeAll(async () => {
    w = await F.workspace(s, { plan: 'pro', name: 'Toko List' })
    owner = await F.signIn(s, w.ownerEmail)
    const a = await I.agent(s, w)
    agentUser = a.user
    agent = a.session
    teamA = await I.team(s, w, [agentUser.id])
    teamB = await I.team(s, w, [])
    msgapp = (await I.channel(s, w, 'msgapp')).id
    email = (await I.channel(s, w, 'email')).id
    const budi = await I.contact(s, w, { name: 'Budi Santoso', phone: '+6281111', email: 'budi@toko.id' })
    vip = (await I.contact(s, w, { name: 'Siti VIP', phone: '+6282222', email: 'siti@vip.id' })).id
    label = (await s.run((await import('../../store/contacts')).createLabel(w.workspaceId, 'VIP'))).id
    await s.run((await import('../../store/contacts')).addLabel(vip, label))
    const cat = async (name: string, parent_id: number | null) =>
      (
        await I.body(
          await s.fetch('/v1/conversation-categories', F.json({ name, parent_id }, owner.headers())),
        )
      ).data.id as number
    parentCat = await cat('Orders', null)
    childCat = await cat('Returns', parentCat)

    // new: inbound only; waiting: replied then inbound; replied; solved; closed; team; assigned; group
    c.new = (
      await I.conversation(s, w, { channelId: msgapp, contactId: budi.id, at: at('2026-03-01T03:00:00Z') })
    ).id
    await I.inbound(s, c.new, 'halo')
    c.waiting = (
      await I.conversation(s, w, { channelId: msgapp, contactId: vip, at: at('2026-03-02T03:00:00Z') })
    ).id
    await I.inbound(s, c.waiting, 'first')
    await s.fetch(`/v1/interactions/${c.waiting}/messages`, F.json({ text: 'reply' }, owner.headers()))
    await I.inbound(s, c.waiting, 'again')
    c.replied = (
      await I.conversation(s, w, {
        channelId: email,
        contactId: budi.id,
        subject: 'Invoice 77',
        at: at('2026-03-03T03:00:00Z'),
      })
    ).id
    await I.inbound(s, c.replied, 'invoice?')
    await s.fetch(`/v1/interactions/${c.replied}/messages`, F.json({ text: 'attached' }, owner.headers()))
    c.solved = (await I.conversation(s, w, { channelId: msgapp, at: at('2026-03-04T03:00:00Z') })).id
    await s.fetch(
      `/v1/interactions/${c.solved}`,
      I.patch({ status: 'solved', category_id: childCat }, owner.headers()),
    )
    c.closed = (await I.conversation(s, w, { channelId: msgapp, at: at('2026-03-05T03:00:00Z') })).id
    await s.fetch(
      `/v1/interactions/${c.closed}`,
      I.patch({ status: 'closed', category_id: parentCat }, owner.headers()),
    )
    c.teamA = (await I.conversation(s, w, { channelId: msgapp, teamId: teamA })).id
    c.teamB = (await I.conversation(s, w, { channelId: msgapp, teamId: teamB })).id
    c.mine = (await I.conversation(s, w, { channelId: msgapp, assigneeId: agentUser.id, teamId: teamA })).id
    c.group = (await I.conversation(s, w, { channelId: msgapp, kind: 'group' })).id
  })

  it('lists every visible conversation, most recent activity first, with counts per tab and the Frontline teams', async () => {
    const r = await list(owner)
    expect(r.status).toBe(200)
    I.conforms(Schema.Array(InteractionItemSchema), r.data)
    expect(new Set(ids(r))).toEqual(new Set(Object.values(c)))
    expect(ids(r).slice(0, 3)).toEqual([c.replied, c.waiting, c.new])
    expect(r.meta).toMatchObject({ page: 1, per_page: 25, total: 9, pages: 1, has_more: false })
    expect(r.meta.counts).toEqual({ new: 5, waiting: 1, unreplied: 6, replied: 1, solved: 1, closed: 1 })
    expect(r.meta.teams).toEqual(
      expect.arrayContaining([
        { id: teamA, name: expect.any(String), mine: false },
        { id: teamB, name: expect.any(String), mine: false },
      ]),
    )
    const item = r.data.find((x: any) => x.id === c.waiting)
    expect(item).toMatchObject({
      kind: 'chat',
      status: 'open',
      reply_state: 'waiting',
      preview: 'again',
      unread_count: 1,
      channel: { id: msgapp, type: 'msgapp' },
      contact: { id: vip, name: 'Siti VIP' },
    })
    // The list never carries contact details.
    expect(item.contact).not.toHaveProperty('details')
  })

  it.each([
    ['?tab=new', ['new', 'teamA', 'teamB', 'mine', 'group']],
    ['?tab=waiting', ['waiting']],
    ['?tab=unreplied', ['new', 'waiting', 'teamA', 'teamB', 'mine', 'group']],
    ['?tab=replied', ['replied']],
    ['?tab=solved', ['solved']],
    ['?tab=closed', ['closed']],
    ['?kind=group', ['group']],
    ['?kind=chat&tab=solved', ['solved']],
    ['?team=none&tab=new', ['new', 'group']],
    ['?assignee=none&tab=new', ['new', 'teamA', 'teamB', 'group']],
    ['?q=budi', ['new', 'replied']],
    ['?q=INVOICE', ['replied']],
    ['?q=6282222', ['waiting']],
    ['?q=100%25', []],
    ['?category=none&tab=solved', []],
  ])('filters %s', async (q, expected) => {
    const r = await list(owner, q)
    expect(r.status).toBe(200)
    expect(new Set(ids(r))).toEqual(new Set(expected.map((k) => c[k])))
  })

  it('filters by channel (channel_ids and the old channel_id), contact, label and assignee id', async () => {
    expect(new Set(ids(await list(owner, `?channel_ids=${email}`)))).toEqual(new Set([c.replied]))
    expect(new Set(ids(await list(owner, `?channel_id=${email}`)))).toEqual(new Set([c.replied]))
    expect(ids(await list(owner, `?channel_ids=${email},${msgapp}`))).toHaveLength(9)
    expect(new Set(ids(await list(owner, `?contact_id=${vip}`)))).toEqual(new Set([c.waiting]))
    expect(new Set(ids(await list(owner, `?label_id=${label}`)))).toEqual(new Set([c.waiting]))
    expect(new Set(ids(await list(owner, `?assignee=${agentUser.id}`)))).toEqual(new Set([c.mine]))
    expect(new Set(ids(await list(owner, `?team=${teamB}`)))).toEqual(new Set([c.teamB]))
  })

  it('reads me and mine as the caller', async () => {
    expect(new Set(ids(await list(agent, '?assignee=me')))).toEqual(new Set([c.mine]))
    expect(new Set(ids(await list(agent, '?team=mine')))).toEqual(new Set([c.teamA, c.mine]))
    expect((await list(agent)).meta.teams.find((t: any) => t.id === teamA).mine).toBe(true)
  })

  it('takes a category with its subcategories, or none', async () => {
    expect(new Set(ids(await list(owner, `?category=${parentCat}`)))).toEqual(new Set([c.solved, c.closed]))
    expect(new Set(ids(await list(owner, `?category=${childCat}`)))).toEqual(new Set([c.solved]))
    expect(ids(await list(owner, '?category=none'))).toHaveLength(7)
  })

  it('reads created_from/created_to as days in the caller zone, both included', async () => {
    // Created 2026-03-02T03:00Z and 03-03T03:00Z are 10:00 on those days in Jakarta (UTC+7).
    expect(new Set(ids(await list(owner, '?created_from=2026-03-02&created_to=2026-03-03')))).toEqual(
      new Set([c.waiting, c.replied]),
    )
    // In a personal zone far west (UTC-10) both fall on the evening before.
    await s.fetch('/v1/me', I.patch({ timezone: 'Pacific/Honolulu' }, owner.headers()))
    expect(new Set(ids(await list(owner, '?created_from=2026-03-02&created_to=2026-03-02')))).toEqual(
      new Set([c.replied]),
    )
    await s.fetch('/v1/me', I.patch({ timezone: '' }, owner.headers()))
  })

  it('pages with per_page, total and has_more; the total follows the tab', async () => {
    const p1 = await list(owner, '?per_page=4')
    expect(p1.data).toHaveLength(4)
    expect(p1.meta).toMatchObject({ total: 9, pages: 3, has_more: true })
    const p3 = await list(owner, '?per_page=4&page=3')
    expect(p3.data).toHaveLength(1)
    expect((await list(owner, '?tab=unreplied&per_page=2')).meta).toMatchObject({ total: 6, pages: 3 })
  })

  it('answers 422 for malformed filters', async () => {
    for (const q of [
      '?tab=urgent',
      '?kind=x',
      '?channel_ids=1,x',
      // Past the id column's range: was a 500 (the query failed on the cast to int[]).
      '?channel_ids=3000000000',
      `?channel_ids=${msgapp},999999999999999`,
      '?assignee=someone',
      '?created_from=2026-13-01',
      '?per_page=101',
    ]) {
      const r = await list(owner, q)
      expect(r.status, q).toBe(422)
    }
  })

  it('flags waiting conversations against the reply target on Pro, never on Free', async () => {
    const ch = await I.channel(s, w, 'msgapp')
    const conv = await I.conversation(s, w, { channelId: ch.id })
    await I.inbound(s, conv.id, 'hello?')
    const sla = async () => (await list(owner, `?channel_ids=${ch.id}`)).data[0].sla
    expect(await sla()).toBeNull()
    await I.advance(s, 25 * 60_000)
    expect(await sla()).toMatchObject({ level: 'warn', minutes: 25 })
    await I.advance(s, 10 * 60_000)
    const breach = await sla()
    expect(breach).toMatchObject({ level: 'breach', minutes: 35 })
    I.conforms(Schema.Array(InteractionItemSchema), (await list(owner, `?channel_ids=${ch.id}`)).data)
    expect(breach.due_at).toMatch(/Z$/)
    // A new reply target reaches the list's levels within seconds (each node keeps the targets
    // and hours for a moment: store/reports `slaInputsKept`): 35 minutes against 40 is a warning.
    const target = async (minutes: number | null) => {
      const r = await s.fetch('/v1/kpi/config', {
        ...F.json({ targets: { msgapp_first_response: minutes } }, owner.headers()),
        method: 'PUT',
      })
      expect(r.status, await r.clone().text()).toBe(200)
    }
    await target(40)
    for (let tries = 0; (await sla())?.level !== 'warn'; tries++) {
      expect(tries, 'the new target never reached the list').toBeLessThan(100)
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(await sla()).toMatchObject({ level: 'warn', minutes: 35 })
    await target(null)
    await I.advance(s, -35 * 60_000)

    const free = await F.workspace(s, { plan: 'free' })
    const fs = await F.signIn(s, free.ownerEmail)
    const fch = await I.channel(s, free, 'msgapp')
    const fc = await I.conversation(s, free, { channelId: fch.id })
    await I.inbound(s, fc.id, 'hello?')
    await I.advance(s, 60 * 60_000)
    expect((await list(fs)).data[0].sla).toBeNull()
    await I.advance(s, -60 * 60_000)
  })
})

describe('paging by cursor (issue 47)', () => {
  it('goes on after the last row held: a conversation moving on top meanwhile shifts nothing', async () => {
    const ws = await F.workspace(s, { name: 'Toko Cursor' })
    const boss = await F.signIn(s, ws.ownerEmail)
    const ch = (await I.channel(s, ws, 'msgapp')).id
    const made: number[] = []
    for (let i = 0; i < 5; i++) made.push((await I.conversation(s, ws, { channelId: ch })).id)
    // Three with messages (the latest activity first), two without (last, the higher id first).
    for (const id of made.slice(0, 3)) await I.inbound(s, id, 'halo')
    const [a, b, c, n1, n2] = made as [number, number, number, number, number]
    expect(ids(await list(boss))).toEqual([c, b, a, n2, n1])

    const p1 = await list(boss, '?per_page=2')
    expect(ids(p1)).toEqual([c, b])
    expect(typeof p1.meta.next_cursor).toBe('string')
    // The oldest with messages gets a new one and goes on top: by offset, page 2 would show b again.
    await I.inbound(s, a, 'again')
    expect(ids(await list(boss, '?per_page=2&page=2'))).toEqual([b, n2])
    const p2 = await list(boss, `?per_page=2&cursor=${p1.meta.next_cursor}`)
    expect(p2.status).toBe(200)
    expect(ids(p2)).toEqual([n2, n1])
    // Among the rows without a message too; a full last page has a cursor, and the page after it
    // is empty with none.
    const p3 = await list(boss, `?per_page=2&cursor=${p2.meta.next_cursor}`)
    expect(ids(p3)).toEqual([])
    expect(p3.meta.next_cursor).toBeNull()
    expect((await list(boss, '?per_page=25')).meta.next_cursor).toBeNull()
    // A cursor into the middle of the rows without a message, with a filter kept.
    const fromN2 = await list(
      boss,
      '?per_page=1&cursor=' + (await list(boss, '?per_page=4')).meta.next_cursor,
    )
    expect(ids(fromN2)).toEqual([n1])
  })

  it('answers 422 naming cursor for one it did not give', async () => {
    const ws = await F.workspace(s, { name: 'Toko Cursor 2' })
    const boss = await F.signIn(s, ws.ownerEmail)
    const b64 = (t: string) => Buffer.from(t).toString('base64url')
    for (const cursor of [
      'x',
      b64('1.x'),
      b64("1.2'; DROP TABLE conversations"),
      b64('99999999999999999999.1'),
      'a'.repeat(65),
    ]) {
      const r = await list(boss, `?cursor=${encodeURIComponent(cursor)}`)
      expect(r.status, cursor).toBe(422)
      expect(r.error.fields.cursor, cursor).toBeDefined()
    }
  })
})

describe('detail', () => {
  it('shows response times, custom fields, notes count, tickets and contact details only with contacts.view', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const session = await F.signIn(s, w.ownerEmail)
    const ch = await I.channel(s, w, 'msgapp')
    const ct = await I.contact(s, w, { name: 'Dewi', phone: '+62833', email: 'dewi@example.com' })
    const conv = await I.conversation(s, w, { channelId: ch.id, contactId: ct.id })
    await I.inbound(s, conv.id, 'pesan')
    await I.advance(s, 90_000)
    await s.fetch(`/v1/interactions/${conv.id}/messages`, F.json({ text: 'balas' }, session.headers()))
    await I.advance(s, -90_000)
    await s.fetch(
      `/v1/interactions/${conv.id}/messages`,
      F.json({ type: 'note', text: 'vip' }, session.headers()),
    )
    // Custom values are checked against the interaction field definitions (spec 2 §4.4).
    const field = await I.body(
      await s.fetch(
        '/v1/custom-fields',
        F.json({ entity: 'interaction', label: 'Order no', type: 'text' }, session.headers()),
      ),
    )
    expect(
      (await s.fetch(`/v1/interactions/${conv.id}`, I.patch({ custom: { nope: 'x' } }, session.headers())))
        .status,
    ).toBe(422)
    await s.fetch(`/v1/interactions/${conv.id}`, I.patch({ custom: { order_no: 'A-17' } }, session.headers()))
    const d = (await I.body(await s.fetch(`/v1/interactions/${conv.id}`, { headers: session.headers() })))
      .data
    I.conforms(InteractionSchema, d)
    expect(d).toMatchObject({
      id: conv.id,
      notes_count: 1,
      tickets: [],
      ai_summary: null,
      custom_fields: [
        { id: field.data.id, key: 'order_no', label: 'Order no', type: 'text', options: [], value: 'A-17' },
      ],
      contact: {
        id: ct.id,
        name: 'Dewi',
        details: { phone: '+62833', email: 'dewi@example.com', labels: [] },
        custom_fields: [],
      },
    })
    expect(d.response_times.first_response_seconds).toBe(90)
    // Clearing a custom value with an empty string: the field stays, without a value.
    await s.fetch(`/v1/interactions/${conv.id}`, I.patch({ custom: { order_no: '' } }, session.headers()))
    expect(
      (
        await I.body(await s.fetch(`/v1/interactions/${conv.id}`, { headers: session.headers() }))
      ).data.custom_fields.map((f: any) => f.value),
    ).toEqual([null])
    // Without contacts.view: the contact's name, no details.
    const noContacts = await I.agent(s, w, await I.role(s, w, ['interactions.view', 'interactions.reply']))
    const d2 = (
      await I.body(await s.fetch(`/v1/interactions/${conv.id}`, { headers: noContacts.session.headers() }))
    ).data
    I.conforms(InteractionSchema, d2)
    expect(d2.contact).toEqual({ id: ct.id, name: 'Dewi', avatar_url: null })
  })

  it('answers 404 for an unknown id, another workspace and a malformed id', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const session = await F.signIn(s, w.ownerEmail)
    const other = await F.workspace(s, { plan: 'pro' })
    const foreign = await I.conversation(s, other)
    for (const id of [foreign.id, 99_999_999, 'abc']) {
      expect((await s.fetch(`/v1/interactions/${id}`, { headers: session.headers() })).status).toBe(404)
    }
  })
})

describe('starting a chat', () => {
  it('reuses the open chat with the contact on that number, and starts a new one after it is solved', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const session = await F.signIn(s, w.ownerEmail)
    const ch = await I.channel(s, w, 'msgapp')
    const ct = await I.contact(s, w)
    const start = (text: string) =>
      s.fetch('/v1/interactions', F.json({ contact_id: ct.id, channel_id: ch.id, text }, session.headers()))
    const first = await start('Promo hari ini!')
    expect(first.status).toBe(201)
    const a = await I.body(first)
    expect(a.meta).toMatchObject({
      reused: false,
      message: { body: 'Promo hari ini!', status: 'sent' },
      replies: { used: 1, limit: 0 },
    })
    const b = await I.body(await start('Satu lagi'))
    expect(b.data.id).toBe(a.data.id)
    expect(b.meta.reused).toBe(true)
    await s.fetch(`/v1/interactions/${a.data.id}`, I.patch({ status: 'solved' }, session.headers()))
    const c = await I.body(await start('Baru'))
    expect(c.data.id).not.toBe(a.data.id)
    // Two agents starting the same chat at once get one conversation.
    const ct2 = await I.contact(s, w)
    const both = await Promise.all(
      [1, 2, 3].map(() =>
        s
          .fetch(
            '/v1/interactions',
            F.json({ contact_id: ct2.id, channel_id: ch.id, text: 'hi' }, session.headers()),
          )
          .then(I.body),
      ),
    )
    expect(new Set(both.map((x) => x.data.id)).size).toBe(1)
  })

  it('always starts a new e-mail conversation, with a subject required', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const session = await F.signIn(s, w.ownerEmail)
    const ch = await I.channel(s, w, 'email')
    const ct = await I.contact(s, w)
    const missing = await s.fetch(
      '/v1/interactions',
      F.json({ contact_id: ct.id, channel_id: ch.id, html: '<p>x</p>' }, session.headers()),
    )
    expect((await I.body(missing)).error.fields).toEqual({ subject: 'is required' })
    const mk = () =>
      s
        .fetch(
          '/v1/interactions',
          F.json(
            {
              contact_id: ct.id,
              channel_id: ch.id,
              subject: 'Penawaran',
              html: '<p>Halo <i>Budi</i></p>',
              cc: 'a@b.co',
            },
            session.headers(),
          ),
        )
        .then(I.body)
    const one = await mk()
    const two = await mk()
    expect(one.data.id).not.toBe(two.data.id)
    expect(one.data).toMatchObject({ subject: 'Penawaran', channel: { type: 'email' } })
    expect(one.meta.message).toMatchObject({
      body: 'Halo Budi',
      email: { subject: 'Penawaran', cc: ['a@b.co'], html: '<p>Halo <i>Budi</i></p>' },
    })
  })

  it('refuses unknown contacts and channels, chats without text, and contacts the channel cannot reach', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const session = await F.signIn(s, w.ownerEmail)
    const ch = await I.channel(s, w, 'msgapp')
    const noPhone = await I.contact(s, w, { phone: null })
    const start = (b: unknown) => s.fetch('/v1/interactions', F.json(b, session.headers())).then(I.body)
    expect((await start({ contact_id: 999_999, channel_id: ch.id, text: 'x' })).error.fields).toHaveProperty(
      'contact_id',
    )
    expect(
      (await start({ contact_id: noPhone.id, channel_id: 999_999, text: 'x' })).error.fields,
    ).toHaveProperty('channel_id')
    expect(
      (await start({ contact_id: noPhone.id, channel_id: ch.id, text: 'x' })).error.fields.contact_id,
    ).toMatch(/phone/)
    expect((await start({ contact_id: noPhone.id, channel_id: ch.id })).error.fields).toHaveProperty('text')
    // Live chats and API conversations are started by the customer's side, never here.
    const ct = await I.contact(s, w)
    for (const type of ['livechat', 'api'] as const) {
      const other = await I.channel(s, w, type)
      const r = await start({ contact_id: ct.id, channel_id: other.id, text: 'x' })
      expect(r.error).toMatchObject({
        code: 'validation_error',
        fields: { channel_id: 'chats are started on messaging-app numbers and e-mail channels only' },
      })
    }
  })

  it('answers a resend of a start (same client_id) with what the first made, taking no reply or slot', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const session = await F.signIn(s, w.ownerEmail)
    const ct = await I.contact(s, w)
    for (const type of ['msgapp', 'email'] as const) {
      const ch = await I.channel(s, w, type)
      const b = {
        contact_id: ct.id,
        channel_id: ch.id,
        text: 'Halo',
        subject: 'Hi',
        client_id: `start-${type}`,
      }
      if (type === 'msgapp') delete (b as Partial<typeof b>).subject
      const first = await s.fetch('/v1/interactions', F.json(b, session.headers()))
      expect(first.status).toBe(201)
      const a = await I.body(first)
      const again = await s.fetch('/v1/interactions', F.json(b, session.headers()))
      expect(again.status).toBe(200)
      const r = await I.body(again)
      expect(r.data.id).toBe(a.data.id)
      expect(r.meta.message.id).toBe(a.meta.message.id)
      expect(r.meta.reused).toBe(true)
      expect(r.meta.replies).toEqual(a.meta.replies)
    }
    // An agent's client_id may not look like a customer's (`api:…`, `lc:…`).
    const ch = await I.channel(s, w, 'msgapp')
    const bad = await s.fetch(
      '/v1/interactions',
      F.json({ contact_id: ct.id, channel_id: ch.id, text: 'x', client_id: 'api:x1' }, session.headers()),
    )
    expect(bad.status).toBe(422)
    expect((await I.body(bad)).error.fields).toHaveProperty('client_id')
  })
})

describe('changes', () => {
  it('changes status with interactions.reply and publishes interaction.updated and inbox.changed', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const session = await F.signIn(s, w.ownerEmail)
    const conv = await I.conversation(s, w, { channelId: (await I.channel(s, w)).id })
    const { c: socket } = await I.socketFor(s, session, `conv:${conv.id}`)
    const { c: inbox } = await I.socketFor(s, session, `ws:${w.workspaceId}`)
    const res = await s.fetch(`/v1/interactions/${conv.id}`, I.patch({ status: 'solved' }, session.headers()))
    expect((await I.body(res)).data).toMatchObject({ id: conv.id, status: 'solved' })
    expect((await socket.next((f) => f.event === 'interaction.updated')).data).toMatchObject({
      id: conv.id,
      status: 'solved',
    })
    expect((await inbox.next((f) => f.event === 'inbox.changed')).data).toMatchObject({
      interaction_id: conv.id,
      reason: 'updated',
    })
    expect(
      (await s.fetch(`/v1/interactions/${conv.id}`, I.patch({ status: 'archived' }, session.headers())))
        .status,
    ).toBe(422)
    socket.close()
    inbox.close()
  })

  it('assigns within the team; moving team or assigning others needs interactions.assign; losing sight answers {id, visible: false}', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const ownerS = await F.signIn(s, w.ownerEmail)
    const a = await I.agent(s, w)
    const b = await I.agent(s, w)
    const outsider = await I.agent(s, w)
    const admin = await I.agent(s, w, 'Admin')
    const front = await I.team(s, w, [a.user.id, b.user.id])
    const other = await I.team(s, w, [outsider.user.id])
    const back = await I.team(s, w, [a.user.id], 'backoffice')
    const conv = await I.conversation(s, w, { channelId: (await I.channel(s, w)).id, teamId: front })
    const change = (session: F.Session, body: unknown) =>
      s
        .fetch(`/v1/interactions/${conv.id}`, I.patch(body, session.headers()))
        .then(async (r) => ({ status: r.status, ...(await I.body(r)) }) as any)

    // An agent (no interactions.assign) may take it, not give it to someone else, nor move the team.
    expect((await change(a.session, { assignee_id: b.user.id })).status).toBe(403)
    expect((await change(a.session, { team_id: other })).status).toBe(403)
    const mine = await change(a.session, { assignee_id: a.user.id })
    expect(mine.data).toMatchObject({ assignee: { id: a.user.id }, team: { id: front } })
    // The owner: the assignee must belong to the team (admins need none); teams must be Frontline.
    expect((await change(ownerS, { assignee_id: outsider.user.id })).error.fields.assignee_id).toBe(
      "must be a member of the conversation's team",
    )
    expect((await change(ownerS, { team_id: back })).error.fields.team_id).toBe(
      'must be a Frontline team of this workspace',
    )
    expect((await change(ownerS, { assignee_id: 999_999 })).error.fields.assignee_id).toMatch(/active member/)
    expect((await change(ownerS, { assignee_id: admin.user.id })).data.assignee.id).toBe(admin.user.id)
    // Moving the team drops an assignee who is not in the new team.
    await change(ownerS, { assignee_id: b.user.id })
    const moved = await change(ownerS, { team_id: other })
    expect(moved.data).toMatchObject({ team: { id: other }, assignee: null })
    // b hands it to the outsider's team: b can no longer see it.
    await change(ownerS, { team_id: front, assignee_id: b.user.id })
    const withAssign = await I.agent(
      s,
      w,
      await I.role(s, w, ['interactions.view', 'interactions.reply', 'interactions.assign']),
    )
    await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`INSERT INTO team_members (team_id, user_id) VALUES (${front}, ${withAssign.user.id})`,
      ),
    )
    await change(ownerS, { assignee_id: null })
    const gone = await change(withAssign.session, { team_id: other })
    expect(gone).toMatchObject({ status: 200, data: { id: conv.id, visible: false } })
    expect(
      (await s.fetch(`/v1/interactions/${conv.id}`, { headers: withAssign.session.headers() })).status,
    ).toBe(404)
  })

  it('sets and clears the category', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const session = await F.signIn(s, w.ownerEmail)
    const conv = await I.conversation(s, w)
    const cat = (
      await I.body(
        await s.fetch('/v1/conversation-categories', F.json({ name: 'Billing' }, session.headers())),
      )
    ).data
    const set = await I.body(
      await s.fetch(`/v1/interactions/${conv.id}`, I.patch({ category_id: cat.id }, session.headers())),
    )
    expect(set.data.category).toEqual({ id: cat.id, name: 'Billing' })
    const cleared = await I.body(
      await s.fetch(`/v1/interactions/${conv.id}`, I.patch({ category_id: null }, session.headers())),
    )
    expect(cleared.data.category).toBeNull()
    expect(
      (await s.fetch(`/v1/interactions/${conv.id}`, I.patch({ category_id: 999_999 }, session.headers())))
        .status,
    ).toBe(422)
  })
})

describe('conversation actions', () => {
  it('lists assignable members with team_ids and Frontline teams in meta.teams', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const session = await F.signIn(s, w.ownerEmail)
    const ch = await I.channel(s, w)
    const a = await I.agent(s, w)
    const blocked = await I.agent(s, w)
    await I.setMember(s, w, blocked.user.id, { channelIds: [] })
    const noView = await I.agent(s, w, await I.role(s, w, ['dashboard.view']))
    const t = await I.team(s, w, [a.user.id])
    const conv = await I.conversation(s, w, { channelId: ch.id })
    const r = await I.body(
      await s.fetch(`/v1/interactions/${conv.id}/assignees`, { headers: session.headers() }),
    )
    const byId = new Map(r.data.map((p: any) => [p.id, p]))
    expect(byId.get(a.user.id)).toMatchObject({ team_ids: [t], is_admin: false })
    expect(byId.get(w.ownerId)).toMatchObject({ is_admin: true })
    expect(byId.has(blocked.user.id)).toBe(false)
    expect(byId.has(noView.user.id)).toBe(false)
    expect(r.meta.teams).toEqual([{ id: t, name: expect.any(String), member_ids: [a.user.id] }])
  })

  it('marks read (receipts to the customer), and types (event, in memory)', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const session = await F.signIn(s, w.ownerEmail)
    const conv = await I.conversation(s, w, { channelId: (await I.channel(s, w)).id })
    await I.inbound(s, conv.id, 'one', 'wamid-1')
    await I.inbound(s, conv.id, 'two', 'wamid-2')
    const read = await I.body(
      await s.fetch(`/v1/interactions/${conv.id}/read`, { method: 'POST', headers: session.headers() }),
    )
    expect(read.data).toEqual({ id: conv.id, unread_count: 0 })
    const receipt = (await I.recorded(s)).find(
      (x) => x.conversationId === conv.id && x.signal?.kind === 'read',
    )
    expect(receipt?.signal).toEqual({ kind: 'read', externalIds: ['wamid-2', 'wamid-1'] })
    const { c: socket } = await I.socketFor(s, session, `conv:${conv.id}`)
    const t = await I.body(
      await s.fetch(`/v1/interactions/${conv.id}/typing`, F.json({ typing: true }, session.headers())),
    )
    expect(t.data).toMatchObject({ typing: true, typing_user_ids: [w.ownerId] })
    expect((await socket.next((f) => f.event === 'typing')).data).toEqual({
      user_id: w.ownerId,
      name: 'Olivia Owner',
      typing: true,
    })
    // App-only endpoints refuse keys.
    const key = await F.apiKey(s, w)
    for (const p of ['read', 'typing', 'pickup', 'history']) {
      expect(
        (await s.fetch(`/v1/interactions/${conv.id}/${p}`, F.json({ typing: true }, F.bearer(key)))).status,
      ).toBe(403)
    }
    socket.close()
  })

  it('asks the phone for history on messaging-app chats only; pickup only on live chats', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const session = await F.signIn(s, w.ownerEmail)
    const conv = await I.conversation(s, w, { channelId: (await I.channel(s, w, 'msgapp')).id })
    const hist = await s.fetch(`/v1/interactions/${conv.id}/history`, {
      method: 'POST',
      headers: session.headers(),
    })
    expect((await I.body(hist)).data).toEqual({ id: conv.id, requested: true })
    expect(
      (await I.recorded(s)).some((x) => x.conversationId === conv.id && x.signal?.kind === 'history'),
    ).toBe(true)
    const mail = await I.conversation(s, w, { channelId: (await I.channel(s, w, 'email')).id })
    expect(
      (await s.fetch(`/v1/interactions/${mail.id}/history`, { method: 'POST', headers: session.headers() }))
        .status,
    ).toBe(409)
    expect(
      (await s.fetch(`/v1/interactions/${conv.id}/pickup`, { method: 'POST', headers: session.headers() }))
        .status,
    ).toBe(409)
  })

  it('answers the parts whose domains come later: tickets 404, leads empty; summary 503 without an AI provider (402 on Free); feedback seen', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const session = await F.signIn(s, w.ownerEmail)
    const conv = await I.conversation(s, w)
    expect(
      (
        await s.fetch(
          `/v1/interactions/${conv.id}/tickets/1/messages`,
          F.json({ text: 'x' }, session.headers()),
        )
      ).status,
    ).toBe(404)
    expect(
      await I.body(await s.fetch(`/v1/interactions/${conv.id}/leads`, { headers: session.headers() })),
    ).toEqual({ data: [], meta: { other: [] } })
    const summary = await s.fetch(`/v1/interactions/${conv.id}/summary`, {
      method: 'POST',
      headers: session.headers(),
    })
    expect(summary.status).toBe(503)
    expect((await I.body(summary)).error.code).toBe('ai_unavailable')
    const seen = await I.body(
      await s.fetch(`/v1/interactions/${conv.id}/feedback-seen`, {
        method: 'POST',
        headers: session.headers(),
      }),
    )
    expect(seen.data.feedback_seen_at).toMatch(/Z$/)
    const free = await F.workspace(s, { plan: 'free' })
    const fs = await F.signIn(s, free.ownerEmail)
    const fc = await I.conversation(s, free)
    expect(
      (await s.fetch(`/v1/interactions/${fc.id}/summary`, { method: 'POST', headers: fs.headers() })).status,
    ).toBe(402)
  })
})

describe('search by the words of messages (issue 47)', () => {
  let w: F.Seeded
  let boss: F.Session
  let agent: F.Session
  let retur = 0
  let thanks = 0
  let byName = 0
  let hidden = 0

  const messageIds = async (id: number) =>
    (await I.body(await s.fetch(`/v1/interactions/${id}/messages`, { headers: boss.headers() }))).data.map(
      (m: { id: number; body: string }) => ({ id: m.id, text: m.body }),
    )

  beforeAll(async () => {
    w = await F.workspace(s, { plan: 'pro', name: 'Toko Kata' })
    boss = await F.signIn(s, w.ownerEmail)
    const a = await I.agent(s, w)
    agent = a.session
    const mine = await I.team(s, w, [a.user.id])
    const others = await I.team(s, w, [])
    const msgapp = (await I.channel(s, w, 'msgapp')).id
    const ani = await I.contact(s, w, { name: 'Ani Lestari', phone: '+6283333', email: 'ani@toko.id' })
    retur = (await I.conversation(s, w, { channelId: msgapp, contactId: ani.id, teamId: mine })).id
    await I.inbound(s, retur, 'Saya mau retur barangnya, kemasan rusak')
    await s.fetch(
      `/v1/interactions/${retur}/messages`,
      F.json({ text: 'Baik, kami proses returnya' }, boss.headers()),
    )
    await I.inbound(s, retur, 'Terima kasih')
    thanks = (await I.conversation(s, w, { channelId: msgapp, teamId: mine })).id
    await I.inbound(s, thanks, 'Terima kasih banyak')
    const returName = await I.contact(s, w, { name: 'Returno', phone: '+6284444', email: 'r@toko.id' })
    byName = (await I.conversation(s, w, { channelId: msgapp, contactId: returName.id, teamId: mine })).id
    await I.inbound(s, byName, 'halo')
    hidden = (await I.conversation(s, w, { channelId: msgapp, teamId: others })).id
    await I.inbound(s, hidden, 'retur untuk tim lain')
    // Another workspace's messages with the same word are never found.
    const other = await F.workspace(s, { plan: 'pro', name: 'Toko Lain' })
    const oc = (await I.conversation(s, other, { channelId: (await I.channel(s, other, 'msgapp')).id })).id
    await I.inbound(s, oc, 'retur juga')
  })

  it('finds conversations by a word of their messages, as a prefix, naming the newest message with it', async () => {
    const r = await list(boss, '?q=retur')
    expect(r.status).toBe(200)
    I.conforms(Schema.Array(InteractionItemSchema), r.data)
    expect(new Set(ids(r))).toEqual(new Set([retur, byName, hidden]))
    const msgs = await messageIds(retur)
    const reply = msgs.find((m: { text: string | null }) => m.text === 'Baik, kami proses returnya')
    const item = r.data.find((x: { id: number }) => x.id === retur)
    expect(item.match).toEqual({ message_id: reply.id, snippet: 'Baik, kami proses returnya' })
    // Found by the contact's name, not a message: no place to name.
    expect(r.data.find((x: { id: number }) => x.id === byName).match).toBeNull()
  })

  it('needs every word, in any case and accent, and keeps each member to what they may see', async () => {
    const both = await list(boss, '?q=KEMASAN%20rusak')
    expect(ids(both)).toEqual([retur])
    expect(both.data[0].match.snippet).toBe('Saya mau retur barangnya, kemasan rusak')
    expect(ids(await list(boss, '?q=kemasan%20utuh'))).toEqual([])
    expect(new Set(ids(await list(boss, '?q=terima')))).toEqual(new Set([retur, thanks]))
    expect(ids(await list(boss, `?q=${encodeURIComponent('rétur barang')}`))).toEqual([retur])
    // The agent is in one team: the other team's conversation with the word stays out.
    expect(new Set(ids(await list(agent, '?q=retur')))).toEqual(new Set([retur, byName]))
    // Counted from the same found conversations, per member.
    expect((await list(agent, '?q=retur')).meta.total).toBe(2)
    expect((await list(boss, '?q=retur&tab=solved')).meta.total).toBe(0)
    expect((await list(boss, '?q=retur')).meta.total).toBe(3)
  })

  it('words in more messages than a page first reads: the list walks and probes, the counts count them all', async () => {
    const of = async (id: number) =>
      (
        await I.sql<{ team_id: number; channel_id: number }>(
          s,
          (db) => db`SELECT team_id, channel_id FROM conversations WHERE id = ${id}`,
        )
      )[0]!
    const { team_id: mine, channel_id: msgapp } = await of(retur)
    const others = (await of(hidden)).team_id
    // One conversation holds more messages with "promo" than the bound (Conversations.WORD_HITS),
    // written straight to the table as an import would, before the statistics know of them (the
    // planner expects few: the bounded read overflows); two more have it once each.
    const bulk = (await I.conversation(s, w, { channelId: msgapp, teamId: mine })).id
    const n = Conversations.WORD_HITS + 1
    await I.sql(
      s,
      (
        db,
      ) => db`INSERT INTO messages (workspace_id, conversation_id, seq, direction, type, body, sender, created_at, sent_at)
        SELECT ${w.workspaceId}, ${bulk}, g, 'in', 'text', 'promo ' || g, '{}'::jsonb, now(), now()
        FROM generate_series(1, ${n}) g`,
    )
    await I.sql(
      s,
      (db) =>
        db`UPDATE conversations SET last_seq = ${n}, last_message_at = now() - interval '1 day' WHERE id = ${bulk}`,
    )
    const mineToo = (await I.conversation(s, w, { channelId: msgapp, teamId: mine })).id
    await I.inbound(s, mineToo, 'Ada promo minggu ini?')
    const theirs = (await I.conversation(s, w, { channelId: msgapp, teamId: others })).id
    await I.inbound(s, theirs, 'promo untuk tim lain')
    const r = await list(boss, '?q=promo&per_page=2')
    expect(ids(r)).toEqual([theirs, mineToo])
    expect(r.meta.total).toBe(3)
    expect(r.meta.counts.new + r.meta.counts.waiting + r.meta.counts.replied).toBe(3)
    expect(r.data[1].match.snippet).toContain('promo minggu')
    const next = await list(boss, `?q=promo&per_page=2&cursor=${r.meta.next_cursor}`)
    expect(ids(next)).toEqual([bulk])
    const [newest] = await I.sql<{ id: number }>(
      s,
      (db) => db`SELECT id FROM messages WHERE conversation_id = ${bulk} AND seq = ${n}`,
    )
    expect(next.data[0].match.message_id).toBe(Number(newest!.id))
    // Planned the same way (the estimate, once the statistics know the word) the page is the same.
    await I.sql(s, (db) => db`ANALYZE messages`)
    expect(ids(await list(boss, '?q=promo&per_page=2'))).toEqual([theirs, mineToo])
    // The walk keeps to what each member may see, and to the other filters.
    expect(ids(await list(agent, '?q=promo'))).toEqual([mineToo, bulk])
    expect(ids(await list(boss, `?q=promo&channel_ids=${msgapp}&tab=solved`))).toEqual([])
    expect(new Set(ids(await list(boss, '?q=retur')))).toEqual(new Set([retur, byName, hidden]))
  })

  it('has no place without a search, and a query without words finds by the rest only', async () => {
    const plain = await list(boss)
    expect(plain.data.every((x: object) => !('match' in x))).toBe(true)
    const punct = await list(boss, `?q=${encodeURIComponent('%_!')}`)
    expect(punct.status).toBe(200)
    expect(ids(punct)).toEqual([])
  })

  it('keeps the words index small to catch up with while messages stream in (migration 0115)', async () => {
    // GIN queues new entries in a pending list and the insert that finds it full moves all of it,
    // inside the node's one group write: with PostgreSQL's default 4 MB that stalled every
    // conversation's appends for ~175 ms. The list is emptied first, so only these messages count.
    const pendingPages = async (index: string) =>
      (
        await I.sql<{ pages: number }>(
          s,
          (db) => db`SELECT gin_clean_pending_list(${index}::regclass)::int AS pages`,
        )
      )[0]!.pages
    await pendingPages('messages_words_idx')
    const msgapp = (await I.channel(s, w, 'msgapp')).id
    const talk = (await I.conversation(s, w, { channelId: msgapp })).id
    // 60 messages of 150 words never seen before: about 200 kB of pending entries, three times
    // the 64 kB limit (and a twentieth of the default).
    for (let i = 0; i < 60; i++)
      await I.inbound(s, talk, Array.from({ length: 150 }, (_, j) => `kata${i}x${j}`).join(' '))
    expect(await pendingPages('messages_words_idx')).toBeLessThanOrEqual(64 / 8 + 1)
    // Moved or not, every word is found.
    expect(ids(await list(boss, '?q=kata30x75'))).toEqual([talk])
    expect(ids(await list(boss, '?q=kata0x0'))).toEqual([talk])
    const options = await I.sql<{ relname: string; reloptions: string[] }>(
      s,
      (db) => db`SELECT relname, reloptions FROM pg_class
        WHERE relname IN ('messages_words_idx', 'conversations_subject_search_idx') ORDER BY relname`,
    )
    expect(options).toEqual([
      { relname: 'conversations_subject_search_idx', reloptions: ['gin_pending_list_limit=64'] },
      { relname: 'messages_words_idx', reloptions: ['gin_pending_list_limit=64'] },
    ])
  })
})
