import { expect } from 'vitest'
import { type FakeSocket, nthSocket } from '../../connectors/msgapp/TransportTest'
import * as F from '../support/fixtures'
import type { TestServer } from '../support/server'

export const body = async (res: Response) => (await res.json()) as Record<string, any>

/** A server with the test transport (MSGAPP_TRANSPORT=test) and fast timings. */
export const ENV = {
  MSGAPP_TRANSPORT: 'test',
  MSGAPP_POLL_MS: '100',
  MSGAPP_BACKOFF_BASE_MS: '200',
  MSGAPP_PACE_MS: '0',
  SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
}

export const waitFor = async <A>(
  f: () => Promise<A | null | undefined | false>,
  timeoutMs = 5000,
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await f()
    if (v) return v
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Adds a number through the API and waits for its first socket. */
export const addNumber = async (s: TestServer, owner: F.Session, name = 'Shop number') => {
  const res = await s.fetch('/v1/channels', F.json({ name }, owner.headers()))
  expect(res.status).toBe(201)
  const ch = (await body(res)).data
  const sock = await nthSocket(ch.id, 1)
  return { ch, sock }
}

export const status = async (s: TestServer, owner: F.Session, id: number) =>
  (await body(await s.fetch(`/v1/channels/${id}/status`, { headers: owner.headers() }))).data

export const waitStatus = (s: TestServer, owner: F.Session, id: number, want: string) =>
  waitFor(async () => ((await status(s, owner, id)).status === want ? true : null))

/** A linked, open number. */
export const linkedNumber = async (s: TestServer, owner: F.Session, phone = '6281200000001') => {
  const { ch, sock } = await addNumber(s, owner)
  sock.open(phone)
  await waitStatus(s, owner, ch.id, 'active')
  return { ch, sock }
}

let n = 0
export const waId = () => `WAID${Date.now().toString(36)}${(n++).toString(36)}`.toUpperCase()

export const textFrom = (
  sock: FakeSocket,
  phone: string,
  text: string,
  extra: Record<string, unknown> = {},
) => {
  const id = waId()
  sock.emit('messages.upsert', {
    type: 'notify',
    messages: [
      {
        key: { remoteJid: `${phone}@s.whatsapp.net`, fromMe: false, id },
        message: { conversation: text },
        messageTimestamp: Math.floor(Date.now() / 1000),
        pushName: 'Budi',
        ...extra,
      },
    ],
  })
  return id
}
