import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as I from './support'

/**
 * The time windows of spec 2 §8 with the server's clock moved forward (WallClock), never slept:
 * edit 15 minutes, unsend 2 days, 30 messages a minute per number.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

const MIN = 60_000
const url = (id: number, rest = '') => `/v1/interactions/${id}/messages${rest}`
const send = (id: number, b: unknown, headers = owner.headers()) => s.fetch(url(id), F.json(b, headers))
const edit = (id: number, m: number, text: string, headers = owner.headers()) =>
  s.fetch(url(id, `/${m}`), I.patch({ text }, headers))
const unsend = (id: number, m: number) => s.fetch(url(id, `/${m}`), I.del(owner.headers()))

const conversation = async (type: 'msgapp' | 'api' = 'api') => {
  const ch = await I.channel(s, w, type)
  return { ch, c: await I.conversation(s, w, { channelId: ch.id, contactId: (await I.contact(s, w)).id }) }
}

describe('editing', () => {
  it('edits your own text within 15 minutes, publishes message.updated and tells the channel', async () => {
    const { c } = await conversation('msgapp')
    const m = (await I.body(await send(c.id, { text: 'Harga Rp 10.000' }))).data
    const { c: socket } = await I.socketFor(s, owner, `conv:${c.id}`)
    await I.advance(s, 14 * MIN)
    const res = await edit(c.id, m.id, 'Harga Rp 12.000')
    expect(res.status).toBe(200)
    const edited = (await I.body(res)).data
    expect(edited).toMatchObject({ id: m.id, seq: m.seq, body: 'Harga Rp 12.000' })
    expect(edited.edited_at).not.toBeNull()
    expect((await socket.next((f) => f.event === 'message.updated')).data).toMatchObject({
      id: m.id,
      body: 'Harga Rp 12.000',
    })
    const relayed = (await I.recorded(s)).find((r) => r.conversationId === c.id && r.signal?.kind === 'edit')
    expect(relayed?.signal).toMatchObject({ body: 'Harga Rp 12.000' })
    await I.advance(s, -14 * MIN)
    socket.close()
  })

  it('refuses an edit after 15 minutes (409), of someone else (403) and of a customer message (403)', async () => {
    const { c } = await conversation()
    const mine = (await I.body(await send(c.id, { text: 'typo' }))).data
    const other = await I.agent(s, w)
    const theirs = (await I.body(await send(c.id, { text: 'by the agent' }, other.session.headers()))).data
    const customer = await I.inbound(s, c.id, 'from the customer')
    expect((await edit(c.id, theirs.id, 'not mine')).status).toBe(403)
    expect((await edit(c.id, customer.id, 'not mine')).status).toBe(403)
    await I.advance(s, 15 * MIN + 1000)
    const late = await edit(c.id, mine.id, 'too late')
    expect(late.status).toBe(409)
    expect((await I.body(late)).error.message).toBe(
      'A message can be edited only within 15 minutes of sending.',
    )
    await I.advance(s, -(15 * MIN + 1000))
    // Back inside the window (clock restored) the same edit goes through: only time made the difference.
    expect((await edit(c.id, mine.id, 'fixed')).status).toBe(200)
    // Notes are text too.
    const note = (await I.body(await send(c.id, { type: 'note', text: 'note' }))).data
    expect((await edit(c.id, note.id, 'note, edited')).status).toBe(200)
  })

  it('lets a key edit what that key sent', async () => {
    const { c } = await conversation()
    const key = await F.apiKey(s, w)
    const otherKey = await F.apiKey(s, w)
    const m = (await I.body(await send(c.id, { text: 'v1' }, F.bearer(key)))).data
    expect((await edit(c.id, m.id, 'v2', F.bearer(otherKey))).status).toBe(403)
    expect((await I.body(await edit(c.id, m.id, 'v2', F.bearer(key)))).data.body).toBe('v2')
  })
})

describe('unsending', () => {
  it('unsends for everyone within 2 days and refuses after', async () => {
    const { c } = await conversation('msgapp')
    const early = (await I.body(await send(c.id, { text: 'oops' }))).data
    const late = (await I.body(await send(c.id, { text: 'keep' }))).data
    await I.advance(s, 2 * 24 * 60 * MIN - MIN)
    const res = await unsend(c.id, early.id)
    expect(res.status).toBe(200)
    const gone = (await I.body(res)).data
    expect(gone).toMatchObject({ id: early.id, seq: early.seq, body: '', media: null })
    expect(gone.deleted_at).not.toBeNull()
    expect((await I.recorded(s)).some((r) => r.signal?.kind === 'unsend' && r.conversationId === c.id)).toBe(
      true,
    )
    await I.advance(s, 2 * MIN)
    const refused = await unsend(c.id, late.id)
    expect(refused.status).toBe(409)
    expect((await I.body(refused)).error.message).toBe(
      'A message can be unsent only within 2 days of sending.',
    )
    await I.advance(s, -(2 * 24 * 60 * MIN + MIN))
    // The customer's messages are not ours to unsend; an unsent message stays unsent.
    const theirs = await I.inbound(s, c.id, 'hello')
    expect((await unsend(c.id, theirs.id)).status).toBe(409)
    expect((await unsend(c.id, early.id)).status).toBe(409)
    // Its number stays taken: the sequence has no hole.
    const page = (await I.body(await s.fetch(url(c.id), { headers: owner.headers() }))).data
    expect(page.map((m: any) => m.seq)).toEqual([1, 2, 3])
  })
})

describe('the per-number throttle', () => {
  it('sends 30 messages a minute on one number, answers 429 with Retry-After beyond, and again next minute', async () => {
    const { c } = await conversation('msgapp')
    // Start at the beginning of a clock minute, so the 31 sends share one window.
    const now = await I.clockNow(s)
    const shift = Math.ceil(now / MIN) * MIN + 1000 - now
    await I.advance(s, shift)
    for (let i = 0; i < 30; i++) expect((await send(c.id, { text: `m${i}` })).status).toBe(201)
    const over = await send(c.id, { text: 'one too many' })
    expect(over.status).toBe(429)
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await I.body(over)).error).toMatchObject({ code: 'rate_limited' })
    // Nothing was stored for the refused one.
    const page = (await I.body(await s.fetch(url(c.id, '?limit=100'), { headers: owner.headers() }))).data
    expect(page).toHaveLength(30)
    // Notes do not leave the inbox, so they are not throttled; other numbers have their own budget.
    expect((await send(c.id, { type: 'note', text: 'still fine' })).status).toBe(201)
    const other = await conversation('msgapp')
    expect((await send(other.c.id, { text: 'another number' })).status).toBe(201)
    await I.advance(s, MIN)
    expect((await send(c.id, { text: 'next minute' })).status).toBe(201)
    await I.advance(s, -(MIN + shift))
  })
})
