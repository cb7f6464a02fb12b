import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { missingPackages } from './systemPackages'

/**
 * `npm test`'s pretest step: installs the Debian packages the suites drive (Chromium, Dovecot,
 * Prometheus) when they are missing and this process may (root, apt-get present,
 * KOTAK_TEST_PROVISION not 0), as `.ci/run` does. It never fails the run: whatever is still missing makes its suites skip, and
 * vitest's global setup says so in one line.
 */
const missing = missingPackages()
const root = process.getuid?.() === 0
const allowed = process.env.KOTAK_TEST_PROVISION !== '0'
if (missing.length > 0 && root && allowed && fs.existsSync('/usr/bin/apt-get')) {
  console.log(`Installing the Debian packages the test suites need: ${missing.join(' ')} (apt-get)`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const run = (args: readonly string[]) => spawnSync('apt-get', args, { stdio: 'inherit', env }).status === 0
  if (!(run(['update', '-qq']) && run(['install', '-y', '-qq', ...missing]))) {
    console.log('apt-get could not install them; the suites that need them will be skipped.')
  }
}
