import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChannelActor, NOTE_REFUSED } from '../../actors/channels/ChannelActor'
import type { OutboundMessage } from '../../actors/channels/Connector'
import * as Outbound from '../../actors/inbox/outbound'
import * as Channels from '../../store/channels'
import * as Conversations from '../../store/conversations'
import * as Messages from '../../store/messages'
import * as Workspaces from '../../store/workspaces'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as I from './support'

/**
 * Internal notes never reach a connector (the privacy fault of a note with a file sent to the
 * customer): a note takes one file and stays a note on every channel type; nothing of it is handed
 * to the channel, whatever the request says; a reply cannot quote one; and the boundary itself
 * (the outbound path and the ChannelActor) refuses a note handed to it directly.
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

type ChannelType = 'msgapp' | 'livechat' | 'api' | 'email'

const chat = async (type: ChannelType) => {
  const ch = await I.channel(s, w, type)
  const ct = await I.contact(s, w, { name: 'Budi Santoso' })
  const c = await I.conversation(s, w, {
    channelId: ch.id,
    contactId: ct.id,
    ...(type === 'email' ? { subject: 'Order #42' } : {}),
  })
  return { ch, c }
}

const url = (id: number, rest = '') => `/v1/interactions/${id}/messages${rest}`
const multipart = (
  id: number,
  fields: Record<string, string>,
  files: Array<{ field: string; name: string; type: string; bytes: Uint8Array }>,
) => s.fetch(url(id), { method: 'POST', headers: owner.headers(), body: I.form(fields, files) })
const pdf = { field: 'file', name: 'finance-approval.pdf', type: 'application/pdf', bytes: I.bytes(2_000) }

/** Everything the channel's connector was handed for this conversation (messages and signals). */
const handed = async (conversationId: number) =>
  (await I.recorded(s)).filter((r) => r.conversationId === conversationId)
/** The messages among them (a live chat's pickup is a signal). */
const delivered = async (conversationId: number) =>
  (await handed(conversationId)).flatMap((r) => (r.message ? [r.message] : []))

describe('a note with a file', () => {
  for (const type of ['livechat', 'api', 'msgapp', 'email'] as const) {
    it(`stays an internal note on a ${type} conversation and never reaches its connector`, async () => {
      const { c } = await chat(type)
      const res = await multipart(c.id, { type: 'note', text: 'Refund approved by finance' }, [pdf])
      expect(res.status, await res.clone().text()).toBe(201)
      const note = (await I.body(res)).data
      expect(note).toMatchObject({
        type: 'note',
        direction: 'out',
        status: 'internal',
        source: 'note',
        body: 'Refund approved by finance',
        media: { name: 'finance-approval.pdf', mime: 'application/pdf', size: 2_000 },
      })
      // The team opens the file; it is the one uploaded.
      const file = await s.fetch(note.media.url, { headers: owner.headers() })
      expect(file.status).toBe(200)
      expect(new Uint8Array(await file.arrayBuffer())).toEqual(pdf.bytes)
      // A file alone makes a note too.
      const bare = await multipart(c.id, { type: 'note' }, [
        { field: 'file', name: 'screenshot.png', type: 'image/png', bytes: I.bytes(300) },
      ])
      expect((await I.body(bare)).data).toMatchObject({ type: 'note', status: 'internal', body: '' })
      const notes = await I.body(
        await s.fetch(`/v1/interactions/${c.id}/notes`, { headers: owner.headers() }),
      )
      expect(notes.data.map((n: { media: { name: string } | null }) => n.media?.name)).toEqual([
        'screenshot.png',
        'finance-approval.pdf',
      ])
      // A reply after them reaches the channel; the notes never did.
      const reply = await s.fetch(url(c.id), F.json({ text: 'We are on it' }, owner.headers()))
      expect(reply.status).toBe(201)
      const got = await delivered(c.id)
      expect(got.map((m) => m.messageId)).toEqual([(await I.body(reply)).data.id])
      expect(got[0]!.body).toMatch(/^We are on it/)
      expect(JSON.stringify(await handed(c.id))).not.toMatch(/finance|Refund approved|screenshot/)
      // Notes keep the conversation as the customer left it: no reply counted, no preview.
      const detail = await I.body(await s.fetch(`/v1/interactions/${c.id}`, { headers: owner.headers() }))
      expect(detail.data.notes_count).toBe(2)
    })
  }

  it('a file without `type=note` is a reply (the API does as it is asked); with it, a note', async () => {
    const { c } = await chat('livechat')
    const asReply = (await I.body(await multipart(c.id, { text: 'the invoice' }, [pdf]))).data
    expect(asReply).toMatchObject({ type: 'document', status: 'sent' })
    const asNote = (await I.body(await multipart(c.id, { type: 'note', text: 'the invoice' }, [pdf]))).data
    expect(asNote).toMatchObject({ type: 'note', status: 'internal' })
    expect((await delivered(c.id)).map((m) => m.messageId)).toEqual([asReply.id])
  })

  it('refuses what a note cannot carry (mail fields, templates) rather than dropping it', async () => {
    const { c } = await chat('email')
    for (const b of [
      { type: 'note', text: 'x', html: '<b>x</b>' },
      { type: 'note', text: 'x', cc: 'boss@example.com' },
      { type: 'note', text: 'x', reply_all: true },
    ]) {
      const res = await s.fetch(url(c.id), F.json(b, owner.headers()))
      expect(res.status, JSON.stringify(b)).toBe(422)
    }
    const mailFiles = await multipart(c.id, { type: 'note', text: 'x' }, [{ ...pdf, field: 'files' }])
    expect(mailFiles.status).toBe(422)
    expect((await I.body(mailFiles)).error.fields.files).toBeDefined()
    const empty = await s.fetch(url(c.id), F.json({ type: 'note', text: '  ' }, owner.headers()))
    expect(empty.status).toBe(422)
    expect(await handed(c.id)).toEqual([])
  })

  it('a reply cannot quote a note (a note may quote anything)', async () => {
    const { c } = await chat('msgapp')
    const note = (
      await I.body(await s.fetch(url(c.id), F.json({ type: 'note', text: 'VIP' }, owner.headers())))
    ).data
    const quoting = await s.fetch(url(c.id), F.json({ text: 'Hello', reply_to_id: note.id }, owner.headers()))
    expect(quoting.status).toBe(422)
    expect((await I.body(quoting)).error.fields.reply_to_id).toMatch(/internal note/)
    const noteOnNote = await s.fetch(
      url(c.id),
      F.json({ type: 'note', text: 'seen', reply_to_id: note.id }, owner.headers()),
    )
    expect(noteOnNote.status).toBe(201)
    expect(await handed(c.id)).toEqual([])
  })

  it('a note is never retried, and editing or unsending one tells the channel nothing', async () => {
    const { c } = await chat('msgapp')
    const note = (await I.body(await multipart(c.id, { type: 'note', text: 'draft' }, [pdf]))).data
    const retried = await s.fetch(url(c.id, `/${note.id}/retry`), {
      method: 'POST',
      headers: owner.headers(),
    })
    expect(retried.status).toBe(409)
    const edited = await s.fetch(url(c.id, `/${note.id}`), {
      ...F.json({ text: 'draft, edited' }, owner.headers()),
      method: 'PATCH',
    })
    expect(edited.status).toBe(200)
    expect((await I.body(edited)).data).toMatchObject({ type: 'note', status: 'internal' })
    const unsent = await s.fetch(url(c.id, `/${note.id}`), { method: 'DELETE', headers: owner.headers() })
    expect(unsent.status).toBe(200)
    expect(await handed(c.id)).toEqual([])
  })
})

describe('the boundary to the connectors (defence in depth)', () => {
  it('the outbound path keeps a note handed to it as it is, and asks no channel', async () => {
    const { ch, c } = await chat('livechat')
    const note = (
      await I.body(await s.fetch(url(c.id), F.json({ type: 'note', text: 'not for Budi' }, owner.headers())))
    ).data
    const after = await s.run(
      Effect.gen(function* () {
        const workspace = (yield* Workspaces.byId(w.workspaceId))!
        const conversation = (yield* Conversations.byId(c.id))!
        const channel = yield* Channels.byId(ch.id)
        const row = (yield* Messages.inConversation(c.id, note.id))!
        return yield* Outbound.deliver({ workspace, conversation, channel }, row)
      }),
    )
    expect(after).toMatchObject({ id: note.id, type: 'note', status: 'internal' })
    expect(await handed(c.id)).toEqual([])
  })

  it('the ChannelActor refuses a note whoever hands it one: no connector sees it', async () => {
    for (const type of ['livechat', 'api', 'msgapp', 'email'] as const) {
      const { ch, c } = await chat(type)
      const note = (
        await I.body(
          await s.fetch(url(c.id), F.json({ type: 'note', text: 'not for Budi' }, owner.headers())),
        )
      ).data
      const message: OutboundMessage = {
        messageId: note.id,
        conversationId: c.id,
        type: 'note',
        body: 'not for Budi',
        to: { name: 'Budi Santoso', phone: null, email: 'budi@example.com' },
        group: null,
        subject: null,
        files: [],
        replyTo: null,
        payload: { source: 'note' },
      }
      const delivery = await s.run(
        Effect.flatMap(ChannelActor, (a) => a.ask(ch.id, { _tag: 'Deliver', message })),
      )
      expect(delivery, type).toEqual({ _tag: 'Rejected', reason: NOTE_REFUSED })
      expect(await handed(c.id), type).toEqual([])
    }
  })
})
