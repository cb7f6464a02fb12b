// Holds idle TCP connections to a server for test/http/conformance.test.ts, in a process of its
// own so the test process (which hosts the server) keeps only the server's side of each
// connection within the per-process file limit.
//
//   node test/support/idleSockets.mjs <port> <count>
//
// Opens <count> connections to 127.0.0.1:<port> in batches (a burst larger than the listen
// backlog would have its SYNs dropped and retried a second later), then prints one JSON line
// {"opened", "failed", "ms"}. A line "close" on stdin closes them all, prints
// {"closedByServer"} (how many the server had closed meanwhile) and exits.
import * as net from 'node:net'
import * as readline from 'node:readline'

const port = Number(process.argv[2])
const count = Number(process.argv[3])
const BATCH = 250
const sockets = []
let closedByServer = 0
let closing = false
let failed = 0

const open = () =>
  new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1')
    s.on('connect', () => {
      sockets.push(s)
      resolve()
    })
    s.on('error', () => {
      failed++
      resolve()
    })
    s.on('close', () => {
      if (!closing) closedByServer++
    })
  })

const started = Date.now()
for (let i = 0; i < count; i += BATCH) {
  await Promise.all(Array.from({ length: Math.min(BATCH, count - i) }, open))
}
process.stdout.write(`${JSON.stringify({ opened: sockets.length, failed, ms: Date.now() - started })}\n`)

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'close') return
  closing = true
  const before = closedByServer
  for (const s of sockets) s.destroy()
  process.stdout.write(`${JSON.stringify({ closedByServer: before })}\n`)
  process.exit(0)
})
