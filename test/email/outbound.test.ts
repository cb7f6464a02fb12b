import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { contact, form, socketFor } from '../inbox/support'
import * as F from '../support/fixtures'
import { lacks } from '../support/systemPackages'
import { body, connectMailbox, type MailWorld, mailbox, rfc822, startMailWorld, until } from './support'

let w: MailWorld
let ws: F.Seeded
let owner: F.Session
beforeAll(async () => {
  w = await startMailWorld()
  ws = await F.workspace(w.s, { plan: 'pro' })
  owner = await F.signIn(w.s, ws.ownerEmail)
})
afterAll(() => w?.stop())

const messagesOf = async (id: number) =>
  (await body(await w.s.fetch(`/v1/interactions/${id}/messages`, { headers: owner.headers() })))
    .data as Array<Record<string, any>>

/** A connected mailbox with one received mail; answers the channel and the conversation id. */
const withReceivedMail = async (extra: Record<string, unknown>, html?: string) => {
  const box = mailbox(w)
  const other = await w.dovecot.client(box)
  await other.append(
    'INBOX',
    rfc822(
      {
        From: 'Rina <rina@customer.example>',
        To: `${box.address}, team@customer.example`,
        Cc: 'colleague@customer.example',
        Subject: 'Order 42',
        'Message-ID': '<order42@customer.example>',
      },
      'Where is my order?',
      html,
    ),
  )
  const inbox = await socketFor(w.s, owner, `ws:${ws.workspaceId}`)
  const ch = await connectMailbox(w, owner, box, extra)
  const created = await inbox.c.next(
    (f) =>
      f.event === 'inbox.changed' &&
      (f.data as any).reason === 'conversation.created' &&
      (f.data as any).channel_id === ch.id,
    15_000,
  )
  inbox.c.close()
  return { box, other, ch, convId: (created.data as { interaction_id: number }).interaction_id }
}

describe.skipIf(lacks('dovecot-imapd'))('sending mail', () => {
  it('a reply goes out threaded with Re:, quote, signature, sender with agent, cc, reply all and files; saved to Sent', async () => {
    const { box, other, convId } = await withReceivedMail({
      sender_name: 'Acme Support',
      sender_with_agent: true,
      signature_html: '<p>Regards, <b>Acme</b></p><script>x()</script>',
    })
    const res = await w.s.fetch(`/v1/interactions/${convId}/messages`, {
      method: 'POST',
      headers: owner.headers(),
      body: form(
        { html: '<p>Hello <b>Rina</b>, it ships today.</p>', cc: 'boss@customer.example', reply_all: 'true' },
        [
          {
            field: 'files',
            name: 'invoice.pdf',
            type: 'application/pdf',
            bytes: new TextEncoder().encode('%PDF-1.4 invoice'),
          },
        ],
      ),
    })
    const sent = await body(res)
    expect(res.status, JSON.stringify(sent)).toBe(201)
    const mail = await w.smtp.waitFor((m) => m.parsed.subject === 'Re: Order 42')
    const p = mail.parsed
    expect(mail.to).toEqual(
      expect.arrayContaining([
        'rina@customer.example',
        'boss@customer.example',
        'colleague@customer.example',
        'team@customer.example',
      ]),
    )
    expect(mail.to).not.toContain(box.address)
    expect(p.to && !Array.isArray(p.to) ? p.to.value[0]!.address : null).toBe('rina@customer.example')
    expect(p.inReplyTo).toBe('<order42@customer.example>')
    expect(p.references).toContain('<order42@customer.example>')
    expect(p.from!.value[0]!.address).toBe(box.address)
    expect(p.from!.value[0]!.name).toMatch(/\(Acme Support\)$/)
    expect(p.html).toContain('<b>Rina</b>')
    expect(p.html).toContain('Regards, <b>Acme</b>')
    expect(p.html).not.toContain('x()')
    expect(p.html).toContain('<blockquote')
    expect(p.html).toContain('Where is my order?')
    expect(p.text).toContain('> Where is my order?')
    expect(p.attachments.map((a) => a.filename)).toEqual(['invoice.pdf'])
    expect(p.attachments[0]!.content.toString()).toBe('%PDF-1.4 invoice')
    expect(mail.user).toBe(box.address)

    const stored = await until(async () => {
      const list = await messagesOf(convId)
      const out = list.find((m) => m.direction === 'out')
      return out?.status === 'sent' ? out : null
    })
    expect(stored.email.subject).toBe('Re: Order 42')

    // The same mail in the Sent folder.
    await other.mailboxOpen('Sent')
    const found = await other.search({ header: { 'message-id': p.messageId! } }, { uid: true })
    expect(found).toHaveLength(1)

    // The customer answers the reply: it threads into the same conversation through our Message-ID.
    await other.append(
      'INBOX',
      rfc822(
        {
          From: 'rina@customer.example',
          To: box.address,
          Subject: 'Re: Re: Order 42',
          'Message-ID': '<order42-3@customer.example>',
          'In-Reply-To': p.messageId!,
        },
        'Thanks!',
      ),
    )
    await until(async () => (await messagesOf(convId)).some((m) => m.body === 'Thanks!'))
    await other.logout()
  })

  it('a new e-mail conversation goes out with its subject; a refused recipient fails the message with the reason', async () => {
    const box = mailbox(w)
    const ch = await connectMailbox(w, owner, box)
    const c = await contact(w.s, ws, { name: 'Dodi', email: 'dodi@client.example' })
    const res = await w.s.fetch(
      '/v1/interactions',
      F.json(
        { contact_id: c.id, channel_id: ch.id, subject: 'Your quote', text: 'Here is the quote.' },
        owner.headers(),
      ),
    )
    expect(res.status, JSON.stringify(await res.clone().json())).toBe(201)
    const mail = await w.smtp.waitFor((m) => m.parsed.subject === 'Your quote')
    expect(mail.to).toEqual(['dodi@client.example'])
    expect(mail.parsed.inReplyTo).toBeUndefined()
    expect(mail.parsed.text).toContain('Here is the quote.')

    const bad = await contact(w.s, ws, { name: 'Nobody', email: 'reject-me@client.example' })
    const r2 = await body(
      await w.s.fetch(
        '/v1/interactions',
        F.json({ contact_id: bad.id, channel_id: ch.id, subject: 'Hello', text: 'Hi' }, owner.headers()),
      ),
    )
    const convId = (r2.data.id ?? r2.data.interaction?.id) as number
    const failed = await until(async () => {
      const out = (await messagesOf(convId)).find((m) => m.direction === 'out')
      return out?.status === 'failed' ? out : null
    })
    expect(failed.error).toMatch(/550|No such user/)
  })

  it('GET /messages/{id}/email: sanitised, script-free HTML with remote images blocked unless ?images=1', async () => {
    const { convId, other } = await withReceivedMail(
      {},
      '<p onclick="steal()">Hi <a href="javascript:alert(1)">x</a><script>alert(1)</script><img src="https://tracker.example/p.gif"></p>',
    )
    await other.logout()
    const [m] = await messagesOf(convId)
    const res = await w.s.fetch(`/v1/messages/${m!.id}/email`, { headers: owner.headers() })
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(html).not.toMatch(/<script|onclick|javascript:/i)
    expect(html).not.toMatch(/\ssrc="https:\/\/tracker/)
    expect(html).toContain('data-blocked-src="https://tracker.example/p.gif"')
    const withImages = await (
      await w.s.fetch(`/v1/messages/${m!.id}/email?images=1`, { headers: owner.headers() })
    ).text()
    expect(withImages).toMatch(/\ssrc="https:\/\/tracker\.example\/p\.gif"/)
    expect(withImages).not.toMatch(/<script/i)
  })
})
