/**
 * TCP proxies on 127.0.0.1 whose links can be cut and restored, in a process of their own
 * (bench/failover.ts starts it): in the bench's process every query of the nodes would wait behind
 * the client's work, and a client resending during an outage would slow the very links it waits on.
 *
 *   node --import tsx bench/tcpProxy.ts 40001:5432 40002:6379 …   (listen:target pairs)
 *
 * Commands on stdin, one a line: `cut <listen port>` resets the link's open connections (RST, not
 * a polite close) and refuses new ones; `restore <listen port>` listens again on the same port.
 * Each is answered on stdout with `ok <command>` once done; `ready` when every proxy listens.
 */
import * as net from 'node:net'
import * as readline from 'node:readline'

const proxy = (port: number, target: number) => {
  const open = new Set<net.Socket>()
  let server: net.Server | undefined
  const pair = (client: net.Socket) => {
    const upstream = net.connect(target, '127.0.0.1')
    client.setNoDelay(true)
    upstream.setNoDelay(true)
    for (const s of [client, upstream]) {
      open.add(s)
      // Either side gone (upstream refused, Redis killed) ends the pair: the node sees its link drop.
      s.once('close', () => {
        open.delete(s)
        client.destroy()
        upstream.destroy()
      })
      s.on('error', () => undefined)
    }
    client.pipe(upstream).pipe(client)
  }
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer(pair)
      s.once('error', reject)
      s.listen(port, '127.0.0.1', () => {
        server = s
        resolve()
      })
    })
  const cut = () =>
    new Promise<void>((resolve) => {
      const s = server
      server = undefined
      for (const sock of open) sock.resetAndDestroy()
      if (s) s.close(() => resolve())
      else resolve()
    })
  return { listen, cut }
}

const main = async () => {
  const proxies = new Map<number, ReturnType<typeof proxy>>()
  for (const arg of process.argv.slice(2)) {
    const [listen, target] = arg.split(':').map(Number)
    if (!listen || !target) throw new Error(`not a listen:target pair: ${arg}`)
    const p = proxy(listen, target)
    await p.listen()
    proxies.set(listen, p)
  }
  process.stdout.write('ready\n')
  for await (const line of readline.createInterface({ input: process.stdin })) {
    const [command, port] = line.trim().split(' ')
    const p = proxies.get(Number(port))
    if (!p || (command !== 'cut' && command !== 'restore')) throw new Error(`unknown command: ${line}`)
    await (command === 'cut' ? p.cut() : p.listen())
    process.stdout.write(`ok ${line.trim()}\n`)
  }
}

// stdin closed (the bench ended, or died): nothing left to do.
main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`tcpProxy: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(1)
  },
)
