import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as path from 'node:path'
import { ImapFlow } from 'imapflow'
import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { freePort, tempDir } from '../support/server'

/**
 * A private Dovecot (IMAP only, plaintext, passwords from a passwd-file, maildirs under a temp
 * dir) and an SMTP server that records what it is given: the real servers the e-mail channel is
 * tested against. Dovecot runs in the foreground as a child of the test process. Run as root (CI
 * containers), its login processes need an unprivileged user, so the packaged `dovenull` and
 * `dovecot` users are used and the mail belongs to `dovecot`.
 */
export interface Mailbox {
  readonly address: string
  readonly password: string
}

export interface Dovecot {
  readonly host: string
  readonly port: number
  /** One passwd-file per user: a new file is read at once (Dovecot re-reads a known file at most once a second). */
  readonly addUser: (address: string, password: string) => Mailbox
  /** Changes a password; resolves once Dovecot will have re-read it. */
  readonly setPassword: (address: string, password: string) => Promise<void>
  /** An IMAP client of our own, as "another mail program" of the mailbox owner. */
  readonly client: (box: Mailbox) => Promise<ImapFlow>
  readonly log: () => string
  readonly stop: () => Promise<void>
}

const idOf = (name: string, flag: '-u' | '-g') => Number(execFileSync('id', [flag, name]).toString().trim())

const waitForPort = async (port: number, timeoutMs: number, alive: () => boolean) => {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    if (!alive()) throw new Error('dovecot exited during start-up')
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1')
      s.once('connect', () => {
        s.destroy()
        resolve(true)
      })
      s.once('error', () => resolve(false))
    })
    if (ok) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`dovecot did not listen on ${port}`)
}

export const startDovecot = async (): Promise<Dovecot> => {
  const dir = tempDir('kotak-dovecot-')
  fs.chmodSync(dir, 0o755)
  const port = await freePort()
  const root = process.getuid?.() === 0
  const mailUid = root ? idOf('dovecot', '-u') : (process.getuid?.() ?? 0)
  const mailGid = root ? idOf('dovecot', '-g') : (process.getgid?.() ?? 0)
  const me = root ? null : execFileSync('id', ['-un']).toString().trim()
  const users = path.join(dir, 'users')
  const log = path.join(dir, 'dovecot.log')
  for (const d of ['mail', 'home']) {
    fs.mkdirSync(path.join(dir, d))
    if (root) fs.chownSync(path.join(dir, d), mailUid, mailGid)
  }
  fs.mkdirSync(users)
  const conf = path.join(dir, 'dovecot.conf')
  fs.writeFileSync(
    conf,
    `base_dir = ${dir}/run
state_dir = ${dir}/state
instance_name = kotak-test-${port}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
log_path = ${log}
info_log_path = ${log}
default_internal_user = ${root ? 'dovecot' : me}
default_internal_group = ${root ? 'dovecot' : execFileSync('id', ['-gn']).toString().trim()}
default_login_user = ${root ? 'dovenull' : me}
first_valid_uid = ${mailUid}
first_valid_gid = ${mailGid}
mail_location = maildir:${dir}/mail/%u
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${users}/%u
}
userdb {
  driver = passwd-file
  args = username_format=%u ${users}/%u
  default_fields = uid=${mailUid} gid=${mailGid} home=${dir}/home/%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
  chroot =
}
service anvil {
  chroot =
  # No growing sign-in delay after the deliberate wrong passwords of the tests.
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
protocol imap {
  mail_max_userip_connections = 200
}
namespace inbox {
  inbox = yes
  separator = /
  mailbox Sent {
    special_use = \\Sent
    auto = subscribe
  }
  mailbox Projects {
    auto = subscribe
  }
}
`,
  )
  const child: ChildProcess = spawn('/usr/sbin/dovecot', ['-F', '-c', conf], { stdio: 'ignore' })
  let exited = false
  child.once('exit', () => {
    exited = true
  })
  await waitForPort(port, 15_000, () => !exited)
  return {
    host: '127.0.0.1',
    port,
    addUser: (address, password) => {
      fs.writeFileSync(path.join(users, address), `${address}:{PLAIN}${password}::::::\n`)
      return { address, password }
    },
    setPassword: async (address, password) => {
      const file = path.join(users, address)
      fs.writeFileSync(file, `${address}:{PLAIN}${password}::::::\n`)
      const later = Date.now() / 1000 + 5
      fs.utimesSync(file, later, later)
      await new Promise((r) => setTimeout(r, 1100))
    },
    client: async (box) => {
      const c = new ImapFlow({
        host: '127.0.0.1',
        port,
        secure: false,
        auth: { user: box.address, pass: box.password },
        logger: false,
      })
      c.on('error', () => {})
      await c.connect()
      return c
    },
    log: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : ''),
    stop: async () => {
      if (!exited) {
        const done = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await done
      }
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

export interface ReceivedMail {
  readonly from: string
  readonly to: readonly string[]
  readonly user: string
  readonly raw: string
  readonly parsed: Awaited<ReturnType<typeof simpleParser>>
}

export interface Smtp {
  readonly host: string
  readonly port: number
  readonly received: ReceivedMail[]
  /** Sign-ins accepted: address → password (others are refused with 535). */
  readonly accounts: Map<string, string>
  readonly waitFor: (pred: (m: ReceivedMail) => boolean, timeoutMs?: number) => Promise<ReceivedMail>
  readonly stop: () => Promise<void>
}

/** An SMTP server (no TLS, AUTH PLAIN/LOGIN) that keeps every message it accepts. */
export const startSmtp = async (): Promise<Smtp> => {
  const received: ReceivedMail[] = []
  const accounts = new Map<string, string>()
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: false,
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username && accounts.get(auth.username) === auth.password) cb(null, { user: auth.username })
      else cb(new Error('Invalid username or password'))
    },
    // Recipients whose local part starts with `reject` are refused, as a real server refuses unknown users.
    onRcptTo(address, _session, cb) {
      if (/^reject/i.test(address.address))
        cb(Object.assign(new Error('5.1.1 No such user here'), { responseCode: 550 }))
      else cb()
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8')
        simpleParser(raw).then(
          (parsed) => {
            received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              user: String(session.user ?? ''),
              raw,
              parsed,
            })
            cb()
          },
          (e: Error) => cb(e),
        )
      })
    },
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    host: '127.0.0.1',
    port,
    received,
    accounts,
    waitFor: async (pred, timeoutMs = 10_000) => {
      const until = Date.now() + timeoutMs
      while (Date.now() < until) {
        const m = received.find(pred)
        if (m) return m
        await new Promise((r) => setTimeout(r, 50))
      }
      throw new Error('no such mail received')
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
