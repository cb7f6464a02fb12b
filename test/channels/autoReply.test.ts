import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { receiver } from './receiver'

/** Spec 1 §4.4 `auto_reply`: greeting on a new conversation, away message outside business hours. */
let s: TestServer
let w: F.Seeded
let owner: F.Session
beforeAll(async () => {
  s = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_BASE_MS: '50' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

const body = async (res: Response) => (await res.json()) as Record<string, any>
// Open all day: '24:00' closes at midnight, so no minute of the day counts as closed.
const week = (open: boolean) => ({
  enabled: true,
  days: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open, from: '00:00', to: '24:00' })),
})
const autoReply = {
  greeting_on: true,
  greeting: 'Halo! We got your message.',
  away_on: true,
  away: 'We are closed now.',
}

/** An API channel with these common settings (set by PATCH, as in the app). */
const channel = async (name: string, settings: Record<string, unknown>, webhookUrl?: string) => {
  const created = await s.fetch(
    '/v1/channels/api',
    F.json({ name, ...(webhookUrl ? { webhook_url: webhookUrl } : {}) }, owner.headers()),
  )
  expect(created.status).toBe(201)
  const ch = (await body(created)).data
  const res = await s.fetch(`/v1/channels/${ch.id}`, {
    ...F.json(settings, owner.headers()),
    method: 'PATCH',
  })
  expect(res.status).toBe(200)
  return ch
}

const outbound = async (interactionId: number) => {
  const list = await body(
    await s.fetch(`/v1/interactions/${interactionId}/messages`, { headers: owner.headers() }),
  )
  return list.data.filter((m: any) => m.direction === 'out').map((m: any) => m.body)
}

describe('automatic replies', () => {
  it('greets a new conversation once and sends the away message outside hours once, both out through the webhook', async () => {
    let secret = ''
    const rx = await receiver(() => secret)
    try {
      const ch = await channel('Shop', { auto_reply: autoReply, hours: week(false) }, rx.url)
      secret = ch.credentials.webhook_secret
      const post = (id: string) =>
        s.fetch(
          '/v1/channel-api/messages',
          F.json(
            { conversation_id: 'auto-1', message: { id, text: 'anyone there?' } },
            F.bearer(ch.credentials.key),
          ),
        )
      const first = await body(await post('m1'))
      expect(await outbound(first.data.interaction_id)).toEqual([autoReply.greeting, autoReply.away])
      await rx.until((g) => g.filter((x) => x.json.event === 'message.created').length >= 2)
      const sent = rx.got
        .filter((x) => x.json.event === 'message.created')
        .map((x) => x.json.data.message.body)
      expect(sent).toEqual([autoReply.greeting, autoReply.away])

      // The same conversation again: no second greeting, no second away message.
      await post('m2')
      expect(await outbound(first.data.interaction_id)).toEqual([autoReply.greeting, autoReply.away])
    } finally {
      await rx.close()
    }
  })

  it('sends no away message inside business hours, and nothing when the replies are off', async () => {
    const open = { data: await channel('Open shop', { auto_reply: autoReply, hours: week(true) }) }
    const r1 = await body(
      await s.fetch(
        '/v1/channel-api/messages',
        F.json(
          { conversation_id: 'open-1', message: { id: 'o1', text: 'hi' } },
          F.bearer(open.data.credentials.key),
        ),
      ),
    )
    expect(await outbound(r1.data.interaction_id)).toEqual([autoReply.greeting])

    const quiet = { data: await channel('Quiet shop', { hours: week(false) }) }
    const r2 = await body(
      await s.fetch(
        '/v1/channel-api/messages',
        F.json(
          { conversation_id: 'quiet-1', message: { id: 'q1', text: 'hi' } },
          F.bearer(quiet.data.credentials.key),
        ),
      ),
    )
    expect(await outbound(r2.data.interaction_id)).toEqual([])
  })
})

describe('automatic replies changed by two managers at once', () => {
  // Found by the review of session 37: each PATCH merged its keys over the row it had read, so
  // of changes to different keys made at once only the last one written stayed.
  it('keeps every key each change named', async () => {
    const ch = await channel('Busy shop', {})
    const patch = (auto_reply: Record<string, unknown>) =>
      s.fetch(`/v1/channels/${ch.id}`, { ...F.json({ auto_reply }, owner.headers()), method: 'PATCH' })
    for (let round = 0; round < 5; round++) {
      const reset = { greeting_on: false, greeting: '', away_on: false, away: '' }
      expect((await patch(reset)).status).toBe(200)
      const changes = [
        { greeting_on: true },
        { greeting: `Hello ${round}` },
        { away_on: true },
        { away: `Closed ${round}` },
      ]
      const answers = await Promise.all(changes.map(patch))
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200])
      const got = await body(await s.fetch(`/v1/channels/${ch.id}`, { headers: owner.headers() }))
      expect(got.data.auto_reply).toEqual({
        greeting_on: true,
        greeting: `Hello ${round}`,
        away_on: true,
        away: `Closed ${round}`,
      })
    }
  })
})
