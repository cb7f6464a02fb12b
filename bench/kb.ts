/**
 * Knowledge base keyword search on 10,000 articles, over HTTP against a node in this process:
 *
 *   DATABASE_URL=postgres://… npx tsx bench/kb.ts [articles]   (a fresh database, dropped after)
 *   npx tsx bench/kb.ts [articles]                              (the embedded database)
 *   npx tsx bench/kb.ts --smoke                                 (500 articles, a few runs: does it work)
 *
 * Articles mix English and Indonesian words from a fixed vocabulary (about 120 words a body). Each
 * query shape runs `RUNS` times through `GET /v1/kb/search` (keyword) and `GET /v1/kb/articles?q=`,
 * reporting p50/p95 ms and the hit counts; for comparison, the same every-word match as a plain
 * `ILIKE` scan (no index), which is what trigram or substring search would have to beat. Writes
 * bench/results/kb.json and .md (not in smoke runs).
 */

import { execSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { loadConfig } from '../engine/config.js'
import { makeLogger } from '../engine/log.js'
import { start } from '../http/app.js'
import * as ApiKeys from '../store/apiKeys.js'
import * as Articles from '../store/kbArticles.js'
import * as Workspaces from '../store/workspaces.js'
import { freshDatabase } from '../test/support/server.js'

const smoke = process.argv.includes('--smoke')
const N = smoke ? 500 : Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 10_000)
const RUNS = smoke ? 3 : 40

const WORDS = (
  'refund payment invoice shipping courier parcel password account login order delivery cancel ' +
  'return warranty discount voucher subscription plan upgrade billing receipt address phone email ' +
  'pengembalian dana pembayaran tagihan pengiriman kurir paket sandi akun masuk pesanan batal ' +
  'garansi diskon langganan paket alamat telepon surel toko cabang jam buka tutup libur harga ' +
  'customer agent team support ticket chat message reply template store branch hours open close'
).split(' ')

/** A deterministic pseudo-random generator, so every run loads the same articles. */
const rng = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff
  return seed / 0x7fffffff
}

const QUERIES: ReadonlyArray<[string, string]> = [
  ['one common word', 'refund'],
  ['two words', 'refund courier'],
  ['three words, mixed languages', 'pengembalian dana courier'],
  ['prefix', 'deliv'],
  ['rare combination', 'warranty voucher libur telepon'],
  ['no match', 'zebra'],
]

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10
}

const main = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kotak-bench-kb-'))
  const adminUrl = process.env.DATABASE_URL
  const db = adminUrl ? await freshDatabase(adminUrl) : undefined
  const cfg = loadConfig({
    DATA_DIR: dir,
    LOG_LEVEL: 'error',
    HOST: '127.0.0.1',
    PORT: '0',
    RATE_LIMIT_PER_KEY: '100000000',
    ...(db ? { DATABASE_URL: db.url } : {}),
  })
  const app = await start(cfg, {
    logger: makeLogger('error'),
    ...(db ? {} : { database: { url: undefined, dataDir: 'memory', socketDir: dir } }),
  })
  try {
    const next = rng(20261125)
    const pick = (n: number) =>
      Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]!).join(' ')
    const t0 = performance.now()
    const { key, workspaceId } = await app.run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { workspace, user } = yield* Workspaces.create({
          name: 'Bench',
          timezone: 'Asia/Jakarta',
          plan: 'pro',
          proUntil: null,
          owner: { email: `owner-${Date.now()}@example.com`, name: 'Owner' },
        })
        for (let i = 0; i < N; i += 500) {
          const rows = Array.from({ length: Math.min(500, N - i) }, () => ({
            workspace_id: workspace.id,
            title: pick(4),
            body: Array.from({ length: 6 }, () => `${pick(20)}.`).join(' '),
            status: 'published',
          }))
          yield* sql`INSERT INTO kb_articles ${sql.insert(rows)}`
        }
        yield* Articles.reindexWorkspace(workspace.id)
        yield* sql`ANALYZE kb_articles`
        const k = yield* ApiKeys.create(workspace.id, user.id, 'bench', 'read')
        return { key: k.key, workspaceId: workspace.id }
      }),
    )
    const loadSeconds = Math.round((performance.now() - t0) / 100) / 10
    const headers = { authorization: `Bearer ${key}` }
    const time = async (url: string) => {
      const ms: number[] = []
      let hits = 0
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now()
        const res = await fetch(`${app.url}${url}`, { headers })
        const body = (await res.json()) as { data: unknown[]; meta?: { total?: number } }
        ms.push(performance.now() - t)
        if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`)
        hits = body.meta?.total ?? body.data.length
      }
      return { p50_ms: pct(ms, 50), p95_ms: pct(ms, 95), hits }
    }
    const scan = async (q: string) => {
      const words = q.split(' ')
      const ms: number[] = []
      let hits = 0
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now()
        hits = await app.run(
          Effect.flatMap(SqlClient.SqlClient, (sql) =>
            Effect.map(
              sql<{ n: number }>`SELECT count(*)::int AS n FROM kb_articles
                WHERE workspace_id = ${workspaceId} AND ${sql.and(
                  words.map((w) => sql`(title || ' ' || body) ILIKE ${`%${w}%`}`),
                )}`,
              (r) => r[0]!.n,
            ),
          ),
        )
        ms.push(performance.now() - t)
      }
      return { p50_ms: pct(ms, 50), p95_ms: pct(ms, 95), hits }
    }
    const results: Record<string, unknown> = {}
    for (const [name, q] of QUERIES) {
      results[name] = {
        q,
        search: await time(`/v1/kb/search?q=${encodeURIComponent(q)}&limit=20`),
        list: await time(`/v1/kb/articles?q=${encodeURIComponent(q)}&per_page=25`),
        ilike_scan: await scan(q),
      }
    }
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
      articles: N,
      runs: RUNS,
      load_seconds: loadSeconds,
      queries: results,
    }
    console.log(JSON.stringify(report, null, 2))
    if (!smoke) {
      const out = path.join(import.meta.dirname, 'results')
      const name = `kb-${report.database}`
      fs.writeFileSync(path.join(out, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`)
      const lines = [
        `# Knowledge base keyword search: ${N} articles, ${report.database} (${report.cores} cores, ${commit})`,
        '',
        '| query | hits | search p50 / p95 ms | list p50 / p95 ms | ILIKE scan p50 / p95 ms |',
        '| --- | --- | --- | --- | --- |',
        ...Object.entries(results).map(([k, v]) => {
          const r = v as Record<string, { p50_ms: number; p95_ms: number; hits: number }> & { q: string }
          return `| ${k} (\`${r.q}\`) | ${r.list.hits} | ${r.search.p50_ms} / ${r.search.p95_ms} | ${r.list.p50_ms} / ${r.list.p95_ms} | ${r.ilike_scan.p50_ms} / ${r.ilike_scan.p95_ms} |`
        }),
        '',
      ]
      fs.writeFileSync(path.join(out, `${name}.md`), lines.join('\n'))
    }
  } finally {
    await app.stop()
    await db?.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e)
    process.exit(1)
  },
)
