import { execFileSync } from 'node:child_process'
import * as path from 'node:path'
import { missingLine, missingPackages } from './systemPackages'

/**
 * Runs once per vitest run: builds dist/ (what `npm start` and the CLIs run; suites that start
 * them as child processes use it, so they test the current code compiled), and prints one line
 * when suites will skip for a missing Debian package.
 */
export default function setup() {
  execFileSync(process.execPath, ['build.mjs'], { cwd: path.resolve(__dirname, '../..'), stdio: 'inherit' })
  const missing = missingPackages()
  if (missing.length > 0) console.warn(missingLine(missing))
}
