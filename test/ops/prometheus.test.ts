import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import YAML from 'yaml'
import * as Conversations from '../../store/conversations'
import { startCluster, type TestCluster, waitFor, waitSettled } from '../support/cluster'
import * as F from '../support/fixtures'
import { type QueryAnswer, startPrometheus, type TestPrometheus } from '../support/prometheus'
import { lacks } from '../support/systemPackages'

/**
 * The operators' files (issue 48): `ops/prometheus/kotak.rules.yml` and `ops/grafana/kotak.json`.
 * `promtool` checks the rules and runs their unit tests; then, with PostgreSQL and Redis, a real
 * Prometheus scrapes a two-node cluster, and every rule expression and every dashboard query runs
 * through its query API: each must parse and evaluate, every metric and label it names must be
 * exported by the nodes, and every dashboard query must return series.
 */
const root = path.resolve(__dirname, '../..')
const RULES = path.join(root, 'ops/prometheus/kotak.rules.yml')
const RULE_TESTS = path.join(root, 'ops/prometheus/kotak.rules.test.yml')
const DASHBOARD = path.join(root, 'ops/grafana/kotak.json')
const PROMTOOL = '/usr/bin/promtool'

interface Rule {
  readonly alert: string
  readonly expr: string
}
const rules = (): Rule[] =>
  (YAML.parse(fs.readFileSync(RULES, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap(
    (g) => g.rules,
  )

interface Panel {
  readonly title: string
  readonly type: string
  readonly targets?: ReadonlyArray<{ readonly expr: string }>
}
interface Dashboard {
  readonly panels: readonly Panel[]
  readonly annotations: { readonly list: ReadonlyArray<{ readonly expr?: string }> }
  readonly templating: {
    readonly list: ReadonlyArray<{ readonly name: string; readonly definition?: string }>
  }
}
const dashboard = (): Dashboard => JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as Dashboard

/** A dashboard query as Grafana sends it, for "All" nodes and a one-minute rate window. */
const asSent = (expr: string) => expr.replaceAll('$__rate_interval', '1m').replaceAll('$instance', '.*')

/** The metric names an expression reads (`kotak_…` and Prometheus's own `up`). */
const metricsOf = (expr: string): string[] => [
  ...new Set([...expr.replace(/"[^"]*"/g, '""').matchAll(/\b(kotak_[a-z0-9_]+|up)\b/g)].map((m) => m[1]!)),
]

/** The label names an expression matches on, groups by or joins on. */
const labelsOf = (expr: string): string[] => {
  const names = new Set<string>()
  for (const braces of expr.matchAll(/\{([^}]*)\}/g))
    for (const m of braces[1]!.matchAll(/(\w+)\s*(?:=~|!~|!=|=)\s*"/g)) names.add(m[1]!)
  for (const list of expr.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g))
    for (const l of list[1]!.split(',')) if (l.trim() !== '') names.add(l.trim())
  return [...names]
}

/** Runs promtool; its own report is the failure's message. */
const promtool = (args: readonly string[], cwd = root): string => {
  const r = spawnSync(PROMTOOL, args, { cwd, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`promtool ${args.join(' ')}:\n${r.stdout}${r.stderr}`)
  return r.stdout
}

describe.skipIf(lacks('prometheus'))("operators' alert rules and dashboard", () => {
  it('promtool accepts the rules file', () => {
    const out = promtool(['check', 'rules', RULES])
    expect(out).toContain(`SUCCESS: ${rules().length} rules found`)
  })

  it("promtool's unit tests of the rules pass: each alert fires on its fault and not before its time", () => {
    const out = promtool(['test', 'rules', RULE_TESTS], path.dirname(RULE_TESTS))
    expect(out).toContain('SUCCESS')
    // Every alert of the file has a test case.
    const tested = new Set(
      [...fs.readFileSync(RULE_TESTS, 'utf8').matchAll(/alertname: (\w+)/g)].map((m) => m[1]!),
    )
    expect(
      rules()
        .map((r) => r.alert)
        .filter((a) => !tested.has(a)),
    ).toEqual([])
  })

  it('links every alert to its runbook section in the README', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8')
    const text = fs.readFileSync(RULES, 'utf8')
    for (const r of rules()) {
      expect(readme).toContain(`### ${r.alert}\n`)
      expect(text).toContain(`runbook: README.md#${r.alert.toLowerCase()}`)
    }
  })

  it('has a query in every panel that is not a row', () => {
    const d = dashboard()
    for (const p of d.panels.filter((x) => x.type !== 'row'))
      expect(p.targets?.length ?? 0, p.title).toBeGreaterThan(0)
  })

  // Cluster mode needs PostgreSQL and Redis by design: the embedded database is a single node's.
  const enabled = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL)

  describe.skipIf(!enabled)('against a Prometheus scraping a cluster', () => {
    let c: TestCluster
    let prom: TestPrometheus

    /** Runs `expr`; fails with Prometheus's own words when it does not evaluate. */
    const run = async (expr: string): Promise<NonNullable<QueryAnswer['data']>['result']> => {
      const a = await prom.query(expr)
      if (a.status !== 'success' || !a.data) throw new Error(`${expr}\n→ ${a.error ?? JSON.stringify(a)}`)
      return a.data.result
    }

    /** Every metric the expression names is scraped, and every label it names is on one of them. */
    const exported = async (expr: string) => {
      const names = metricsOf(expr)
      expect(names.length, expr).toBeGreaterThan(0)
      for (const name of names)
        expect((await run(`${name}{job="kotak"}`)).length, `${name} is not exported`).toBeGreaterThan(0)
      for (const label of labelsOf(expr)) {
        let found = false
        for (const name of names) {
          const groups = await run(`count by (${label}) (${name}{job="kotak"})`)
          if (groups.some((g) => (g.metric[label] ?? '') !== '')) found = true
        }
        expect(found, `no metric of ${expr} has the label ${label}`).toBe(true)
      }
    }

    beforeAll(async () => {
      c = await startCluster({
        nodes: 2,
        env: { CLUSTER_LEASE_MS: '3000', CLUSTER_ASK_TIMEOUT_MS: '2000' },
      })
      await waitSettled(c)
      // Requests of several route classes on each node, and a message through the group-commit
      // writer, so that the HTTP and write-path series have samples.
      const w = await F.workspace(c.nodes[0]!.server, { plan: 'pro' })
      const conversation = await c.run(Effect.map(Conversations.create(w.workspaceId, null), (r) => r.id))
      for (const n of c.nodes) {
        for (const [method, p] of [
          ['GET', '/v1/public/config'],
          ['GET', '/v1/me'],
          ['POST', '/v1/realtime/token'],
          ['POST', '/v1/channel-api/messages'],
          ['GET', '/app'],
          ['GET', '/no/such/path'],
        ] as const)
          await n.fetch(p, { method })
        const r = await n.ask('conversation', conversation, {
          _tag: 'Append',
          direction: 'out',
          type: 'text',
          body: `hello from ${n.name}`,
          sender: { name: 'Olivia Owner', user_id: w.ownerId },
        })
        expect(r.status).toBe(200)
      }
      prom = await startPrometheus({
        targets: c.nodes.map((n) => `127.0.0.1:${n.port}`),
        ruleFiles: [RULES],
      })
      // Two scrapes of every node at least, so that rates over a minute have their two samples.
      await waitFor(
        'two scrapes of every node',
        async () => {
          const a = await prom.query('count(rate(kotak_process_cpu_seconds_total{job="kotak"}[1m]))')
          return Number(a.data?.result[0]?.value?.[1]) === 2
        },
        { timeoutMs: 30_000, intervalMs: 250 },
      )
    }, 180_000)
    afterAll(async () => {
      await prom?.stop()
      await c?.stop()
    }, 60_000)

    it('loads every rule and evaluates each without error', async () => {
      type Rules = { data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] } }
      const loaded = await waitFor(
        'every rule evaluated',
        async () => {
          const r = (await prom.api<Rules>('rules')).data.groups.flatMap((g) => g.rules)
          return r.length === rules().length && r.every((x) => x.health !== 'unknown') ? r : undefined
        },
        { timeoutMs: 20_000, intervalMs: 250 },
      )
      expect(loaded.filter((r) => r.health !== 'ok')).toEqual([])
    })

    it('runs every rule expression, and the nodes export every metric and label it names', async () => {
      for (const r of rules()) {
        await run(r.expr)
        await exported(r.expr)
      }
    })

    it('runs every dashboard query and each returns series', async () => {
      const d = dashboard()
      const queries = d.panels.flatMap((p) =>
        (p.targets ?? []).map((t) => ({ panel: p.title, expr: asSent(t.expr) })),
      )
      expect(queries.length).toBeGreaterThan(25)
      for (const q of queries) {
        expect((await run(q.expr)).length, `${q.panel}: ${q.expr}`).toBeGreaterThan(0)
        await exported(q.expr)
      }
      // The alert annotations and the node picker's query run too (the picker's is Grafana's
      // `label_values(selector, label)`: its selector must have the label).
      for (const a of d.annotations.list) if (a.expr) await run(a.expr)
      const picker = d.templating.list.find((v) => v.name === 'instance')?.definition ?? ''
      const m = /^label_values\((.+), (\w+)\)$/.exec(picker)
      expect(m).not.toBeNull()
      expect((await run(`count by (${m![2]}) (${m![1]})`)).length).toBe(2)
    })

    it("tells each node's shards and identity apart, and sees a node that stops as down", async () => {
      const held = await run(
        'kotak_cluster_shards_held{job="kotak"} * on (instance) group_left (address) kotak_cluster_node_info{job="kotak"}',
      )
      expect(held.map((s) => s.metric.address).sort()).toEqual(
        (await Promise.all(c.nodes.map(async (n) => (await n.status()).address))).sort(),
      )
      const gone = c.nodes[1]!
      gone.proc.kill('SIGKILL')
      await gone.exited
      const down = await waitFor(
        'the stopped node to show as down',
        async () => {
          const r = await run('up{job="kotak"} == 0')
          return r.length > 0 ? r : undefined
        },
        { timeoutMs: 15_000, intervalMs: 250 },
      )
      expect(down.map((s) => s.metric.instance)).toEqual([`127.0.0.1:${gone.port}`])
    })
  })
})
