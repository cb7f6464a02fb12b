#!/usr/bin/env node
// The npm registry reachable here lacks some packages' binaries for other platforms (darwin,
// win32, musl, …). npm then leaves them out of package-lock.json, and `npm ci` refuses the lock as
// "out of sync". This adds each missing optional platform package to the lock with its version and
// os/cpu/libc restrictions, which is what npm itself records; npm skips them on this platform, so
// nothing is fetched. It changes nothing when the lock is already complete.
import { readFileSync, writeFileSync } from 'node:fs'

const file = new URL('../package-lock.json', import.meta.url)
const lock = JSON.parse(readFileSync(file, 'utf8'))
const oses = ['android', 'darwin', 'win32', 'freebsd', 'openbsd', 'openharmony', 'linux', 'sunos', 'aix']
const cpus = ['arm64', 'x64', 'ia32', 'arm', 'loong64', 'ppc64', 'riscv64', 's390x']

const platformOf = (name) => {
  const tail = name.split('/').pop()
  const os = oses.find((o) => tail.includes(`-${o}-`) || tail.endsWith(`-${o}`))
  const cpu = cpus.find((c) => new RegExp(`-${c}(-|$)`).test(tail))
  if (!os || !cpu) return null
  return { os: [os], cpu: [cpu], ...(tail.includes('musl') ? { libc: ['musl'] } : {}) }
}

let added = 0
for (const [path, pkg] of Object.entries(lock.packages)) {
  for (const [dep, range] of Object.entries(pkg.optionalDependencies ?? {})) {
    const at = `${path ? `${path}/` : ''}node_modules/${dep}`
    const hoisted = `node_modules/${dep}`
    if (lock.packages[at] || lock.packages[hoisted]) continue
    const platform = platformOf(dep)
    if (!platform || !/^\d+\.\d+\.\d+$/.test(range)) continue
    lock.packages[hoisted] = {
      version: range,
      ...(pkg.dev ? { dev: true } : {}),
      optional: true,
      ...platform,
    }
    added++
  }
}
if (added > 0) {
  lock.packages = Object.fromEntries(
    Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
  )
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`)
}
console.log(`lock-platform-stubs: ${added} platform package(s) recorded`)
