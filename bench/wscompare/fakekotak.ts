import uws from 'uWebSockets.js'

/**
 * A stand-in for Kotak's real-time side, to measure the load driver alone (its fanout reading
 * without Kotak's database and actors in the way): `POST /v1/realtime/token`, subscribe on
 * `/v1/realtime`, and per `POST /v1/channel-api/messages` a `message.created` on `conv:1` and an
 * `inbox.changed` on `ws:1`, framed as the hub frames them (cursor first). No `since` replay.
 * `KICK=1` closes one socket as a slow consumer (4008) every 50 messages.
 *
 *   PORT=9102 node --import tsx bench/wscompare/fakekotak.ts &
 *   bench/driver/bin/kotak-bench inbound -base http://127.0.0.1:9102 -channels ws:1,conv:1 \
 *     -channel-key k -conversations c1 -rate 200 -duration 10s -sockets 1000 -hosts 127.0.0.1,127.0.0.2
 */
const port = Number(process.env.PORT ?? 9102)
let cursor = 0
let seq = 0
const frame = (event: string, data: unknown) => {
  cursor += 1
  const payload = JSON.stringify({ event, data, at: new Date().toISOString() })
  return `{"cursor":"ep1.${cursor}",${payload.slice(1)}`
}
const app = uws.App()
const sockets = new Set<uws.WebSocket<unknown>>()
app
  .ws('/v1/realtime', {
    idleTimeout: 60,
    maxBackpressure: 64 * 1024 * 1024,
    open: (ws) => {
      sockets.add(ws)
    },
    close: (ws) => {
      sockets.delete(ws)
    },
    message: (ws, msg) => {
      const f = JSON.parse(Buffer.from(msg).toString())
      if (f.op === 'subscribe') {
        ws.subscribe(f.channel)
        ws.send(JSON.stringify({ op: 'subscribed', channel: f.channel, ref: f.ref }))
      }
    },
  })
  .post('/v1/realtime/token', (res) => {
    res.onAborted(() => {})
    res.onData(() => {})
    res.writeStatus('200 OK').end('{"data":{"token":"t"}}')
  })
  .post('/v1/channel-api/messages', (res) => {
    let body = ''
    res.onAborted(() => {})
    res.onData((chunk, last) => {
      body += Buffer.from(chunk).toString()
      if (!last) return
      const text = JSON.parse(body).message.text as string
      seq += 1
      const m = {
        id: 1000 + seq,
        interaction_id: 1,
        seq,
        direction: 'in',
        type: 'text',
        body: text,
        media: null,
        reply_to: null,
        sender: { type: 'contact', id: 5, name: 'Bench customer' },
        status: 'received',
        external_id: `m-${seq}`,
        created_at: new Date().toISOString(),
        edited_at: null,
        deleted_at: null,
        reactions: [],
        payload: {},
      }
      app.publish('conv:1', frame('message.created', m), false)
      app.publish(
        'ws:1',
        frame('inbox.changed', { interaction_id: 1, channel_id: 3, reason: 'message' }),
        false,
      )
      if (process.env.KICK && seq % 50 === 0) {
        const w = sockets.values().next().value
        if (w) w.end(4008, 'slow_consumer')
      }
      res.cork(() => res.writeStatus('201 Created').end(JSON.stringify({ data: { interaction_id: 1 } })))
    })
  })
  .listen('0.0.0.0', port, (token) => {
    if (!token) process.exit(1)
    process.stdout.write(`fake listening on ${port}\n`)
  })
