import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { lacks } from '../support/systemPackages'
import { body, connectMailbox, type MailWorld, mailbox, rfc822, startMailWorld, until } from './support'

/** Spec 1 §4.4 `auto_reply` on an e-mail channel: fresh mail is greeted; automatic mail never is. */
let w: MailWorld
let ws: F.Seeded
let owner: F.Session
beforeAll(async () => {
  w = await startMailWorld()
  ws = await F.workspace(w.s, { plan: 'pro' })
  owner = await F.signIn(w.s, ws.ownerEmail)
})
afterAll(() => w?.stop())

const outbound = async (channelId: number) => {
  const list = await body(await w.s.fetch('/v1/interactions', { headers: owner.headers() }))
  const ids = list.data
    .filter((c: any) => c.channel_id === channelId || c.channel?.id === channelId)
    .map((c: any) => c.id)
  const all: string[] = []
  for (const id of ids) {
    const m = await body(await w.s.fetch(`/v1/interactions/${id}/messages`, { headers: owner.headers() }))
    all.push(...m.data.filter((x: any) => x.direction === 'out').map((x: any) => x.body))
  }
  return all
}

describe.skipIf(lacks('dovecot-imapd'))('automatic replies by e-mail', () => {
  it('greets fresh mail with a threaded reply, and leaves automatic mail unanswered', async () => {
    const box = mailbox(w, 'auto')
    const ch = await connectMailbox(w, owner, box, { history_days: 0 })
    const res = await w.s.fetch(`/v1/channels/${ch.id}/email`, {
      ...F.json(
        { auto_reply: { greeting_on: true, greeting: 'Thanks, we will answer soon.' } },
        owner.headers(),
      ),
      method: 'PATCH',
    })
    expect(res.status).toBe(200)
    // Mail that arrives once the mailbox is being watched is new mail, not history.
    await until(
      async () =>
        (await body(await w.s.fetch(`/v1/channels/${ch.id}`, { headers: owner.headers() }))).data.status ===
        'active',
    )
    await new Promise((r) => setTimeout(r, 500))
    const other = await w.dovecot.client(box)
    const now = new Date().toUTCString()
    await other.append(
      'INBOX',
      rfc822(
        {
          From: 'Bot <noreply@robot.example>',
          To: box.address,
          Subject: 'Out of office',
          Date: now,
          'Message-ID': '<ooo@robot.example>',
          'Auto-Submitted': 'auto-replied',
        },
        'I am away.',
      ),
    )
    await other.append(
      'INBOX',
      rfc822(
        {
          From: 'Rina <rina@customer.example>',
          To: box.address,
          Subject: 'Hello',
          Date: now,
          'Message-ID': '<hello@customer.example>',
        },
        'Is anyone there?',
      ),
    )
    const mail = await w.smtp.waitFor((m) => m.parsed.subject === 'Re: Hello')
    expect(mail.parsed.text).toContain('Thanks, we will answer soon.')
    expect(mail.parsed.inReplyTo).toBe('<hello@customer.example>')
    // Marked automatic (RFC 3834), so the customer's own autoresponder leaves it unanswered.
    expect(mail.parsed.headers.get('auto-submitted')).toBe('auto-replied')
    await until(async () => (await outbound(ch.id)).length === 1)
    expect(await outbound(ch.id)).toHaveLength(1)
    expect(w.smtp.received.some((m) => m.parsed.subject === 'Re: Out of office')).toBe(false)
  })
})
