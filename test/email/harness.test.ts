import nodemailer from 'nodemailer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { lacks } from '../support/systemPackages'
import { type Dovecot, type Smtp, startDovecot, startSmtp } from './dovecot'

let dovecot: Dovecot
let smtp: Smtp
beforeAll(async () => {
  ;[dovecot, smtp] = await Promise.all([startDovecot(), startSmtp()])
})
afterAll(async () => {
  await dovecot?.stop()
  await smtp?.stop()
})

describe.skipIf(lacks('dovecot-imapd'))('test mail servers', () => {
  it('Dovecot signs in, lists the special-use Sent folder and refuses a wrong password', async () => {
    const box = dovecot.addUser('harness@example.test', 'pw-1')
    const c = await dovecot.client(box)
    const folders = await c.list()
    expect(folders.find((f) => f.specialUse === '\\Sent')?.path).toBe('Sent')
    await c.logout()
    await expect(dovecot.client({ ...box, password: 'nope' })).rejects.toThrow()
  })

  it('the SMTP server records what it accepts and refuses bad passwords', async () => {
    smtp.accounts.set('harness@example.test', 'pw-1')
    const t = nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: false,
      ignoreTLS: true,
      auth: { user: 'harness@example.test', pass: 'pw-1' },
    })
    await t.sendMail({ from: 'harness@example.test', to: 'x@example.test', subject: 'Hi', text: 'Hello' })
    const m = await smtp.waitFor((r) => r.parsed.subject === 'Hi')
    expect(m.to).toEqual(['x@example.test'])
    const bad = nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: false,
      ignoreTLS: true,
      auth: { user: 'harness@example.test', pass: 'x' },
    })
    await expect(bad.verify()).rejects.toThrow()
  })
})
