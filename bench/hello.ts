import uws from 'uWebSockets.js'

/** The physical limit of this stack: a bare uWebSockets.js server answering a small JSON body. */
const port = Number(process.env.PORT ?? 9001)
const body = JSON.stringify({ data: { hello: 'world' } })
uws
  .App()
  .get('/*', (res) => {
    res.cork(() => {
      res.writeHeader('Content-Type', 'application/json').end(body)
    })
  })
  .listen('0.0.0.0', port, (token) => {
    if (!token) {
      process.stderr.write(`cannot listen on ${port}\n`)
      process.exit(1)
    }
    process.stdout.write(`hello listening on ${port}\n`)
  })
