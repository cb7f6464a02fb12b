// Inbound storm (and fan-out): agent sockets subscribed to a workspace's conversations while
// customer systems post inbound messages to POST /v1/channel-api/messages at a fixed arrival rate.
// Each message's text carries the time it was posted, so a socket receiving `message.created`
// measures POST → delivery latency on the same clock (k6 and the server share the machine).
// Env: BASE, WS_URL (ws://…/v1/realtime?token=…, already subscribed to the conversations),
// CHANNEL_KEY, CONVERSATIONS (comma-separated external ids), AGENT_VUS, SOCKETS_PER_VU, RATE,
// DURATION_S, SETTLE_S, SENDER_VUS, HOSTS.

import exec from 'k6/execution'
import http from 'k6/http'
import { Counter, Trend } from 'k6/metrics'
import { setTimeout } from 'k6/timers'
import { WebSocket } from 'k6/websockets'

const accepted = new Counter('messages_accepted')
const refused = new Counter('messages_refused')
const delivered = new Counter('deliveries')
const deliveryMs = new Trend('delivery_ms', true)
const socketsOpen = new Counter('sockets_opened')
const socketsFailed = new Counter('sockets_failed')
// Closed by the server as a slow consumer (4008): a real client reconnects and replays from its
// cursor; this one does not, so what it missed counts as lost.
const socketsSlow = new Counter('sockets_closed_slow')

const duration = Number(__ENV.DURATION_S || 20)
const settle = Number(__ENV.SETTLE_S || 8)
const conversations = (__ENV.CONVERSATIONS || '').split(',')
// Senders start once every socket is open and subscribed.
const warmup = Number(__ENV.WARMUP_S || 6)

export const options = {
  discardResponseBodies: true,
  summaryTrendStats: ['avg', 'med', 'p(90)', 'p(99)', 'max'],
  scenarios: {
    agents: {
      executor: 'per-vu-iterations',
      exec: 'agent',
      vus: Number(__ENV.AGENT_VUS || 10),
      iterations: 1,
      maxDuration: `${warmup + duration + settle + 30}s`,
    },
    senders: {
      executor: 'constant-arrival-rate',
      exec: 'send',
      rate: Number(__ENV.RATE || 1000),
      timeUnit: '1s',
      duration: `${duration}s`,
      startTime: `${warmup}s`,
      preAllocatedVUs: Number(__ENV.SENDER_VUS || 200),
      maxVUs: Number(__ENV.SENDER_VUS || 200),
    },
  },
}

const body = (i) =>
  JSON.stringify({
    conversation_id: conversations[i % conversations.length],
    contact: { id: `c-${i % conversations.length}`, name: 'Bench customer' },
    message: { id: `m-${i}-${Date.now()}`, text: `t=${Date.now()}` },
  })

const params = {
  headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${__ENV.CHANNEL_KEY}` },
  responseType: 'none',
}

export function send() {
  // Unique across all sender VUs, so consecutive messages go to different conversations.
  const res = http.post(`${__ENV.BASE}/v1/channel-api/messages`, body(exec.scenario.iterationInTest), params)
  if (res.status === 201) accepted.add(1)
  else refused.add(1)
}

const stamp = /"body":"t=(\d+)"/

export function agent() {
  const hosts = (__ENV.HOSTS || '127.0.0.1').split(',')
  const host = hosts[(__VU - 1) % hosts.length]
  const url = __ENV.WS_URL.replace('127.0.0.1', host)
  const per = Number(__ENV.SOCKETS_PER_VU || 1)
  for (let i = 0; i < per; i++) setTimeout(() => openOne(url), i * 10)
}

function openOne(url) {
  const ws = new WebSocket(url)
  ws.onopen = () => socketsOpen.add(1)
  ws.onerror = () => socketsFailed.add(1)
  ws.onclose = (e) => {
    if (e.code === 4008) socketsSlow.add(1)
  }
  ws.onmessage = (e) => {
    const text = String(e.data)
    if (text.indexOf('"event":"message.created"') < 0) return
    const m = stamp.exec(text)
    if (!m) return
    delivered.add(1)
    deliveryMs.add(Date.now() - Number(m[1]))
  }
  setTimeout(() => ws.close(), (warmup + duration + settle) * 1000)
}
