#!/usr/bin/env node
// `npx kotak …`: the operator CLI, compiled (dist/cli.js, built by `npm install`; `npm run build`
// after changing the code), in this process with source-mapped stack traces.
import { existsSync } from 'node:fs'

const cli = new URL('../dist/cli.js', import.meta.url)
if (!existsSync(cli)) {
  process.stderr.write('kotak: dist/cli.js is missing; run `npm run build` (npm install runs it)\n')
  process.exit(1)
}
process.setSourceMapsEnabled(true)
await import(cli.href)
