import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'

/**
 * The Debian packages some suites drive, and the one check of whether this machine has them.
 * `npm test` runs test/support/provision.ts first, which installs what is missing when it can
 * (root and apt-get); vitest's global setup (test/support/globalSetup.ts) then says in one line
 * what is still missing; and each suite that needs a package skips without it:
 * `describe.skipIf(lacks('dovecot-imapd'))(…)`.
 */
export const SYSTEM_PACKAGES = {
  chromium: {
    binary: '/usr/bin/chromium',
    usedBy: 'the live-chat widget end to end (test/livechat/widget.e2e.test.ts)',
  },
  'dovecot-imapd': {
    binary: '/usr/sbin/dovecot',
    usedBy: 'the e-mail connector against a real IMAP server (test/email)',
  },
  prometheus: {
    binary: '/usr/bin/prometheus',
    usedBy: "the operators' alert rules and dashboard against a real Prometheus (test/ops)",
  },
} as const

export type SystemPackage = keyof typeof SYSTEM_PACKAGES

const userExists = (name: string) => {
  try {
    execFileSync('id', ['-u', name], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

export const has = (pkg: SystemPackage): boolean => {
  if (!fs.existsSync(SYSTEM_PACKAGES[pkg].binary)) return false
  // As root, Dovecot's login processes run as the users its package creates (test/email/dovecot.ts).
  if (pkg === 'dovecot-imapd' && process.getuid?.() === 0)
    return userExists('dovecot') && userExists('dovenull')
  return true
}

export const lacks = (pkg: SystemPackage): boolean => !has(pkg)

export const missingPackages = (): SystemPackage[] =>
  (Object.keys(SYSTEM_PACKAGES) as SystemPackage[]).filter(lacks)

/** The one line that says what is missing, what skips, and how to install it. */
export const missingLine = (missing: readonly SystemPackage[]): string =>
  `⚠ SKIPPING ${missing.map((p) => SYSTEM_PACKAGES[p].usedBy).join(' and ')}: ` +
  `install the Debian package${missing.length > 1 ? 's' : ''} with ` +
  `\`sudo apt-get install -y ${missing.join(' ')}\` (npm test installs them itself when run as root).`
