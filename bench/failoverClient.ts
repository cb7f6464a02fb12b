import * as http from 'node:http'

/**
 * The failover scenario's client (bench/failover.ts): inbound API messages at a fixed rate, each
 * sent again with the same `message.id` to another node until one node acknowledges it.
 *
 * It never throws an answer away. An attempt that has not answered after `hedgeMs` stays open and
 * the message also goes to the next node that is not already working on it (a hedge); the first
 * 2xx acknowledges it and ends the other attempts. An attempt that fails (refused, reset, any
 * non-2xx) is followed, after a backoff, by one to the next node. So a node that does not answer
 * at all (paused, cut off) costs a message about `hedgeMs`, and a message is never in flight on
 * more than one attempt a node. Hedges are paid for by acknowledgements, as gRPC's retry
 * throttling pays for retries: each costs a token, each acknowledgement earns half of one (at most
 * 100 held). With one node silent the others still acknowledge, which pays for hedging around it;
 * a cluster slow everywhere acknowledges less and so hedges less, instead of tripling its own load
 * (without a budget, a baseline run at load average 11 on this machine sent 9,447 hedges and got
 * 928 of 4,000 messages acknowledged).
 *
 * Why not "give up after a timeout and resend": with an attempt given up after 2 s, every fault
 * that made some answers slower than that (a SIGKILL, a pause, either Redis fault) grew a backlog
 * of resends whose answers all came too late to count, on the cluster and in the client's own
 * queue, and the runs never recovered: 1,100 to 2,700 of 4,000 messages acknowledged 60 s after
 * the load ended, on this 2-core machine shared with other work. That measures the client.
 */

export interface Plan {
  readonly rate: number
  readonly conversations: number
  readonly durationS: number
  readonly warmupS: number
  /** No answer from an attempt after this long: the message goes to the next node too. */
  readonly hedgeMs: number
  /** An attempt still unanswered after this long is ended (a node that never comes back). */
  readonly attemptTimeoutMs: number
  readonly drainS: number
  /**
   * After a refusal that says `Retry-After`, wait at least that long before the next attempt (as
   * a well-behaved client does); otherwise the backoff alone decides (BENCH_RETRY_AFTER=1).
   */
  readonly honorRetryAfter: boolean
}

/** Where the client sends: the nodes, the API channel's key, the conversations' external ids. */
export interface Target {
  readonly urls: ReadonlyArray<string>
  readonly channelKey: string
  readonly external: ReadonlyArray<string>
}

/** The hedge budget: tokens held at most, and what an acknowledgement earns. */
const HEDGE_TOKENS = 100
const HEDGE_EARNED = 0.5

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)))

/** Why an attempt failed, as the client sees it: refused, reset, timeout, or the error's code. */
const failure = (e: unknown): string => {
  const code = (e as { code?: unknown }).code
  if (code === 'ECONNREFUSED') return 'refused'
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'reset'
  return typeof code === 'string' ? code : 'other'
}

const failed = (code: string) => Object.assign(new Error(code), { code })

/**
 * POSTs with `headers` over keep-alive connections (Node's http: a fraction of fetch's CPU, and
 * the client shares two cores with the cluster). `post` gives the status once the whole answer is
 * in, and a way to end the request.
 */
const poster = (headers: Record<string, string>, timeoutMs: number) => {
  const agent = new http.Agent({ keepAlive: true })
  const live = new Set<http.ClientRequest>()
  const post = (url: URL, body: string) => {
    let req: http.ClientRequest | undefined
    const status = new Promise<{ readonly code: number; readonly retryAfterMs: number }>(
      (resolve, reject) => {
        const r = http.request(
          url,
          { method: 'POST', agent, headers: { ...headers, 'Content-Length': Buffer.byteLength(body) } },
          (res) => {
            res.resume()
            const retryAfter = Number(res.headers['retry-after'])
            res.once('close', () =>
              res.complete
                ? resolve({
                    code: res.statusCode ?? 0,
                    retryAfterMs: Number.isFinite(retryAfter) ? retryAfter * 1000 : 0,
                  })
                : reject(failed('ECONNRESET')),
            )
          },
        )
        req = r
        const timer = setTimeout(() => r.destroy(failed('timeout')), timeoutMs)
        live.add(r)
        r.once('close', () => {
          clearTimeout(timer)
          live.delete(r)
        })
        r.once('error', reject)
        r.end(body)
      },
    )
    return { status, end: () => req?.destroy(failed('ended')) }
  }
  return {
    post,
    /** Ends every request still running. */
    endAll: () => {
      for (const req of live) req.destroy(failed('gave up'))
    },
    close: () => agent.destroy(),
  }
}

/**
 * Sends `rate` messages a second for `seconds` from `t0` (open model: each at its own time,
 * whatever the others are doing), message i to conversation i mod n, first to node i mod 3, as
 * described above; the backoff after a failed attempt is 25 ms doubling to 500 ms, jittered, and
 * by default ignores `Retry-After` (1 s): the figure should show when the cluster can take the
 * message again, not how patient the client is. With `honorRetryAfter` a refusal that says it
 * waits that long (jittered, half to all of it): how a cluster fares with clients that do. It gives up `drainS` after the last first send.
 * `prefix` makes the message ids (`<prefix>-<i>`).
 */
export const drive = async (
  { urls, channelKey, external }: Target,
  p: Plan,
  { prefix, seconds, t0 }: { prefix: string; seconds: number; t0: number },
) => {
  const n = Math.round(p.rate * seconds)
  const latencies: Array<number | undefined> = Array.from({ length: n }, () => undefined)
  const firstSent: number[] = Array.from({ length: n }, () => 0)
  const attemptsOf: number[] = Array.from({ length: n }, () => 0)
  const errors: Record<string, number> = {}
  let hedges = 0
  let hedgesWithheld = 0
  let tokens = HEDGE_TOKENS
  const endpoints = urls.map((u) => new URL('/v1/channel-api/messages', u))
  const client = poster(
    { Authorization: `Bearer ${channelKey}`, 'Content-Type': 'application/json' },
    p.attemptTimeoutMs,
  )
  let gaveUp = false
  let lagMax = 0
  const deliver = (i: number) =>
    new Promise<void>((done) => {
      const body = JSON.stringify({
        conversation_id: external[i % external.length],
        message: { id: `${prefix}-${i}`, text: `failover ${prefix} ${i}` },
      })
      const start = performance.now()
      firstSent[i] = start - t0
      // Node index → the attempt in flight there.
      const open = new Map<number, () => void>()
      let next = i % endpoints.length
      let failures = 0
      let finished = false
      let hedge: NodeJS.Timeout | undefined
      const finish = (acked: boolean) => {
        if (finished) return
        finished = true
        clearTimeout(hedge)
        for (const end of open.values()) end()
        if (acked) {
          latencies[i] = performance.now() - start
          tokens = Math.min(HEDGE_TOKENS, tokens + HEDGE_EARNED)
        }
        done()
      }
      const launch = (hedging: boolean) => {
        if (finished) return
        if (gaveUp) return finish(false)
        const k = [...endpoints.keys()].map((j) => (next + j) % endpoints.length).find((c) => !open.has(c))
        // Every node is already working on it: the first answer or failure decides what follows.
        if (k === undefined) return
        if (hedging) {
          if (tokens < 1) {
            hedgesWithheld++
            hedge = setTimeout(() => launch(true), p.hedgeMs)
            return
          }
          tokens--
          hedges++
        }
        next = (k + 1) % endpoints.length
        attemptsOf[i]!++
        const attempt = client.post(endpoints[k]!, body)
        open.set(k, attempt.end)
        clearTimeout(hedge)
        hedge = setTimeout(() => launch(true), p.hedgeMs)
        attempt.status.then(
          ({ code, retryAfterMs }) => {
            open.delete(k)
            if (finished) return
            if (code >= 200 && code < 300) return finish(true)
            failedOnce(`http_${code}`, p.honorRetryAfter ? retryAfterMs : 0)
          },
          (e: unknown) => {
            open.delete(k)
            if (finished) return
            if (gaveUp) return finish(false)
            failedOnce(failure(e))
          },
        )
      }
      const failedOnce = (why: string, atLeastMs = 0) => {
        errors[why] = (errors[why] ?? 0) + 1
        failures++
        const backoff = Math.min(500, 25 * 2 ** (failures - 1)) * (0.5 + Math.random() / 2)
        setTimeout(() => launch(false), Math.max(backoff, atLeastMs * (0.5 + Math.random() / 2)))
      }
      launch(false)
    })
  const inFlight: Array<Promise<void>> = []
  const interval = 1000 / p.rate
  for (let i = 0; i < n; i++) {
    const due = t0 + i * interval
    const now = performance.now()
    if (now < due) await sleep(due - now)
    lagMax = Math.max(lagMax, performance.now() - due)
    inFlight.push(deliver(i))
  }
  const sendingEnded = performance.now()
  const timer = setTimeout(() => {
    gaveUp = true
    client.endAll()
  }, p.drainS * 1000)
  await Promise.all(inFlight)
  clearTimeout(timer)
  client.close()
  return {
    sent: n,
    latencies,
    firstSent,
    attemptsOf,
    hedges,
    hedgesWithheld,
    errors,
    scheduleLagMaxMs: Math.round(lagMax),
    drainS: Math.round((performance.now() - sendingEnded) / 100) / 10,
  }
}
