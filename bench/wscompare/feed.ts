import uws from 'uWebSockets.js'

/**
 * A bare uWebSockets.js publisher for comparing WebSocket client libraries without Kotak's database
 * in the way: every socket on /ws joins one topic; `GET /start?rate=R&seconds=S` publishes R frames a
 * second, shaped like Kotak's `message.created` (cursor, event, data with interaction_id and seq).
 */
const port = Number(process.env.PORT ?? 9002)
const pad = 'x'.repeat(Number(process.env.FEED_PAD ?? 400))
let seq = 0
const frame = () => {
  seq += 1
  return JSON.stringify({
    cursor: `feed.${seq}`,
    event: 'message.created',
    data: {
      id: seq,
      interaction_id: 1,
      seq,
      direction: 'in',
      type: 'text',
      body: `t=${Date.now() * 1000}`,
      pad,
    },
    at: new Date().toISOString(),
  })
}
const app = uws.App()
app
  .ws('/ws', {
    idleTimeout: 60,
    sendPingsAutomatically: true,
    maxBackpressure: 64 * 1024 * 1024,
    open: (ws) => {
      ws.subscribe('feed')
    },
  })
  .get('/start', (res, req) => {
    const q = new URLSearchParams(req.getQuery() ?? '')
    const rate = Number(q.get('rate') ?? 100)
    const seconds = Number(q.get('seconds') ?? 10)
    const t0 = Date.now()
    let sent = 0
    // Publishes in 10 ms slices so the rate holds without one timer per frame.
    const timer = setInterval(() => {
      const due = Math.min(rate * seconds, Math.floor(((Date.now() - t0) / 1000) * rate))
      for (; sent < due; sent++) app.publish('feed', frame(), false)
      if (sent >= rate * seconds) clearInterval(timer)
    }, 10)
    res.end(JSON.stringify({ rate, seconds, subscribers: app.numSubscribers('feed') }))
  })
  .listen('0.0.0.0', port, (token) => {
    if (!token) {
      process.stderr.write(`cannot listen on ${port}\n`)
      process.exit(1)
    }
    process.stdout.write(`feed listening on ${port}\n`)
  })
