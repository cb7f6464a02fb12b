import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { socketFor } from '../inbox/support'
import * as F from '../support/fixtures'
import { lacks } from '../support/systemPackages'
import { body, connectMailbox, type MailWorld, mailbox, rfc822, startMailWorld, until } from './support'

let w: MailWorld
let ws: F.Seeded
let owner: F.Session
beforeAll(async () => {
  // A long pause after a failed sign-in: only a sync request retries within the test.
  w = await startMailWorld({ EMAIL_BACKOFF_BASE_MS: '60000' })
  ws = await F.workspace(w.s, { plan: 'pro' })
  owner = await F.signIn(w.s, ws.ownerEmail)
})
afterAll(() => w?.stop())

const messagesOf = async (id: number) =>
  (await body(await w.s.fetch(`/v1/interactions/${id}/messages`, { headers: owner.headers() })))
    .data as Array<Record<string, any>>

const conversationsOf = (channelId: number) =>
  w.s.run(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) =>
        sql<{
          id: number
          subject: string | null
        }>`SELECT id, subject FROM conversations WHERE channel_id = ${channelId} ORDER BY id`,
    ),
  )

describe.skipIf(lacks('dovecot-imapd'))('mailbox sessions', () => {
  it('imports the history window, then new mail arrives through IDLE, threaded, as message.created', async () => {
    const box = mailbox(w)
    const other = await w.dovecot.client(box)
    await other.append(
      'INBOX',
      rfc822(
        {
          From: 'Rina <rina@customer.example>',
          To: box.address,
          Subject: 'Order 42',
          'Message-ID': '<order42@customer.example>',
          Date: new Date().toUTCString(),
        },
        'Where is my order?',
      ),
    )
    const inbox = await socketFor(w.s, owner, `ws:${ws.workspaceId}`)
    const ch = await connectMailbox(w, owner, box)
    const created = await inbox.c.next(
      (f) =>
        f.event === 'inbox.changed' &&
        (f.data as any).reason === 'conversation.created' &&
        (f.data as any).channel_id === ch.id,
      15_000,
    )
    const convId = (created.data as { interaction_id: number }).interaction_id
    const first = await messagesOf(convId)
    expect(first).toHaveLength(1)
    expect(first[0]).toMatchObject({
      direction: 'in',
      body: 'Where is my order?',
      email: { subject: 'Order 42' },
    })
    expect(first[0].sender.name).toBe('Rina')
    // Active once the first read is done.
    await until(
      async () =>
        (await body(await w.s.fetch(`/v1/channels/${ch.id}`, { headers: owner.headers() }))).data.status ===
        'active',
    )

    // A reply from the customer, appended by another mail program: arrives within seconds by IDLE.
    const conv = await socketFor(w.s, owner, `conv:${convId}`)
    const t0 = Date.now()
    await other.append(
      'INBOX',
      rfc822(
        {
          From: 'Rina <rina@customer.example>',
          To: box.address,
          Subject: 'Re: Order 42',
          'Message-ID': '<order42-2@customer.example>',
          'In-Reply-To': '<order42@customer.example>',
          References: '<order42@customer.example>',
          Date: new Date().toUTCString(),
        },
        'Any news?',
        '<p>Any <b>news</b>?<script>alert(1)</script><img src="https://tracker.example/p.gif"></p>',
      ),
    )
    const frame = await conv.c.next((f) => f.event === 'message.created', 10_000)
    expect(Date.now() - t0).toBeLessThan(10_000)
    expect(frame.data).toMatchObject({ interaction_id: convId, direction: 'in', body: 'Any news?' })
    const html = (frame.data as any).email.html as string
    expect(html).toContain('<b>news</b>')
    expect(html).not.toContain('script')

    // A new thread from someone else is a new conversation with its subject.
    await other.append(
      'INBOX',
      rfc822(
        {
          From: 'dodi@other.example',
          To: box.address,
          Subject: 'Invoice',
          'Message-ID': '<inv1@other.example>',
        },
        'Please send the invoice',
      ),
    )
    const convs = await until(async () => {
      const list = await conversationsOf(ch.id)
      return list.length === 2 ? list : null
    })
    expect(convs.map((c) => c.subject)).toEqual(['Order 42', 'Invoice'])
    expect(await messagesOf(convId)).toHaveLength(2)
    inbox.c.close()
    conv.c.close()
    await other.logout()
  })

  it('a mail with NUL in its sender, subject and text arrives with U+FFFD in their place, not lost', async () => {
    const box = mailbox(w, 'nul')
    const other = await w.dovecot.client(box)
    // Encoded words and quoted-printable carry the NULs (an IMAP literal may hold none itself).
    await other.append(
      'INBOX',
      [
        `From: =?utf-8?Q?Ri=00na?= <rina.nul@customer.example>`,
        `To: ${box.address}`,
        'Subject: =?utf-8?Q?Order=0042?=',
        'Message-ID: <nul1@customer.example>',
        `Date: ${new Date().toUTCString()}`,
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: quoted-printable',
        '',
        'Where=00 is my order?',
        '',
      ].join('\r\n'),
    )
    const ch = await connectMailbox(w, owner, box)
    const [conv] = await until(async () => {
      const list = await conversationsOf(ch.id)
      return list.length === 1 ? list : null
    })
    expect(conv!.subject).toBe('Order\uFFFD42')
    const [m] = await until(async () => {
      const list = await messagesOf(conv!.id)
      return list.length === 1 ? list : null
    })
    expect(m!.body).toBe('Where\uFFFD is my order?')
    expect(m!.sender.name).toBe('Ri\uFFFDna')
    await other.logout()
  })

  it('reads chosen folders, skips ignored senders, imports Sent mail with read_sent, stores attachments', async () => {
    const box = mailbox(w)
    const other = await w.dovecot.client(box)
    const ch = await connectMailbox(w, owner, box, {
      folders: ['Projects'],
      read_sent: true,
      ignore: ['@noreply.example'],
      history_days: 0,
    })
    await until(
      async () =>
        (await body(await w.s.fetch(`/v1/channels/${ch.id}`, { headers: owner.headers() }))).data.status ===
        'active',
    )
    await other.append(
      'INBOX',
      rfc822(
        {
          From: 'bot@noreply.example',
          To: box.address,
          Subject: 'Newsletter',
          'Message-ID': '<n1@noreply.example>',
        },
        'Buy',
      ),
    )
    const withFile = [
      `From: Tono <tono@client.example>`,
      `To: ${box.address}`,
      'Subject: Plans',
      'Message-ID: <plans1@client.example>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="m1"',
      '',
      '--m1',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'See attached',
      '--m1',
      'Content-Type: application/pdf; name="plan.pdf"',
      'Content-Disposition: attachment; filename="plan.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('%PDF-1.4 plan').toString('base64'),
      '--m1--',
      '',
    ].join('\r\n')
    await other.append('Projects', withFile)
    await other.append(
      'Sent',
      rfc822(
        {
          From: box.address,
          To: 'tono@client.example',
          Subject: 'Re: Plans',
          'Message-ID': '<sent1@mine.example>',
          'In-Reply-To': '<plans1@client.example>',
        },
        'Thanks, got it',
      ),
    )
    // Folders other than the inbox are read on a sync request (and every minute).
    await w.s.fetch(`/v1/channels/${ch.id}/sync`, F.json({}, owner.headers()))
    const convs = await until(async () => {
      const list = await conversationsOf(ch.id)
      if (list.length !== 1) return null
      const msgs = await messagesOf(list[0]!.id)
      return msgs.length === 2 ? { list, msgs } : null
    }, 15_000)
    expect(convs.list[0]!.subject).toBe('Plans')
    const [incoming, sent] = convs.msgs
    expect(incoming).toMatchObject({ direction: 'in', body: 'See attached' })
    expect(incoming!.email.attachments).toEqual([
      expect.objectContaining({ index: 0, name: 'plan.pdf', mime: 'application/pdf' }),
    ])
    const file = await w.s.fetch(incoming!.email.attachments[0].url, { headers: owner.headers() })
    expect(file.status).toBe(200)
    expect(await file.text()).toBe('%PDF-1.4 plan')
    expect(sent).toMatchObject({ direction: 'out', body: 'Thanks, got it' })
    // Anyone can write the mailbox's own address in From: outside the Sent folder such a mail is
    // not filed as the team's reply (a customer knows the thread's ids and could put words in
    // the team's mouth); it is kept as it came, an incoming mail, and not answered automatically.
    await other.append(
      'INBOX',
      rfc822(
        {
          From: `Support <${box.address}>`,
          To: 'tono@client.example',
          Cc: box.address,
          Subject: 'Re: Plans',
          'Message-ID': '<spoof1@client.example>',
          'In-Reply-To': '<plans1@client.example>',
        },
        'As agreed, a full refund',
      ),
    )
    const spoof = await until(async () => {
      const msgs = await messagesOf(convs.list[0]!.id)
      return msgs.find((m) => m.body === 'As agreed, a full refund')
    }, 15_000)
    expect(spoof).toMatchObject({ direction: 'in' })
    expect(await conversationsOf(ch.id)).toHaveLength(1)
    await other.logout()
  })

  it('a wrong password pauses the mailbox with a status and channel.updated; sync skips the pause', async () => {
    const box = mailbox(w)
    const ch = await connectMailbox(w, owner, box)
    const events = await socketFor(w.s, owner, `ws:${ws.workspaceId}`)
    await until(
      async () =>
        (await body(await w.s.fetch(`/v1/channels/${ch.id}`, { headers: owner.headers() }))).data.status ===
        'active',
    )
    // The owner changes the password at the provider; the session signs in again and is refused.
    await w.dovecot.setPassword(box.address, 'changed-elsewhere')
    w.smtp.accounts.set(box.address, 'changed-elsewhere')
    // Forcing a new sign-in: the running session reconnects only after its connection drops.
    await w.s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`UPDATE channel_email SET version = version + 1 WHERE channel_id = ${ch.id}`,
      ),
    )
    const updated = await events.c.next(
      (f) =>
        f.event === 'channel.updated' &&
        (f.data as any).channel_id === ch.id &&
        (f.data as any).status === 'auth_failed',
      15_000,
    )
    expect(updated.data).toMatchObject({ status: 'auth_failed' })
    const state = async () =>
      (
        await w.s.run(
          Effect.flatMap(
            SqlClient.SqlClient,
            (sql) =>
              sql<{
                failures: number
                paused_until: Date | null
              }>`SELECT failures, paused_until FROM channel_email WHERE channel_id = ${ch.id}`,
          ),
        )
      )[0]!
    const paused = await state()
    expect(paused.failures).toBe(1)
    expect(paused.paused_until!.getTime()).toBeGreaterThan(Date.now() + 30_000)
    const detail = await body(await w.s.fetch(`/v1/channels/${ch.id}`, { headers: owner.headers() }))
    expect(detail.data.status).toBe('auth_failed')
    // A sync request skips the minute-long pause: a second attempt is made at once.
    const sync = await body(await w.s.fetch(`/v1/channels/${ch.id}/sync`, F.json({}, owner.headers())))
    expect(sync.data.sync).toMatchObject({ requested: true, last_error: 'auth', failures: 1 })
    expect(sync.data.channel).toMatchObject({ id: ch.id, status: 'auth_failed' })
    await until(async () => (await state()).failures >= 2, 5_000)
    // The right password again: PATCH re-tests it, and the mailbox is active again.
    const fixed = await w.s.fetch(`/v1/channels/${ch.id}/email`, {
      ...F.json({ password: 'changed-elsewhere' }, owner.headers()),
      method: 'PATCH',
    })
    expect(fixed.status).toBe(200)
    await events.c.next(
      (f) =>
        f.event === 'channel.updated' &&
        (f.data as any).channel_id === ch.id &&
        (f.data as any).status === 'active',
      15_000,
    )
    events.c.close()
  })
})
