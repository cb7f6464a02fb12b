#!/usr/bin/env node
// `npx kotak …`: runs the operator CLI (cli.ts) through tsx, with the caller's arguments and exit code.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const tsx = createRequire(import.meta.url).resolve('tsx')
const result = spawnSync(
  process.execPath,
  ['--import', tsx, join(root, 'cli.ts'), ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
)
process.exit(result.status ?? 1)
