import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EmailSessions } from '../../connectors/email/sessions'
import { makeLogger } from '../../engine/log'
import { type RunningApp, start } from '../../http/app'
import * as F from '../support/fixtures'
import { freePort } from '../support/server'
import { lacks } from '../support/systemPackages'
import { connectMailbox, type MailWorld, mailbox, rfc822, startMailWorld, until } from './support'

const mail = !lacks('dovecot-imapd')

let w: MailWorld
let ws: F.Seeded
let owner: F.Session
beforeAll(async () => {
  if (!mail) return
  // On disk when embedded, so the server can restart on the same database.
  w = await startMailWorld({}, { durable: true })
  ws = await F.workspace(w.s, { plan: 'pro' })
  owner = await F.signIn(w.s, ws.ownerEmail)
})
afterAll(() => w?.stop())

const sql = <A extends object>(q: (s: SqlClient.SqlClient) => Effect.Effect<readonly A[], unknown>) =>
  w.s.run(Effect.flatMap(SqlClient.SqlClient, (s) => q(s) as Effect.Effect<readonly A[], never>))

const bodiesOf = async (channelId: number) =>
  (
    await sql<{ body: string }>(
      (s) =>
        s`SELECT m.body FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.channel_id = ${channelId} ORDER BY m.id`,
    )
  ).map((r) => r.body)

describe.skipIf(!mail)('mailbox sessions across restarts', () => {
  it('a restarted server resumes after the saved UID: nothing read twice, mail that came meanwhile arrives', async () => {
    const box = mailbox(w)
    const other = await w.dovecot.client(box)
    const ch = await connectMailbox(w, owner, box)
    await other.append(
      'INBOX',
      rfc822(
        { From: 'a@customer.example', To: box.address, Subject: 'One', 'Message-ID': '<one@c.example>' },
        'first',
      ),
    )
    await until(async () => (await bodiesOf(ch.id)).includes('first'))
    // The position is saved right after the message.
    await until(async () => {
      const [state] = await sql<{ last_uid: number }>(
        (s) => s`SELECT last_uid FROM email_folder_state WHERE channel_id = ${ch.id} AND folder = 'INBOX'`,
      )
      return state?.last_uid === 1
    })
    // Forget the Message-IDs: only the saved UID can keep the first mail from being read again.
    await sql((s) => s`DELETE FROM email_message_ids WHERE channel_id = ${ch.id}`)
    await w.s.restart()
    await other.append(
      'INBOX',
      rfc822(
        { From: 'b@customer.example', To: box.address, Subject: 'Two', 'Message-ID': '<two@c.example>' },
        'second',
      ),
    )
    await until(async () => (await bodiesOf(ch.id)).includes('second'), 15_000)
    expect(await bodiesOf(ch.id)).toEqual(['first', 'second'])
    await other.logout()
  })
})

// PostgreSQL only: the embedded database is one node's (its data directory is locked by the node
// that opened it), so two nodes share a database only on PostgreSQL.
describe.skipIf(!mail || !process.env.DATABASE_URL)('mailbox sessions on two nodes', () => {
  it('two nodes on one database: each mailbox runs on exactly one of them', async () => {
    const box = mailbox(w)
    const ch = await connectMailbox(w, owner, box)
    const port = await freePort()
    const second: RunningApp = await start(
      { ...w.s.cfg, port, publicUrl: `http://127.0.0.1:${port}` },
      { logger: makeLogger(w.s.cfg.logLevel) },
    )
    try {
      const runningOn = async () => [
        ...(await w.s.run(Effect.map(EmailSessions, (e) => e.running()))),
        ...(await second.run(Effect.map(EmailSessions, (e) => e.running()))),
      ]
      await until(async () => (await runningOn()).includes(ch.id))
      // Several polls later, still one session for it across both nodes.
      await new Promise((r) => setTimeout(r, 1000))
      expect((await runningOn()).filter((id) => id === ch.id)).toHaveLength(1)
    } finally {
      await second.stop()
    }
  })
})
