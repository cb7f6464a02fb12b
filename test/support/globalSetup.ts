import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { missingLine, missingPackages } from './systemPackages'
import { makeTemplate } from './template'

const root = path.resolve(__dirname, '../..')
const lock = path.join(root, '.build.lock')
/** A lock older than this belongs to a build that died. */
const STALE_MS = 5 * 60_000

/** Two runs in one checkout (two people, two terminals) build one after the other, not over each other. */
const underLock = (build: () => void) => {
  const sleeper = new Int32Array(new SharedArrayBuffer(4))
  for (;;) {
    try {
      fs.mkdirSync(lock)
      break
    } catch {
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
      if (age > STALE_MS) fs.rmSync(lock, { recursive: true, force: true })
      else Atomics.wait(sleeper, 0, 0, 200)
    }
  }
  try {
    build()
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
}

/**
 * Runs once per vitest run: builds dist/ (what `npm start` and the CLIs run; suites that start
 * them as child processes use it, so they test the current code compiled), prints one line
 * when suites will skip for a missing Debian package, and makes the migrated database test
 * servers start from (template.ts; removed when the run ends).
 */
export default async function setup() {
  underLock(() => execFileSync(process.execPath, ['build.mjs'], { cwd: root, stdio: 'inherit' }))
  const missing = missingPackages()
  if (missing.length > 0) console.warn(missingLine(missing))
  return await makeTemplate()
}
