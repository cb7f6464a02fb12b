import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadSocialConfig } from '../../social/config'
import { sign } from '../../social/instagram'
import * as Channels from '../../social/store/channels'
import {
  APP_SECRET,
  body,
  freshEnv,
  get,
  importRecords,
  key,
  type SocialTestServer,
  startSocialServer,
  VERIFY_TOKEN,
  workspace,
} from './support'

/**
 * The platform webhook at /webhooks/instagram: the subscription handshake, signatures
 * (X-Hub-Signature-256 over the raw body), and notifications becoming conversations.
 */
let s: SocialTestServer
let ws: number
let k: string
const ACCOUNT = '17841400000000077'

beforeAll(async () => {
  s = await startSocialServer()
  ws = await workspace(s)
  await s.run(Channels.upsert(ws, ACCOUNT, 'tokomaju.id'))
})
afterAll(() => s?.stop())

const post = (payload: unknown, signature?: string | null, raw?: string) => {
  const text = raw ?? JSON.stringify(payload)
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  const sig = signature === undefined ? sign(APP_SECRET, text) : signature
  if (sig !== null) headers['x-hub-signature-256'] = sig
  return s.fetch('/webhooks/instagram', { method: 'POST', headers, body: text })
}

const comment = (value: Record<string, unknown>, account = ACCOUNT, time = 1_772_420_400) => ({
  object: 'instagram',
  entry: [{ id: account, time, changes: [{ field: 'comments', value }] }],
})

const conversations = async () => {
  k = await key(s, ws)
  return (await get(s, k, '/api/v1/conversations')).body
}

describe('subscription handshake', () => {
  it('echoes hub.challenge for the right verify token', async () => {
    const res = await s.fetch(
      `/webhooks/instagram?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`,
    )
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(await res.text()).toBe('1158201444')
  })

  it.each([
    ['a wrong token', 'hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1'],
    ['another mode', `hub.mode=unsubscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`],
    ['no challenge', `hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}`],
    ['nothing', ''],
  ])('refuses %s with 403', async (_, q) => {
    const res = await s.fetch(`/webhooks/instagram?${q}`)
    expect(res.status).toBe(403)
    expect((await body(res)).error.code).toBe('forbidden')
  })
})

describe('signatures', () => {
  const payload = comment({ id: 'sig-1', text: 'Halo', from: { id: '5001', username: 'andi' } })

  it.each([
    ['missing', null],
    ['signed with another secret', sign('another-secret', JSON.stringify(payload))],
    ['not hex', 'sha256=zz'],
    ['sha1', 'sha1=0123456789abcdef0123456789abcdef01234567'],
    ['of another body', sign(APP_SECRET, '{}')],
  ])('refuses a signature that is %s with 403, writing nothing', async (_, sig) => {
    const res = await post(payload, sig)
    expect(res.status).toBe(403)
    expect((await body(res)).error.code).toBe('forbidden')
    expect((await conversations()).meta.total).toBe(0)
  })

  it('checks the raw bytes: the same JSON formatted otherwise is refused', async () => {
    const signed = sign(APP_SECRET, JSON.stringify(payload))
    const res = await post(payload, signed, JSON.stringify(payload, null, 2))
    expect(res.status).toBe(403)
  })

  it('accepts a valid signature (upper-case hex too)', async () => {
    const text = JSON.stringify(payload)
    const res = await post(payload, `sha256=${sign(APP_SECRET, text).slice(7).toUpperCase()}`)
    expect(res.status).toBe(200)
    expect(await body(res)).toEqual({ data: { received: 1, ignored: 0 }, meta: {} })
  })

  it('refuses a signed body that is not a notification with 422', async () => {
    const res = await post(null, undefined, 'not json')
    expect(res.status).toBe(422)
  })

  it('answers 404 when the webhook is not configured, and wants both settings', async () => {
    const fresh = await freshEnv({ INSTAGRAM_APP_SECRET: '', INSTAGRAM_VERIFY_TOKEN: '' })
    const bare = await startSocialServer({ env: fresh.env })
    try {
      const handshake = await bare.fetch(
        `/webhooks/instagram?hub.mode=subscribe&hub.verify_token=&hub.challenge=1`,
      )
      expect(handshake.status).toBe(404)
      const res = await bare.fetch('/webhooks/instagram', {
        method: 'POST',
        headers: { 'x-hub-signature-256': sign('', '{}') },
        body: '{}',
      })
      expect(res.status).toBe(404)
      expect((await body(res)).error.code).toBe('not_found')
    } finally {
      await bare.stop()
      await fresh.cleanup()
    }
    expect(() => loadSocialConfig({ ...s.env, INSTAGRAM_VERIFY_TOKEN: '' })).toThrow(/go together/)
  })
})

describe('notifications become conversations', () => {
  it('a comment opens a reply conversation; the account’s reply answers it', async () => {
    // 1_772_420_400 = 2026-03-02T03:00:00Z = 10:00+07:00
    const first = comment({
      id: 'c-100',
      text: 'Kak, ukuran M masih ada?',
      from: { id: '5002', username: 'siti.pratama' },
      media: {
        id: 'media-1',
        caption: 'Koleksi batik terbaru!',
        permalink: 'https://www.instagram.com/p/XYZ/',
      },
    })
    expect((await post(first)).status).toBe(200)
    const reply = comment(
      {
        id: 'c-101',
        text: 'Masih ready Kak 😊',
        from: { id: ACCOUNT, username: 'tokomaju.id' },
        parent_id: 'c-100',
        media: { id: 'media-1' },
      },
      ACCOUNT,
      1_772_420_400 + 300,
    )
    expect(await body(await post(reply))).toEqual({ data: { received: 1, ignored: 0 }, meta: {} })
    const list = await conversations()
    const c = list.data.find((x: { contact: { username: string } }) => x.contact.username === 'siti.pratama')
    expect(c).toMatchObject({
      type: 'reply',
      status: 'replied',
      channel: { username: 'tokomaju.id' },
      first_response_secs: 300,
      created_at: '2026-03-02T10:00:00+07:00',
      last_message_at: '2026-03-02T10:05:00+07:00',
    })
    const detail = (await get(s, k, `/api/v1/conversations/${c.id}`)).body.data
    expect(detail.context).toEqual({
      text: 'Koleksi batik terbaru!',
      username: 'tokomaju.id',
      permalink: 'https://www.instagram.com/p/XYZ/',
    })
    expect(
      detail.messages.map((m: { direction: string; status: string; author: string }) => m),
    ).toMatchObject([
      { direction: 'in', status: 'received', author: 'siti.pratama', text: 'Kak, ukuran M masih ada?' },
      { direction: 'out', status: 'published', author: 'tokomaju.id', text: 'Masih ready Kak 😊' },
    ])
  })

  it('a comment with NUL in its text and username is stored with U+FFFD, not refused or lost', async () => {
    const res = await post(
      comment({
        id: 'c-nul-1',
        text: 'Kak\u0000 ready?',
        from: { id: '5099', username: 'nul\u0000user' },
        media: { id: 'media-nul' },
      }),
    )
    expect(res.status).toBe(200)
    expect(await body(res)).toEqual({ data: { received: 1, ignored: 0 }, meta: {} })
    const c = (await conversations()).data.find(
      (x: { contact: { username: string } }) => x.contact.username === 'nul\uFFFDuser',
    )
    const detail = (await get(s, k, `/api/v1/conversations/${c.id}`)).body.data
    expect(detail.messages[0]).toMatchObject({ direction: 'in', text: 'Kak\uFFFD ready?' })
  })

  it.each([
    ['past year 9999 (epoch milliseconds)', 1e15],
    ['past year 9999 (text)', '+010000-01-01T00:00:00Z'],
    ['in year 0', '0000-06-01T00:00:00Z'],
    ['in year 9999 but 10000 at +07:00', '9999-12-31T20:00:00Z'],
    ['before year 0', -1e14],
  ])('a comment timestamped %s keeps the time it arrived, not a 500', async (_, timestamp) => {
    const id = `c-year-${String(timestamp)}`
    const res = await post(
      comment({ id, text: 'Kapan?', from: { id: '5098', username: 'year.test' }, timestamp }),
    )
    expect(res.status).toBe(200)
    expect(await body(res)).toEqual({ data: { received: 1, ignored: 0 }, meta: {} })
    const c = (await conversations()).data.find(
      (x: { contact: { username: string } }) => x.contact.username === 'year.test',
    )
    const detail = (await get(s, k, `/api/v1/conversations/${c.id}`)).body.data
    const times = detail.messages.map((m: { posted_at: string }) => m.posted_at)
    expect(times.every((t: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+07:00$/.test(t))).toBe(true)
    expect(times.every((t: string) => Number(t.slice(0, 4)) >= 2026 && Number(t.slice(0, 4)) <= 9999)).toBe(
      true,
    )
  })

  it('a comment dated long before its reply (more than 2^31 seconds) is listed, not a 500', async () => {
    // A workspace of its own: before the fix this conversation broke every listing of its workspace.
    const own = await workspace(s)
    const account = '17841400000000078'
    await s.run(Channels.upsert(own, account, 'lama.id'))
    const ownKey = await key(s, own)
    const old = '1900-01-01T00:00:00Z'
    expect(
      (
        await post(
          comment(
            { id: 'c-old', text: 'Halo', from: { id: '5097', username: 'old.test' }, timestamp: old },
            account,
          ),
        )
      ).status,
    ).toBe(200)
    const replyAt = '2026-03-02T03:00:00Z'
    const reply = comment(
      { id: 'c-old-r', text: 'Halo Kak', from: { id: account }, parent_id: 'c-old', timestamp: replyAt },
      account,
    )
    expect((await post(reply)).status).toBe(200)
    const frt = (Date.parse(replyAt) - Date.parse(old)) / 1000
    expect(frt).toBeGreaterThan(2 ** 31)
    const list = await get(s, ownKey, '/api/v1/conversations')
    expect(list.status).toBe(200)
    expect(list.body.data).toHaveLength(1)
    expect(list.body.data[0]).toMatchObject({ status: 'replied', first_response_secs: frt })
    const detail = await get(s, ownKey, `/api/v1/conversations/${list.body.data[0].id}`)
    expect(detail.status).toBe(200)
    expect(detail.body.data.first_response_secs).toBe(frt)
    const summary = await get(s, ownKey, '/api/v1/reports/summary?from=1900-01-01&to=1900-01-01')
    expect(summary.status).toBe(200)
    expect(summary.body.data).toMatchObject({
      conversations: 1,
      replied: 1,
      avg_frt_seconds: frt,
      median_frt_seconds: frt,
    })
  })

  it('a redelivered notification changes nothing', async () => {
    const before = await conversations()
    const again = comment({
      id: 'c-100',
      text: 'Kak, ukuran M masih ada?',
      from: { id: '5002', username: 'siti.pratama' },
    })
    expect((await post(again)).status).toBe(200)
    const after = await conversations()
    expect(after.meta.total).toBe(before.meta.total)
    const c = after.data.find((x: { contact: { username: string } }) => x.contact.username === 'siti.pratama')
    expect((await get(s, k, `/api/v1/conversations/${c.id}`)).body.data.messages).toHaveLength(2)
  })

  it('a mention opens a mention conversation', async () => {
    const payload = {
      object: 'instagram',
      entry: [
        {
          id: ACCOUNT,
          time: 1_772_424_000,
          changes: [
            {
              field: 'mentions',
              value: {
                media_id: 'm-900',
                comment_id: 'mc-900',
                text: 'Packing rapi dari @tokomaju.id 📦',
                from: { id: '6001', username: 'budi_s' },
              },
            },
          ],
        },
      ],
    }
    expect((await post(payload)).status).toBe(200)
    const c = (await conversations()).data.find(
      (x: { contact: { username: string } }) => x.contact.username === 'budi_s',
    )
    expect(c).toMatchObject({ type: 'mention', status: 'open', first_response_secs: null })
  })

  it('acknowledges and drops what it cannot place: unknown accounts, fields, shapes', async () => {
    const before = (await conversations()).meta.total
    const payload = {
      object: 'instagram',
      entry: [
        { id: 'unknown-account', changes: [{ field: 'comments', value: { id: 'u1', from: { id: '1' } } }] },
        {
          id: ACCOUNT,
          changes: [
            { field: 'story_insights', value: { media_id: '1' } },
            { field: 'comments', value: { text: 'no id' } },
          ],
        },
      ],
    }
    expect(await body(await post(payload))).toEqual({ data: { received: 0, ignored: 3 }, meta: {} })
    expect(await body(await post({ object: 'page', entry: [{ id: ACCOUNT, changes: [] }] }))).toEqual({
      data: { received: 0, ignored: 0 },
      meta: {},
    })
    expect((await conversations()).meta.total).toBe(before)
  })

  it('a new comment reopens a solved conversation', async () => {
    const [conversationExternal] = ['ig:comment:c-100']
    const report = await importRecords(s, ws, [
      {
        kind: 'status_change',
        id: 'solve-1',
        conversation: conversationExternal,
        status: 'solved',
        changed_at: '2026-03-02T11:00:00+07:00',
      },
    ])
    expect(report.errors).toEqual([])
    let c = (await conversations()).data.find(
      (x: { contact: { username: string } }) => x.contact.username === 'siti.pratama',
    )
    expect(c.status).toBe('solved')
    const more = comment(
      {
        id: 'c-102',
        text: 'Kak, sudah saya order ya',
        from: { id: '5002', username: 'siti.pratama' },
        parent_id: 'c-100',
      },
      ACCOUNT,
      1_772_420_400 + 7_200,
    )
    expect((await post(more)).status).toBe(200)
    c = (await conversations()).data.find(
      (x: { contact: { username: string } }) => x.contact.username === 'siti.pratama',
    )
    expect(c).toMatchObject({ status: 'open', reopened_count: 1, solved_at: null })
  })

  it('the webhook is not part of the key API: other methods get 405', async () => {
    const res = await s.fetch('/webhooks/instagram', { method: 'PUT' })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST')
  })
})
