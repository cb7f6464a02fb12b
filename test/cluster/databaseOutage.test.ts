import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, storedMessages, type TestCluster, waitFor, waitSettled } from '../support/cluster'
import * as F from '../support/fixtures'
import { type TcpProxy, tcpProxy } from '../support/proxy'

/**
 * Two nodes reaching PostgreSQL through a proxy that plays an outage twice: the database refusing
 * connections (stopped), then silent (a black hole: connections accepted, nothing answered, and
 * those of that time dead for good). Meanwhile a customer's system sends API-channel messages to
 * several conversations through both nodes, each resent with the same `message.id` until it is
 * acknowledged (issue 48). While the database is away every request answers at once with 503
 * `unavailable` and `Retry-After` — none queues behind the pool — and `/healthz` names the
 * database; once it is back, messages are acknowledged again within about a second; in the end
 * every acknowledged message is stored once, each conversation numbered without a gap.
 *
 * Bounds on durations are loose on purpose: they catch a request waiting out the pool's 5 s bound
 * or a statement's 30 s one (what the issue measured: p99 21.8 s), not a slow machine.
 */
// Cluster mode needs PostgreSQL and Redis by design: the embedded database is a single node's.
const enabled = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL)
const CONVERSATIONS = 6
const AT_ONCE_MS = 2_500
/** A request under way when the database went silent waits for the probe's verdict (about 1.5 s). */
const SILENCE_NOTICED_MS = 4_000

type Phase = 'before' | 'refused' | 'refused, known' | 'back' | 'silent' | 'silent, known' | 'back again'

interface Answer {
  readonly phase: Phase
  readonly at: number
  readonly ms: number
  readonly status: number
  readonly retryAfter: string | null
  readonly code: string | undefined
}

describe.skipIf(!enabled)('cluster without its database for a while', () => {
  let proxy: TcpProxy
  let c: TestCluster
  let key: string

  beforeAll(async () => {
    c = await startCluster({
      nodes: 2,
      env: { RATE_LIMIT_PER_CHANNEL_KEY: '100000000' },
      databaseVia: async (url) => {
        const direct = new URL(url)
        proxy = await tcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) })
        direct.hostname = '127.0.0.1'
        direct.port = String(proxy.port)
        return direct.href
      },
    })
    const w = await F.workspace(c.nodes[0]!.server, { plan: 'pro' })
    const owner = await F.signIn(c.nodes[0]!.server, w.ownerEmail)
    const res = await c.nodes[0]!.fetch('/v1/channels/api', F.json({ name: 'Outage' }, owner.headers()))
    expect(res.status).toBe(201)
    key = ((await res.json()) as { data: { credentials: { key: string } } }).data.credentials.key
    await waitSettled(c)
  }, 180_000)
  afterAll(async () => {
    await proxy?.restore().catch(() => undefined)
    await c?.stop()
    await proxy?.close()
  }, 60_000)

  it('answers 503 with Retry-After at once, names the database in health, serves again within a second of its return, and loses nothing', async () => {
    let phase: Phase = 'before'
    let stopping = false
    const answers: Answer[] = []
    // What the nodes logged when an answer was neither a success nor a 503 (kept for the failure).
    const faults: string[] = []
    // Ids of this attempt only: a retry runs on the same cluster and database.
    const run = Math.random().toString(36).slice(2, 8)
    const acked = new Map<string, number>()

    const post = async (conv: number, i: number, attempt: number) => {
      const via = c.nodes[(conv + i + attempt) % 2]!
      const sentIn = phase
      const t0 = performance.now()
      const r = await via.fetch(
        '/v1/channel-api/messages',
        F.json(
          {
            conversation_id: `out-${run}-${conv}`,
            message: { id: `m${run}-${conv}-${i}`, text: `c${conv} #${i}` },
          },
          F.bearer(key),
        ),
      )
      const body = (await r.json().catch(() => null)) as {
        data?: { message: { id: number } }
        error?: { code: string }
      } | null
      if (![200, 201, 503].includes(r.status))
        faults.push(
          ...c.nodes.flatMap((n) =>
            n
              .output()
              .split('\n')
              .filter((l) => l.includes('"level":"error"')),
          ),
        )
      answers.push({
        phase: sentIn,
        at: t0,
        ms: performance.now() - t0,
        status: r.status,
        retryAfter: r.headers.get('retry-after'),
        code: body?.error?.code,
      })
      return { status: r.status, id: body?.data?.message.id }
    }
    /** One conversation's messages in order, each resent until acknowledged (no pause: resumes are timed). */
    const stream = async (conv: number) => {
      for (let i = 1; !stopping; i++) {
        for (let attempt = 0; ; attempt++) {
          const r = await post(conv, i, attempt)
          if ((r.status === 201 || r.status === 200) && r.id !== undefined) {
            acked.set(`m${run}-${conv}-${i}`, r.id)
            break
          }
          await new Promise((res) => setTimeout(res, 50))
        }
      }
    }
    const healthAnswers: Array<{ status: number; data: Record<string, unknown>; ms: number }> = []
    const healthOf = async () =>
      Promise.all(
        c.nodes.map(async (n) => {
          const t0 = performance.now()
          const r = await n.fetch('/healthz')
          const { data } = (await r.json()) as { data: Record<string, unknown> }
          const h = { status: r.status, data, ms: performance.now() - t0 }
          healthAnswers.push(h)
          return h
        }),
      )
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

    /** Until both nodes' health names the database. */
    const noticed = async () => {
      await waitFor(
        'both nodes to say the database is down',
        async () => (await healthOf()).every((h) => h.status === 503 && h.data.database === 'down'),
        {
          timeoutMs: 10_000,
          intervalMs: 25,
        },
      )
      return performance.now()
    }
    /** Restores the database: the time until the next acknowledgement, and health says ok. */
    const restored = async (next: Phase) => {
      await proxy.restore()
      const at = performance.now()
      phase = next
      const first = await waitFor(
        'a message acknowledged again',
        () => answers.find((a) => a.at >= at && (a.status === 201 || a.status === 200)),
        { timeoutMs: 10_000, intervalMs: 10 },
      )
      await waitFor('health to say ok again', async () =>
        (await healthOf()).every(
          (h) =>
            h.status === 200 &&
            JSON.stringify(h.data) ===
              JSON.stringify({ status: 'ok', database: 'ok', cluster: 'ok', unavailable: [] }),
        ),
      )
      return first.at + first.ms - at
    }

    const streams = Promise.all(Array.from({ length: CONVERSATIONS }, (_, conv) => stream(conv)))
    await waitFor('messages acknowledged before the outage', () => acked.size >= CONVERSATIONS * 3)

    // The database stops: connections closed, new ones refused.
    let at = performance.now()
    phase = 'refused'
    await proxy.cut()
    const refusedNoticedMs = (await noticed()) - at
    phase = 'refused, known'
    await sleep(1_500)
    const refusedBackMs = await restored('back')
    await waitFor('messages acknowledged between the outages', () => acked.size >= CONVERSATIONS * 8)

    // The database goes silent: nothing answers, not even what was already connected.
    at = performance.now()
    phase = 'silent'
    proxy.blackhole()
    const silentNoticedMs = (await noticed()) - at
    phase = 'silent, known'
    await sleep(1_500)
    const silentBackMs = await restored('back again')
    await waitFor('messages acknowledged after the outages', () => acked.size >= CONVERSATIONS * 12)
    stopping = true
    await streams

    // Health answers at once whatever the database does, and while it is down says so by name.
    for (const h of healthAnswers) {
      expect(h.ms).toBeLessThan(AT_ONCE_MS)
      // (`slow` may come first: a request waiting on the silence before the probe's verdict.)
      if (h.status === 503)
        expect(h.data).toEqual({
          status: 'unavailable',
          database: expect.stringMatching(/^(down|slow)$/),
          cluster: 'ok',
          unavailable: ['database'],
        })
      else expect(h.data).toEqual({ status: 'ok', database: 'ok', cluster: 'ok', unavailable: [] })
    }
    const outage = answers.filter(
      (a) => a.phase !== 'before' && a.phase !== 'back' && a.phase !== 'back again',
    )
    const refusedAnswers = outage.filter((a) => a.status === 503)
    // Refusals happened, each the honest kind: 503 `unavailable` with a Retry-After.
    expect(refusedAnswers.length).toBeGreaterThan(CONVERSATIONS * 4)
    for (const a of answers)
      expect([200, 201, 503], `${JSON.stringify(a)}\n${faults.join('\n')}`).toContain(a.status)
    for (const a of answers.filter((x) => x.status === 503)) {
      expect(a.code).toBe('unavailable')
      expect(a.retryAfter).toMatch(/^[1-9]\d*$/)
    }
    // Once the outage is known, nothing waits; before that, only the silence's first moments.
    for (const a of answers.filter((x) => x.phase !== 'silent'))
      expect(a.ms, JSON.stringify(a)).toBeLessThan(AT_ONCE_MS)
    for (const a of answers.filter((x) => x.phase === 'silent'))
      expect(a.ms, JSON.stringify(a)).toBeLessThan(SILENCE_NOTICED_MS)
    // Known down in time by both nodes, and served again within about a second of the return
    // (bounded loosely here; the figures are in the message of a failure).
    const figures = {
      refusedNoticedMs,
      refusedBackMs,
      silentNoticedMs,
      silentBackMs,
      slowestKnownRefusalMs: Math.max(
        ...outage.filter((a) => a.phase.endsWith('known') && a.status === 503).map((a) => a.ms),
      ),
      slowestSilentMs: Math.max(0, ...outage.filter((a) => a.phase === 'silent').map((a) => a.ms)),
      refusals: refusedAnswers.length,
    }
    if (process.env.OUTAGE_FIGURES) console.info(JSON.stringify(figures))
    expect(refusedNoticedMs, JSON.stringify(figures)).toBeLessThan(AT_ONCE_MS)
    expect(silentNoticedMs, JSON.stringify(figures)).toBeLessThan(SILENCE_NOTICED_MS)
    expect(refusedBackMs, JSON.stringify(figures)).toBeLessThan(3_000)
    expect(silentBackMs, JSON.stringify(figures)).toBeLessThan(3_000)

    // Every acknowledged message stored once, with the id its acknowledgement named, and nothing
    // else; each conversation numbered 1…n in the customer's order.
    const rows = (await storedMessages(c)).filter((r) => r.client_id.startsWith(`api:m${run}-`))
    expect(rows.length).toBe(acked.size)
    for (const r of rows) expect(acked.get(r.client_id.slice('api:'.length)), r.client_id).toBe(r.id)
    const byConversation = new Map<number, number[]>()
    for (const r of rows)
      byConversation.set(r.conversation_id, [
        ...(byConversation.get(r.conversation_id) ?? []),
        Number(r.client_id.split('-')[2]),
      ])
    expect(byConversation.size).toBe(CONVERSATIONS)
    for (const order of byConversation.values())
      expect(order).toEqual(Array.from({ length: order.length }, (_, i) => i + 1))
    const seqs = await c.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ ok: boolean }>`
          SELECT bool_and(last_seq = (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id)) AS ok
          FROM conversations c`,
      ),
    )
    expect(seqs).toEqual([{ ok: true }])
  }, 180_000)
})
