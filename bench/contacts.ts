/**
 * The contacts CSV import and export at 100,000 rows, over HTTP against a running node (in this
 * process), as an admin's browser would call them:
 *
 *   DATABASE_URL=postgres://… npx tsx bench/contacts.ts [rows]   (a fresh database, dropped after)
 *   npx tsx bench/contacts.ts [rows]                              (the embedded database)
 *
 * Measures the first import (all created), the same file again (all matched: nothing created or
 * changed), and the export of everything; rows/s for each and the process's peak RSS (sampled
 * every 20 ms, and the kernel's `maxRSS`). Writes bench/results/contacts.json and .md.
 */

import { execSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Effect } from 'effect'
import { loadConfig } from '../engine/config.js'
import { makeLogger } from '../engine/log.js'
import { start } from '../http/app.js'
import * as Sessions from '../store/sessions.js'
import * as Workspaces from '../store/workspaces.js'
import { freshDatabase } from '../test/support/server.js'

const ROWS = Number(process.argv[2] ?? 100_000)
const TARGET_SECONDS = 60

const csvOf = (n: number) => {
  const lines = ['name,phone,email,company,city,labels,member']
  for (let i = 0; i < n; i++) {
    const phone = `0812${String(10_000_000 + i).padStart(8, '0')}`
    lines.push(
      `Pelanggan ${i},${phone},pelanggan${i}@example.com,"PT Contoh ${i % 500}, Tbk",Kota ${i % 97},${i % 10 === 0 ? 'VIP' : ''},${i % 3 === 0 ? 'Gold' : 'Silver'}`,
    )
  }
  return Buffer.from(`\uFEFF${lines.join('\n')}\n`)
}

const main = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kotak-bench-contacts-'))
  const adminUrl = process.env.DATABASE_URL
  const db = adminUrl ? await freshDatabase(adminUrl) : undefined
  const cfg = loadConfig({
    DATA_DIR: dir,
    LOG_LEVEL: 'error',
    HOST: '127.0.0.1',
    PORT: '0',
    ...(db ? { DATABASE_URL: db.url } : {}),
  })
  const app = await start(cfg, {
    logger: makeLogger('error'),
    ...(db ? {} : { database: { url: undefined, dataDir: 'memory', socketDir: dir } }),
  })
  let peak = process.memoryUsage().rss
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 20)
  try {
    const token = await app.run(
      Effect.gen(function* () {
        const { user } = yield* Workspaces.create({
          name: 'Bench',
          timezone: 'Asia/Jakarta',
          plan: 'pro',
          proUntil: null,
          owner: { email: `owner-${Date.now()}@example.com`, name: 'Owner' },
        })
        return yield* Sessions.createLoginLink(user.id, 5)
      }),
    )
    const link = await fetch(`${app.url}/auth/link/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    const cookies = link.headers.getSetCookie().map((c) => c.split(';')[0]!)
    const csrf = cookies.find((c) => c.startsWith('kotak_csrf='))!.split('=')[1]!
    const headers = { cookie: cookies.join('; '), 'x-csrf-token': csrf }
    const field = await fetch(`${app.url}/v1/contact-fields`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'Member', type: 'select', options: ['Gold', 'Silver'] }),
    })
    if (field.status !== 201) throw new Error(`custom field: ${field.status}`)
    const file = csvOf(ROWS)
    const upload = async () => {
      const fd = new FormData()
      fd.append('file', new Blob([file], { type: 'text/csv' }), 'contacts.csv')
      const t0 = performance.now()
      const res = await fetch(`${app.url}/v1/contacts/import`, { method: 'POST', headers, body: fd })
      const body = (await res.json()) as { data?: Record<string, unknown>; error?: unknown }
      const seconds = (performance.now() - t0) / 1000
      if (res.status !== 200) throw new Error(`import ${res.status}: ${JSON.stringify(body.error)}`)
      return { seconds, rows_per_second: Math.round(ROWS / seconds), result: body.data }
    }
    const rssBefore = process.memoryUsage().rss
    const first = await upload()
    const peakFirst = peak
    const second = await upload()
    const t0 = performance.now()
    const res = await fetch(`${app.url}/v1/contacts/export`, { headers })
    let bytes = 0
    let lines = 0
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength
      for (const b of chunk) if (b === 0x0a) lines++
    }
    const exportSeconds = (performance.now() - t0) / 1000
    if (res.status !== 200 || lines !== ROWS + 1) throw new Error(`export ${res.status}, ${lines} lines`)
    const mb = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10
    const commit = (() => {
      try {
        return execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim()
      } catch {
        return 'unknown'
      }
    })()
    const report = {
      at: new Date().toISOString(),
      commit,
      cores: os.cpus().length,
      database: db ? 'postgres' : 'embedded',
      rows: ROWS,
      file_mb: mb(file.byteLength),
      import_first: {
        seconds: Math.round(first.seconds * 100) / 100,
        rows_per_second: first.rows_per_second,
        result: first.result,
      },
      import_again: {
        seconds: Math.round(second.seconds * 100) / 100,
        rows_per_second: second.rows_per_second,
        result: second.result,
      },
      export: {
        seconds: Math.round(exportSeconds * 100) / 100,
        rows_per_second: Math.round(ROWS / exportSeconds),
        mb: mb(bytes),
      },
      rss_mb: {
        before: mb(rssBefore),
        peak_first_import: mb(peakFirst),
        peak: mb(peak),
        max_rss_kernel: mb(process.resourceUsage().maxRSS * 1024),
      },
      target: `${ROWS} rows imported in under ${TARGET_SECONDS} s`,
      met: first.seconds < TARGET_SECONDS,
    }
    const out = path.join(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), 'results')
    fs.mkdirSync(out, { recursive: true })
    fs.writeFileSync(path.join(out, 'contacts.json'), `${JSON.stringify(report, null, 2)}\n`)
    fs.writeFileSync(
      path.join(out, 'contacts.md'),
      `# contacts\n\n${report.at} · commit ${commit} · ${report.cores} cores · ${report.database} database (server and client in one process)\n\n` +
        `${ROWS} rows, ${report.file_mb} MB CSV (UTF-8 with BOM, one select custom field, labels).\n\n` +
        '| step | seconds | rows/s |\n| --- | --- | --- |\n' +
        `| import (all created) | ${report.import_first.seconds} | ${report.import_first.rows_per_second} |\n` +
        `| same file again (all matched, unchanged) | ${report.import_again.seconds} | ${report.import_again.rows_per_second} |\n` +
        `| export (${report.export.mb} MB) | ${report.export.seconds} | ${report.export.rows_per_second} |\n\n` +
        `Peak RSS: ${report.rss_mb.peak} MB sampled (${report.rss_mb.before} MB before the first import, ${report.rss_mb.peak_first_import} MB during it); kernel maxRSS ${report.rss_mb.max_rss_kernel} MB. ` +
        `Target ${report.target}: ${report.met ? 'met' : 'missed'}.\n`,
    )
    console.log(JSON.stringify(report, null, 2))
  } finally {
    clearInterval(sampler)
    await app.stop()
    await db?.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
