import {
  type AnyMessageContent,
  type AuthenticationState,
  type BaileysEventMap,
  type GroupMetadata,
  type MiscMessageGenerationOptions,
  makeEventBuffer,
  proto,
  type WAMessage,
  type WAMessageKey,
} from 'baileys'
import { systemMillis } from '../../engine/clock'

import type { MsgappSocket, TransportShape } from './Transport'
import { quietLogger } from './Transport'

/**
 * The test transport (`MSGAPP_TRANSPORT=test`; never in production): each `connect` hands out a
 * socket whose `ev` is Baileys' own event buffer, registered here by channel so a test in the same
 * process can emit real protocol objects into it and read what the service sent.
 *
 * With `MSGAPP_TEST_SERVICE` (a URL on loopback) the sockets also talk to a stand-in messaging
 * service in the test process (`test/support/msgappService.ts`), for nodes that run as other
 * processes: `POST /connect` announces each socket, `GET /commands` is polled for what the service
 * does to it (`open`, `close`, `emit` of a Baileys event with JSON data), and every send is
 * `POST /send`, answered with the message id or a refusal `{statusCode, message}`, so the service
 * sees a send the moment it leaves the node, as the real one would.
 */
export interface SentRecord {
  /** The message id: the sender's (`options.messageId`, as Baileys takes it) or one made here. */
  readonly id: string
  readonly jid: string
  readonly content: AnyMessageContent
  readonly options: MiscMessageGenerationOptions | undefined
}

/** An error shaped like Baileys' Boom errors (`output.statusCode`). */
export const closeError = (statusCode: number, message = `closed ${statusCode}`) =>
  Object.assign(new Error(message), { output: { statusCode, payload: { statusCode, message } } })

export class FakeSocket implements MsgappSocket {
  readonly ev = makeEventBuffer(quietLogger)
  user: { id: string; name?: string } | undefined = undefined
  readonly sent: SentRecord[] = []
  readonly calls: Array<{ readonly op: string; readonly args: readonly unknown[] }> = []
  /** The next sends fail with these errors, in order. */
  readonly failures: Error[] = []
  /** Group metadata and photo URLs this socket answers with (tests fill them). */
  readonly groups = new Map<string, GroupMetadata>()
  readonly avatars = new Map<string, string>()
  ended = false
  private n = 0
  /** This socket's name at the stand-in service. */
  readonly socketId = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`

  /** `auth` is the state the session connected with (stored creds are reused after a restart). */
  constructor(
    readonly channelId: number,
    readonly auth: AuthenticationState | null = null,
    readonly service: string | undefined = undefined,
  ) {}

  /** A call to the stand-in service (JSON both ways). */
  private async call(method: 'GET' | 'POST', path: string, body?: Record<string, unknown>) {
    const res = await fetch(`${this.service}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
    return (await res.json()) as Record<string, unknown>
  }

  /** Announces the socket to the stand-in service and carries out its commands until it ends. */
  async attach() {
    await this.call('POST', '/connect', { channel: this.channelId, socket: this.socketId, pid: process.pid })
    void (async () => {
      while (!this.ended) {
        await new Promise((r) => setTimeout(r, 50))
        const r = await this.call('GET', `/commands?socket=${this.socketId}`).catch(() => null)
        for (const c of (r?.commands ?? []) as ServiceCommand[]) {
          if (c.op === 'open') this.open(c.phone)
          else if (c.op === 'close') this.close(c.code)
          else this.emit(c.event, c.data as never)
        }
      }
    })()
  }

  emit<K extends keyof BaileysEventMap>(event: K, data: BaileysEventMap[K]) {
    this.ev.emit(event, data)
  }

  qr(code: string) {
    this.emit('connection.update', { connection: 'connecting', qr: code })
  }

  open(phone = '6281200000001') {
    this.user = { id: `${phone}:12@s.whatsapp.net`, name: 'Shop' }
    this.emit('connection.update', { connection: 'open' })
  }

  close(statusCode: number) {
    this.ended = true
    this.emit('connection.update', {
      connection: 'close',
      lastDisconnect: { error: closeError(statusCode), date: new Date(systemMillis()) },
    })
  }

  sendMessage = async (jid: string, content: AnyMessageContent, options?: MiscMessageGenerationOptions) => {
    const failure = this.failures.shift()
    if (failure) throw failure
    let id = options?.messageId ?? `3EB0${(++this.n).toString(16).padStart(6, '0')}${this.channelId}`
    this.sent.push({ id, jid, content, options })
    if (this.service) {
      const r = await this.call('POST', '/send', {
        channel: this.channelId,
        socket: this.socketId,
        pid: process.pid,
        jid,
        content: content as Record<string, unknown>,
      })
      const refused = r.error as { statusCode: number; message: string } | undefined
      if (refused) throw closeError(refused.statusCode, refused.message)
      // The sender's id when it chose one (Baileys sends under it), else the service's.
      id = options?.messageId ?? String(r.id)
    }
    const sent = {
      key: { remoteJid: jid, fromMe: true, id },
      message: { conversation: 'text' in content ? String(content.text) : '' },
      // The remote service's clock, which this fake stands in for: the process clock.
      messageTimestamp: Math.floor(systemMillis() / 1000),
      status: proto.WebMessageInfo.Status.SERVER_ACK,
    } as WAMessage
    // As Baileys does (`emitOwnEvents`, on by default): the sent message also comes back as a
    // `messages.upsert` of type `append`, on the next tick after the send resolves.
    process.nextTick(() => this.emit('messages.upsert', { type: 'append', messages: [sent] }))
    return sent
  }

  requestPairingCode = async (phone: string) => {
    this.calls.push({ op: 'requestPairingCode', args: [phone] })
    return 'KTK4PAIR'
  }

  logout = async () => {
    this.calls.push({ op: 'logout', args: [] })
    this.close(401)
  }

  end = (error: Error | undefined) => {
    this.calls.push({ op: 'end', args: [error?.message] })
    if (!this.ended) this.close(428)
  }

  fetchMessageHistory = async (count: number, oldest: WAMessageKey, ts: number) => {
    this.calls.push({ op: 'fetchMessageHistory', args: [count, oldest, ts] })
    return 'history-request'
  }

  groupMetadata = async (jid: string): Promise<GroupMetadata> => {
    this.calls.push({ op: 'groupMetadata', args: [jid] })
    return (
      this.groups.get(jid) ?? {
        id: jid,
        subject: `Group ${jid.split('@')[0]}`,
        owner: undefined,
        participants: [],
      }
    )
  }

  profilePictureUrl = async (jid: string) => {
    this.calls.push({ op: 'profilePictureUrl', args: [jid] })
    return this.avatars.get(jid)
  }

  readMessages = async (keys: WAMessageKey[]) => {
    this.calls.push({ op: 'readMessages', args: [keys] })
  }

  sendPresenceUpdate = async (type: string, jid?: string) => {
    this.calls.push({ op: 'sendPresenceUpdate', args: [type, jid] })
  }

  rejectCall = async (id: string, from: string) => {
    this.calls.push({ op: 'rejectCall', args: [id, from] })
  }

  updateMediaMessage = async (m: WAMessage) => m
}

/** What the stand-in service does to a socket. */
export type ServiceCommand =
  | { readonly op: 'open'; readonly phone: string }
  | { readonly op: 'close'; readonly code: number }
  | { readonly op: 'emit'; readonly event: keyof BaileysEventMap; readonly data: unknown }

const sockets = new Map<number, FakeSocket[]>()
const waiters = new Set<() => void>()

export const socketsOf = (channelId: number): readonly FakeSocket[] => sockets.get(channelId) ?? []

/**
 * Forgets every socket: the test runner calls it before each test file (test/support/eachFile.ts),
 * since files share one process and channel ids repeat from one file's database to the next.
 */
export const forgetSockets = () => sockets.clear()

/** Waits until the channel has had `count` sockets (connects), then returns the latest. */
export const nthSocket = async (channelId: number, count = 1, timeoutMs = 5000): Promise<FakeSocket> => {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const list = socketsOf(channelId)
    if (list.length >= count) return list[list.length - 1]!
    if (performance.now() > deadline)
      throw new Error(`channel ${channelId}: ${list.length} connects, wanted ${count}`)
    await new Promise<void>((resolve) => {
      const done = () => {
        waiters.delete(done)
        clearTimeout(t)
        resolve()
      }
      const t = setTimeout(done, 25)
      waiters.add(done)
    })
  }
}

/** `service`: the stand-in messaging service's URL (`MSGAPP_TEST_SERVICE`), if any. */
export const make = (service?: string): TransportShape => ({
  connect: async (channelId, auth) => {
    const s = new FakeSocket(channelId, auth, service)
    if (auth.creds.me) s.user = { id: auth.creds.me.id }
    // Tests see the socket once the session has taken it and listens to its events (a few
    // microtasks after `connect` resolves; how many depends on how the transport was loaded), as a
    // real socket emits nothing in the tick it is made.
    setImmediate(() => {
      sockets.set(channelId, [...socketsOf(channelId), s])
      for (const w of [...waiters]) w()
    })
    if (service) await s.attach()
    return s
  },
})
