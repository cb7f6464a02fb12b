// Ramp idle agent sockets: each VU fetches a real-time token, then opens SOCKETS_PER_VU sockets
// subscribed to its workspace channel and holds them (the server pings; clients answer).
// Env: BASE (http://host:port), COOKIE, CSRF, WORKSPACE, VUS, SOCKETS_PER_VU, HOLD_S, HOSTS (comma
// separated loopback addresses, so connections spread over more than one address's ports).

import { sleep } from 'k6'
import http from 'k6/http'
import { Counter } from 'k6/metrics'
import { setTimeout } from 'k6/timers'
import { WebSocket } from 'k6/websockets'

const opened = new Counter('sockets_opened')
const failed = new Counter('sockets_failed')
const subscribed = new Counter('sockets_subscribed')

const vus = Number(__ENV.VUS || 100)
export const options = {
  scenarios: {
    ramp: {
      executor: 'per-vu-iterations',
      vus,
      iterations: 1,
      maxDuration: `${Number(__ENV.HOLD_S || 60) + Number(__ENV.RAMP_S || 40) + 120}s`,
    },
  },
}

export default function () {
  // A ramp, not a stampede: VUs start spread over RAMP_S seconds.
  sleep(((__VU - 1) % vus) * (Number(__ENV.RAMP_S || 40) / vus))
  const hosts = (__ENV.HOSTS || '127.0.0.1').split(',')
  const res = http.post(
    `${__ENV.BASE}/v1/realtime/token`,
    JSON.stringify({ channels: [`ws:${__ENV.WORKSPACE}`] }),
    {
      headers: { 'Content-Type': 'application/json', Cookie: __ENV.COOKIE, 'X-CSRF-Token': __ENV.CSRF },
    },
  )
  if (res.status !== 200) {
    failed.add(Number(__ENV.SOCKETS_PER_VU || 100))
    return
  }
  const token = res.json('data.token')
  const port = __ENV.BASE.split(':').pop()
  const per = Number(__ENV.SOCKETS_PER_VU || 100)
  const host = hosts[(__VU - 1) % hosts.length]
  for (let i = 0; i < per; i++) {
    setTimeout(() => openOne(host, port, token), i * 20)
  }
}

function openOne(host, port, token) {
  const ws = new WebSocket(`ws://${host}:${port}/v1/realtime?token=${token}`)
  ws.onopen = () => opened.add(1)
  ws.onmessage = (e) => {
    if (String(e.data).includes('"subscribed"')) subscribed.add(1)
  }
  ws.onerror = () => failed.add(1)
  setTimeout(() => ws.close(), Number(__ENV.HOLD_S || 60) * 1000)
}
