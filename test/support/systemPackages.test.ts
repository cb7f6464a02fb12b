import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, it } from 'vitest'
import { missingLine, type SystemPackage } from './systemPackages'

/**
 * `npm test` must pass on a machine without Chromium, Dovecot or Prometheus (issue 18): every suite that
 * drives one skips through the shared check, and `npm test` tries to install them first.
 */
const root = path.resolve(__dirname, '../..')
const testFiles = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    return e.isDirectory() ? testFiles(p) : p.endsWith('.test.ts') ? [p] : []
  })

const drivers: ReadonlyArray<readonly [SystemPackage, RegExp]> = [
  ['dovecot-imapd', /\b(startDovecot|startMailWorld)\(/],
  ['chromium', /\bchromium\.launch\(/],
  ['prometheus', /\bstartPrometheus\(/],
]

it('skips every suite that drives Chromium, Dovecot or Prometheus when the package is missing', () => {
  const unguarded: string[] = []
  let drivingFiles = 0
  for (const file of testFiles(path.join(root, 'test'))) {
    const text = fs.readFileSync(file, 'utf8')
    for (const [pkg, uses] of drivers) {
      if (!uses.test(text)) continue
      drivingFiles++
      if (!text.includes(`lacks('${pkg}')`)) unguarded.push(`${path.relative(root, file)} (${pkg})`)
    }
  }
  expect(drivingFiles).toBeGreaterThanOrEqual(7)
  expect(unguarded).toEqual([])
})

it('runs the provisioning step before the tests and names what to install', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>
  }
  expect(pkg.scripts.pretest).toBe('tsx test/support/provision.ts')
  expect(missingLine(['chromium', 'dovecot-imapd'])).toContain('apt-get install -y chromium dovecot-imapd')
})
