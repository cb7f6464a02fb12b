import * as crypto from 'node:crypto'
import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { lacks } from '../support/systemPackages'
import { connectMailbox, type MailWorld, mailbox, rfc822, startMailWorld, until } from './support'

/**
 * A stranger's header values are bounded before they reach indexed columns: one mail whose insert
 * fails is read again on every pass, and every mail after it in the folder was never imported.
 */
let w: MailWorld
let ws: F.Seeded
let owner: F.Session
beforeAll(async () => {
  w = await startMailWorld()
  ws = await F.workspace(w.s, { plan: 'pro' })
  owner = await F.signIn(w.s, ws.ownerEmail)
})
afterAll(() => w?.stop())

const conversationsOf = (channelId: number) =>
  w.s.run(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<{
        subject: string | null
        name: string
      }>`SELECT c.subject, k.name FROM conversations c JOIN contacts k ON k.id = c.contact_id
         WHERE c.channel_id = ${channelId} ORDER BY c.id`,
    ),
  )

/**
 * A customer's mail appended after the hostile one, then the mailbox connected: the conversations
 * once the customer's is among them (the mailbox went past the hostile mail).
 */
const customerAfter = async (
  other: Awaited<ReturnType<MailWorld['dovecot']['client']>>,
  box: ReturnType<typeof mailbox>,
) => {
  await other.append(
    'INBOX',
    rfc822(
      {
        From: 'Rina <rina@customer.example>',
        To: box.address,
        Subject: 'Order 42',
        'Message-ID': `<o${noise(8)}@customer.example>`,
      },
      'Where is my order?',
    ),
  )
  const ch = await connectMailbox(w, owner, box)
  return until(async () => {
    const l = await conversationsOf(ch.id)
    return l.some((c) => c.subject === 'Order 42') ? l : null
  }, 15_000)
}

/** Random text PostgreSQL cannot compress below a btree entry's limit (~2.7 kB). */
const noise = (n: number) => crypto.randomBytes(n).toString('base64').replace(/[+/=]/g, 'x').slice(0, n)

describe.skipIf(lacks('dovecot-imapd'))('mail a stranger shapes', () => {
  const longName = noise(6000)
  for (const [what, headers, hostileKept] of [
    ['an oversized sender name', { From: `"${longName}" <long.name@stranger.example>` }, true],
    [
      'an oversized Message-ID',
      { From: 'mid@stranger.example', 'Message-ID': `<${noise(6000)}@stranger.example>` },
      true,
    ],
    // Year -10000, which JavaScript parses: the conversation starts now instead.
    [
      'a date PostgreSQL cannot hold',
      { From: 'date@stranger.example', Date: '-010000-01-01T00:00:00Z' },
      true,
    ],
    // Longer than any address can be (254 octets): no one to answer, so not imported.
    ['an oversized address', { From: `${noise(3000)}@stranger.example` }, false],
  ] as const) {
    it(`a mail with ${what} does not stop the mailbox`, async () => {
      const box = mailbox(w)
      const other = await w.dovecot.client(box)
      await other.append(
        'INBOX',
        rfc822(
          {
            To: box.address,
            Subject: 'Hostile',
            'Message-ID': `<h${noise(8)}@stranger.example>`,
            ...headers,
          },
          'x',
        ),
      )
      const list = await customerAfter(other, box)
      expect(list.map((c) => c.subject)).toEqual(hostileKept ? ['Hostile', 'Order 42'] : ['Order 42'])
      if (what === 'an oversized sender name') expect(list[0]!.name).toBe(longName.slice(0, 200))
      await other.logout()
    })
  }

  it('a mail the parser refuses (over 1000 parts) arrives with its sender and subject; the mailbox goes on', async () => {
    const box = mailbox(w)
    const other = await w.dovecot.client(box)
    const parts = Array.from(
      { length: 1001 },
      (_, i) => `--p\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`,
    )
    await other.append(
      'INBOX',
      [
        'From: Many <many@stranger.example>',
        `To: ${box.address}`,
        'Subject: Many parts',
        `Message-ID: <m${noise(8)}@stranger.example>`,
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="p"',
        '',
        `${parts.join('')}--p--`,
        '',
      ].join('\r\n'),
    )
    const list = await customerAfter(other, box)
    expect(list).toEqual([
      { subject: 'Many parts', name: 'Many' },
      { subject: 'Order 42', name: 'Rina' },
    ])
    await other.logout()
  })
})

describe.skipIf(lacks('dovecot-imapd'))('a mail that never imports', () => {
  it('is passed over after repeated failures with the database answering; the mail after it arrives', async () => {
    // A fault of this one mail's own that no bound above foresaw: the database refuses its
    // conversation, every time.
    const exec = (text: string) => w.s.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text)))
    await exec(`CREATE FUNCTION kotak_t_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.subject = 'Poison' THEN RAISE EXCEPTION 'refused for the test'; END IF; RETURN NEW; END $$`)
    await exec(
      'CREATE TRIGGER kotak_t_poison BEFORE INSERT ON conversations FOR EACH ROW EXECUTE FUNCTION kotak_t_poison()',
    )
    try {
      const box = mailbox(w)
      const other = await w.dovecot.client(box)
      for (const [subject, text] of [
        ['Poison', 'x'],
        ['Order 43', 'Where is my order?'],
      ] as const)
        await other.append(
          'INBOX',
          rfc822(
            {
              From: 'Rina <rina@customer.example>',
              To: box.address,
              Subject: subject,
              'Message-ID': `<p${noise(8)}@customer.example>`,
            },
            text,
          ),
        )
      const ch = await connectMailbox(w, owner, box)
      const list = await until(async () => {
        const l = await conversationsOf(ch.id)
        return l.some((c) => c.subject === 'Order 43') ? l : null
      }, 30_000)
      expect(list.map((c) => c.subject)).toEqual(['Order 43'])
      // Still on the mail server, where it can be read.
      await other.mailboxOpen('INBOX')
      expect((await other.search({ subject: 'Poison' }, { uid: true })) || []).toHaveLength(1)
      await other.logout()
    } finally {
      await exec('DROP TRIGGER kotak_t_poison ON conversations')
      await exec('DROP FUNCTION kotak_t_poison()')
    }
  }, 60_000)
})

describe.skipIf(lacks('dovecot-imapd'))('threading a stranger cannot forge', () => {
  it("a mail without Message-ID gets an id no one can guess: a stranger's reply to it starts its own conversation", async () => {
    const box = mailbox(w)
    const other = await w.dovecot.client(box)
    // A customer's mail without a Message-ID (a web form, a device), then the stranger's own one.
    const first = await other.append(
      'INBOX',
      rfc822(
        { From: 'Rina <rina@customer.example>', To: box.address, Subject: 'Private matter' },
        'My account',
      ),
    )
    if (!first) throw new Error('the customer mail was not appended')
    const ch = await connectMailbox(w, owner, box)
    await until(async () => (await conversationsOf(ch.id)).length === 1, 15_000)
    // The id it was filed under used to be the channel, UIDVALIDITY and UID: all guessable (the
    // stranger learns the first two from the References of any reply to a mail of their own).
    const guess = `<${ch.id}.${first.uidValidity}.${first.uid}@kotak.invalid>`
    await other.append(
      'INBOX',
      rfc822(
        {
          From: 'Eve <eve@stranger.example>',
          To: box.address,
          Subject: 'Re: Private matter',
          'Message-ID': `<e${noise(8)}@stranger.example>`,
          'In-Reply-To': guess,
          References: guess,
        },
        'Please send the details to me instead.',
      ),
    )
    const filed = await until(async () => {
      const rows = await w.s.run(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ subject: string | null }>`
            SELECT c.subject FROM messages m JOIN conversations c ON c.id = m.conversation_id
            WHERE c.channel_id = ${ch.id} AND m.body LIKE 'Please send%'`,
        ),
      )
      return rows[0] ?? null
    }, 15_000)
    expect(filed.subject).toBe('Re: Private matter')
    expect(await conversationsOf(ch.id)).toEqual([
      { subject: 'Private matter', name: 'Rina' },
      { subject: 'Re: Private matter', name: 'Eve' },
    ])
    await other.logout()
  })
})

describe.skipIf(lacks('dovecot-imapd'))('a mail with huge HTML', () => {
  it('keeps the mail with its HTML clipped in the message and the whole HTML as a file', async () => {
    const box = mailbox(w)
    const other = await w.dovecot.client(box)
    // 20 MB of HTML: a newsletter's table, or a stranger's.
    const row = (i: number) =>
      `<tr><td style="color:#333">Row ${i}</td><td><a href="https://shop.example/p/${i}">Item ${i}</a></td></tr>\r\n`
    const rows: string[] = []
    let size = 0
    for (let i = 0; size < 20_000_000; i++) {
      rows.push(row(i))
      size += rows[i]!.length
    }
    const html = `<html><body><p>Our offers</p><table>\r\n${rows.join('')}</table></body></html>`
    await other.append(
      'INBOX',
      rfc822(
        {
          From: 'Shop <news@shop.example>',
          To: box.address,
          Subject: 'Huge newsletter',
          'Message-ID': `<n${noise(8)}@shop.example>`,
        },
        'Our offers',
        html,
      ),
    )
    const ch = await connectMailbox(w, owner, box)
    const conversation = await until(async () => {
      const rows = await w.s.run(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ id: number }>`
            SELECT c.id FROM conversations c JOIN messages m ON m.conversation_id = c.id
            WHERE c.channel_id = ${ch.id}`,
        ),
      )
      return rows[0] ?? null
    }, 90_000)
    const res = await w.s.fetch(`/v1/interactions/${conversation.id}/messages`, {
      headers: owner.headers(),
    })
    expect(res.status).toBe(200)
    const [message] = ((await res.json()) as { data: Array<Record<string, any>> }).data
    expect(message!.body).toBe('Our offers')
    const kept = message!.email.html as string
    // What a page of messages and every agent's socket carry: the mail's start, no more than 256 KiB.
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(256 * 1024)
    expect(kept).toContain('<p>Our offers</p>')
    expect(kept).toContain('>Item 0</a>')
    expect(kept).not.toContain(`>Item ${rows.length - 1}</a>`)
    expect(kept.endsWith('</table>')).toBe(true)
    // The whole HTML, as the customer sent it, is a file beside the mail's own attachments.
    expect(message!.email.attachments).toEqual([
      {
        index: 0,
        name: 'message.html',
        mime: 'text/html',
        size: expect.any(Number),
        url: `/v1/messages/${message!.id}/attachments/0`,
      },
    ])
    const file = await w.s.fetch(message!.email.attachments[0].url, { headers: owner.headers() })
    expect(file.status).toBe(200)
    expect(file.headers.get('content-disposition')).toMatch(/^attachment;/)
    const whole = await file.text()
    // As mailparser decoded it (line ends as \n).
    expect(whole.length).toBeGreaterThan(19_500_000)
    expect(whole.startsWith('<html><body><p>Our offers</p><table>')).toBe(true)
    expect(whole).toContain(`>Item ${rows.length - 1}</a>`)
    await other.logout()
  }, 150_000)
})

/** One base64 attachment of a `multipart/mixed; boundary="m"` mail. */
const attachmentPart = (name: string, type: string, bytes: Buffer) =>
  `--m\r\nContent-Type: ${type}; name="${name}"\r\nContent-Disposition: attachment; filename="${name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${bytes.toString('base64')}\r\n`

/** Connects the mailbox and answers the first message it files, as the API shows it. */
const firstMessage = async (box: Parameters<typeof connectMailbox>[2]) => {
  const ch = await connectMailbox(w, owner, box)
  const message = await until(async () => {
    const rows = await w.s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ conversation_id: number }>`
          SELECT m.conversation_id FROM messages m JOIN conversations c ON c.id = m.conversation_id
          WHERE c.channel_id = ${ch.id}`,
      ),
    )
    return rows[0] ?? null
  }, 15_000)
  const res = await w.s.fetch(`/v1/interactions/${message.conversation_id}/messages`, {
    headers: owner.headers(),
  })
  return ((await res.json()) as { data: Array<Record<string, any>> }).data[0]
}

describe.skipIf(lacks('dovecot-imapd'))("a stranger's attachment names", () => {
  it('follow the type the attachment is stored as', async () => {
    const box = mailbox(w)
    const other = await w.dovecot.client(box)
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')
    await other.append(
      'INBOX',
      [
        'From: Eve <eve@stranger.example>',
        `To: ${box.address}`,
        'Subject: Your invoice',
        `Message-ID: <a${noise(8)}@stranger.example>`,
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="m"',
        '',
        '--m\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nAttached.\r\n',
        attachmentPart('invoice.html', 'image/png', png),
        attachmentPart('terms', 'application/pdf', Buffer.from('%PDF-1.4\n')),
        attachmentPart('notes.txt', 'text/plain', Buffer.from('hello')),
        attachmentPart('tool.exe', 'application/octet-stream', Buffer.from('MZ')),
        '--m--',
        '',
      ].join('\r\n'),
    )
    const m = await firstMessage(box)
    expect(m!.email.attachments.map((a: any) => [a.name, a.mime])).toEqual([
      ['invoice.html.png', 'image/png'],
      ['terms.pdf', 'application/pdf'],
      ['notes.txt', 'text/plain'],
      // A type nothing vouches for keeps the name it came with (always a download).
      ['tool.exe', 'application/octet-stream'],
    ])
    const file = await w.s.fetch(`${m!.email.attachments[0].url}?download=1`, { headers: owner.headers() })
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="invoice\.html\.png"/)
    await other.logout()
  })
})

describe.skipIf(lacks('dovecot-imapd'))("a stranger's attachment types", () => {
  it('are what the bytes are, not what the mail claims; a claim the bytes belie is a download', async () => {
    const box = mailbox(w)
    const other = await w.dovecot.client(box)
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')
    const page = Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>')
    await other.append(
      'INBOX',
      [
        'From: Eve <eve@stranger.example>',
        `To: ${box.address}`,
        'Subject: Your photos',
        `Message-ID: <t${noise(8)}@stranger.example>`,
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="m"',
        '',
        '--m\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nAttached.\r\n',
        attachmentPart('photo.png', 'text/html', png),
        attachmentPart('chart.png', 'image/png', page),
        attachmentPart('report.pdf', 'application/pdf', page),
        attachmentPart('page.html', 'text/html', page),
        '--m--',
        '',
      ].join('\r\n'),
    )
    const m = await firstMessage(box)
    expect(m!.email.attachments.map((a: any) => [a.name, a.mime])).toEqual([
      ['photo.png', 'image/png'],
      ['chart.png', 'application/octet-stream'],
      ['report.pdf', 'application/octet-stream'],
      ['page.html', 'text/html'],
    ])
    const served = await Promise.all(
      m!.email.attachments.map((a: any) => w.s.fetch(a.url, { headers: owner.headers() })),
    )
    expect(
      served.map((r) => [r.headers.get('content-type'), r.headers.get('content-disposition')?.split(';')[0]]),
    ).toEqual([
      ['image/png', 'inline'],
      ['application/octet-stream', 'attachment'],
      ['application/octet-stream', 'attachment'],
      ['text/html', 'attachment'],
    ])
    await other.logout()
  })
})
