import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nthSocket } from '../../connectors/msgapp/TransportTest'
import * as Msgapp from '../../store/msgapp'
import { socketFor } from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { body, ENV, linkedNumber, status, textFrom, waitFor, waitStatus } from './support'

/**
 * Number health (docs/decisions.md, "Messaging-app numbers"): the send log and warm-up allowance
 * on GET /channels/{id}/status, the warm-up refusal, a restriction reported by the service, and
 * the sealed auth state reused after a restart.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
beforeAll(async () => {
  // On disk when embedded: the sealed auth state must outlive a restart.
  s = await startTestServer(ENV, { durable: true })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

const conversationOf = async (channelId: number) =>
  waitFor(async () => {
    const r = await body(
      await s.fetch(`/v1/interactions?channel_ids=${channelId}`, { headers: owner.headers() }),
    )
    return (r.data as Array<Record<string, any>>)[0]
  })
const reply = async (conversationId: number, text: string) => {
  const res = await s.fetch(`/v1/interactions/${conversationId}/messages`, F.json({ text }, owner.headers()))
  expect(res.status).toBe(201)
  return (await body(res)).data as Record<string, any>
}
const sql = (f: (db: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  s.run(Effect.flatMap(SqlClient.SqlClient, (db) => f(db) as Effect.Effect<unknown>))
const notifications = async () => {
  const r = (await body(await s.fetch('/v1/notifications', { headers: owner.headers() }))).data
  return (Array.isArray(r) ? r : r.items) as Array<Record<string, any>>
}
const DAY = 86_400_000

describe('messaging-app number health', () => {
  it('every send is in the per-number send log on GET /status, with 24-hour counts and the warm-up allowance', async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000601')
    const fresh = await status(s, owner, ch.id)
    expect(fresh.health).toEqual({
      sent_24h: 0,
      failed_24h: 0,
      warmup: { limit: 100, remaining: 100, ends_at: expect.stringMatching(/Z$/) },
      log: [],
    })
    expect(Date.parse(fresh.health.warmup.ends_at) - Date.parse(fresh.linked_at)).toBe(7 * DAY)

    textFrom(sock, '6281399996001', 'Halo')
    const conv = await conversationOf(ch.id)
    const ok = await reply(conv.id, 'Siap')
    expect(ok.status).toBe('sent')
    sock.failures.push(Object.assign(new Error('rate-overlimit'), { output: { statusCode: 429 } }))
    const failed = await reply(conv.id, 'Lagi')
    expect(failed).toMatchObject({ status: 'failed', error: 'rate-overlimit (429)' })

    const st = await status(s, owner, ch.id)
    expect(st.status).toBe('active')
    expect(st.health).toEqual({
      sent_24h: 1,
      failed_24h: 1,
      warmup: { limit: 100, remaining: 99, ends_at: fresh.health.warmup.ends_at },
      log: [
        {
          at: expect.stringMatching(/Z$/),
          message_id: failed.id,
          to: '+6281399996001',
          ok: false,
          error: 'rate-overlimit (429)',
        },
        { at: expect.stringMatching(/Z$/), message_id: ok.id, to: '+6281399996001', ok: true, error: null },
      ],
    })
    // Other workspaces see no number.
    const other = await F.workspace(s, { plan: 'pro' })
    const stranger = await F.signIn(s, other.ownerEmail)
    expect((await s.fetch(`/v1/channels/${ch.id}/status`, { headers: stranger.headers() })).status).toBe(404)
  })

  it('a new number beyond its warm-up allowance fails the message with the reason; a warmed-up number sends', async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000602')
    textFrom(sock, '6281399996002', 'Halo')
    const conv = await conversationOf(ch.id)
    // 100 messages already went out today from this day-old number (limit 100 on day 0).
    await sql(
      (db) => db`INSERT INTO msgapp_send_log (channel_id, jid, ok, error)
        SELECT ${ch.id}, '6281399996002@s.whatsapp.net', true, NULL FROM generate_series(1, 100)`,
    )
    const refused = await reply(conv.id, 'Promo')
    expect(refused).toMatchObject({
      status: 'failed',
      error: 'Warm-up limit of this new number reached (100 messages per 24 hours during its first 7 days).',
    })
    expect(sock.sent).toEqual([])
    const st = await status(s, owner, ch.id)
    expect(st.health).toMatchObject({ sent_24h: 100, failed_24h: 1 })
    expect(st.health.warmup).toMatchObject({ limit: 100, remaining: 0 })
    expect(st.health.log[0]).toMatchObject({ message_id: refused.id, ok: false, error: refused.error })

    // Linked two days ago: 300 a day, so it sends again.
    await sql(
      (db) => db`UPDATE msgapp_numbers SET linked_at = now() - interval '2 days' WHERE channel_id = ${ch.id}`,
    )
    expect((await reply(conv.id, 'Day 3')).status).toBe('sent')
    expect((await status(s, owner, ch.id)).health.warmup).toMatchObject({ limit: 300, remaining: 199 })
    // Linked 7 days ago or more: no warm-up limit.
    await sql(
      (db) => db`UPDATE msgapp_numbers SET linked_at = now() - interval '8 days' WHERE channel_id = ${ch.id}`,
    )
    await sql(
      (db) => db`INSERT INTO msgapp_send_log (channel_id, jid, ok, error)
        SELECT ${ch.id}, '6281399996002@s.whatsapp.net', true, NULL FROM generate_series(1, 300)`,
    )
    expect((await reply(conv.id, 'Warm')).status).toBe('sent')
    expect((await status(s, owner, ch.id)).health.warmup).toBeNull()
    expect(sock.sent.map((x) => (x.content as { text: string }).text.split('\n')[0])).toEqual([
      'Day 3',
      'Warm',
    ])
  })

  it('a send refused with 463 or 403 sets restricted, notifies the managers; a later send restores active', async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000603')
    textFrom(sock, '6281399996003', 'Halo')
    const conv = await conversationOf(ch.id)
    const { c: ws } = await socketFor(s, owner, `ws:${w.workspaceId}`)
    sock.failures.push(Object.assign(new Error('blocked'), { output: { statusCode: 463 } }))
    const refused = await reply(conv.id, 'Promo')
    expect(refused).toMatchObject({ status: 'failed', error: 'blocked (463)' })
    const ev = await ws.next(
      (f) => f.event === 'channel.updated' && (f.data as { status?: string }).status === 'restricted',
    )
    expect(ev.data).toEqual({ channel_id: ch.id, status: 'restricted' })
    await waitStatus(s, owner, ch.id, 'restricted')
    const note = await waitFor(async () =>
      (await notifications()).find((n) => n.kind === 'channel.restricted' && n.data.channel_id === ch.id),
    )
    expect(note.title).toContain('is restricted from sending')
    expect(note.data).toEqual({ channel_id: ch.id, status: 'restricted' })
    const chans = (await body(await s.fetch('/v1/channels', { headers: owner.headers() }))).data as Array<
      Record<string, any>
    >
    expect(chans.find((c) => c.id === ch.id)?.status).toBe('restricted')

    // Sending works again: back to active, without another notification.
    expect((await reply(conv.id, 'Maaf')).status).toBe('sent')
    await waitStatus(s, owner, ch.id, 'active')
    // 403 counts as a restriction as well; other failures do not.
    sock.failures.push(Object.assign(new Error('forbidden'), { output: { statusCode: 403 } }))
    expect((await reply(conv.id, 'x')).status).toBe('failed')
    await waitStatus(s, owner, ch.id, 'restricted')
    // The notification is written just after the status: wait for it rather than race it.
    const restricted = async () =>
      (await notifications()).filter((n) => n.kind === 'channel.restricted' && n.data.channel_id === ch.id)
    await waitFor(async () => (await restricted()).length >= 2)
    expect(await restricted()).toHaveLength(2)
    ws.close()
  })

  it('a send the service refuses after it left (an error ack) is failed with the reason, not left sent', async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000604')
    textFrom(sock, '6281399996004', 'Halo')
    const conv = await conversationOf(ch.id)
    const sent = await reply(conv.id, 'Promo hari ini')
    expect(sent.status).toBe('sent')
    const waMsg = sock.sent[0]!.id
    const jid = sock.sent[0]!.jid
    // Baileys' sendMessage resolves once the message is relayed; the service's refusal comes
    // later, as the ack's error: a messages.update with status ERROR (0) and the code.
    sock.emit('messages.update', [
      {
        key: { remoteJid: jid, id: waMsg, fromMe: true },
        update: { status: 0, messageStubParameters: ['463'] },
      },
    ])
    const messages = async () =>
      (await body(await s.fetch(`/v1/interactions/${conv.id}/messages`, { headers: owner.headers() })))
        .data as Array<Record<string, any>>
    const failed = await waitFor(async () =>
      (await messages()).find((m) => m.id === sent.id && m.status === 'failed'),
    )
    expect(failed.error).toMatch(/463/)
    // A customer's message is never failed by such an update.
    const theirs = (await messages()).find((m) => m.direction === 'in')!
    const theirId = (await sql(
      (db) => db`SELECT wa_id FROM msgapp_messages WHERE message_id = ${theirs.id}`,
    )) as Array<{
      wa_id: string
    }>
    sock.emit('messages.update', [
      { key: { remoteJid: jid, id: theirId[0]!.wa_id, fromMe: false }, update: { status: 0 } },
    ])
    // The agent can send it again.
    const resent = await s.fetch(`/v1/interactions/${conv.id}/messages/${sent.id}/retry`, {
      method: 'POST',
      headers: owner.headers(),
    })
    expect(resent.status).toBeLessThan(300)
    await waitFor(async () => (await messages()).find((m) => m.id === sent.id && m.status === 'sent'))
    expect((await messages()).find((m) => m.id === theirs.id)?.status).toBe(theirs.status)
  })

  it('the sealed auth state is reused after a restart: the number comes back without a new QR', async () => {
    const { ch, sock } = await linkedNumber(s, owner, '6281200000604')
    const before = await status(s, owner, ch.id)
    // What Baileys' socket stores once linked: the account in the creds, signal keys in the key store.
    sock.emit('creds.update', {
      me: { id: '6281200000604:7@s.whatsapp.net', name: 'Shop' },
      registrationId: 4711,
    })
    await waitFor(async () => {
      const [row] = await s.run(Msgapp.readAuth(ch.id, 'creds', ['creds']))
      return row && !row.sealed.includes('4711')
    })
    const preKey = { public: Buffer.alloc(32, 3), private: Buffer.alloc(32, 4) }
    await sock.auth!.keys.set({ 'pre-key': { '42': preKey } })
    const noise = Buffer.from(sock.auth!.creds.noiseKey.private)

    await s.restart()
    const next = await nthSocket(ch.id, 2, 10_000)
    expect(next.auth!.creds.me).toEqual({ id: '6281200000604:7@s.whatsapp.net', name: 'Shop' })
    expect(next.auth!.creds.registrationId).toBe(4711)
    expect(Buffer.from(next.auth!.creds.noiseKey.private).equals(noise)).toBe(true)
    const keys = await next.auth!.keys.get('pre-key', ['42'])
    expect(Buffer.from(keys['42']!.private).equals(preKey.private)).toBe(true)
    expect(next.user?.id).toBe('6281200000604:7@s.whatsapp.net')

    next.open('6281200000604')
    await waitStatus(s, owner, ch.id, 'active')
    const after = await status(s, owner, ch.id)
    expect(after).toMatchObject({
      phone: '+6281200000604',
      linked_at: before.linked_at,
      qr_available: false,
    })
    expect((await s.fetch(`/v1/channels/${ch.id}/qr`, { headers: owner.headers() })).status).toBe(409)
    expect(next.calls.filter((c) => c.op === 'requestPairingCode')).toEqual([])
  })
})
