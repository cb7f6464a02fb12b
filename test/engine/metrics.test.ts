import { describe, expect, it } from '@effect/vitest'
import { Context, Effect, Exit, Layer, Scope } from 'effect'
import * as Actor from '../../engine/actor/Actor.js'
import { Bus } from '../../engine/bus/Bus.js'
import * as BusRedis from '../../engine/bus/BusRedis.js'
import * as GroupCommit from '../../engine/groupCommit.js'
import { type Metrics, MetricsTag, makeMetrics } from '../../engine/metrics.js'
import { waitFor } from '../support/cluster'

/**
 * The metrics module's own behaviour; the names and labels the operators' rules and dashboard
 * read are checked against a scraped cluster in test/ops/prometheus.test.ts.
 */

const sample = async (m: Metrics, line: RegExp): Promise<number | undefined> => {
  const text = await m.registry.metrics()
  const found = text.split('\n').find((l) => line.test(l))
  return found === undefined ? undefined : Number(found.slice(found.lastIndexOf(' ') + 1))
}

describe('metrics', () => {
  it('asks for a route class once per method and route, and labels both HTTP metrics with it', async () => {
    const m = makeMetrics()
    const asked: string[] = []
    const classOf = (target: string, method: string) => {
      asked.push(`${method} ${target}`)
      return method === 'GET' ? 'read' : 'write'
    }
    m.recordHttp('GET', '/v1/x', 200, 0.01, '/v1/x', classOf)
    m.recordHttp('GET', '/v1/x', 500, 0.02, '/v1/x', classOf)
    m.recordHttp('GET', '/v1/x', 200, 0.01, '/v1/x', classOf)
    m.recordHttp('POST', '/v1/x', 201, 0.01, '/v1/x', classOf)
    expect(asked).toEqual(['GET /v1/x', 'POST /v1/x'])
    expect(
      await sample(m, /^kotak_http_requests_total\{method="GET",route="\/v1\/x",class="read",status="200"\}/),
    ).toBe(2)
    expect(
      await sample(
        m,
        /^kotak_http_request_duration_seconds_count\{method="POST",route="\/v1\/x",class="write"\}/,
      ),
    ).toBe(1)
  })

  it("counts a request's duration into prom-client's cumulative buckets, a bound's own value included, with sum and count", async () => {
    const m = makeMetrics()
    const read = () => 'read'
    for (const seconds of [0.0005, 0.001, 0.003, 0.003, 0.2, 7])
      m.recordHttp('GET', '/v1/y', 200, seconds, '/v1/y', read)
    const bucket = (le: string) =>
      sample(
        m,
        new RegExp(
          `^kotak_http_request_duration_seconds_bucket\\{le="${le.replace('+', '\\+')}",method="GET",route="/v1/y",class="read"\\}`,
        ),
      )
    expect(await bucket('0.001')).toBe(2)
    expect(await bucket('0.0025')).toBe(2)
    expect(await bucket('0.005')).toBe(4)
    expect(await bucket('0.25')).toBe(5)
    expect(await bucket('2.5')).toBe(5)
    expect(await bucket('+Inf')).toBe(6)
    expect(
      await sample(
        m,
        /^kotak_http_request_duration_seconds_sum\{method="GET",route="\/v1\/y",class="read"\}/,
      ),
    ).toBeCloseTo(7.2075)
    expect(
      await sample(
        m,
        /^kotak_http_request_duration_seconds_count\{method="GET",route="\/v1\/y",class="read"\}/,
      ),
    ).toBe(6)
    expect(
      await sample(m, /^kotak_http_requests_total\{method="GET",route="\/v1\/y",class="read",status="200"\}/),
    ).toBe(6)
  })

  it('reads levels at scrape time, sums readers of the same labels, and drops the series with the last', async () => {
    const m = makeMetrics()
    let a = 3
    const untrackA = m.actorEntities('conversation', () => a)
    const untrackB = m.actorEntities('conversation', () => 4)
    expect(await sample(m, /^kotak_actor_entities\{actor="conversation"\}/)).toBe(7)
    a = 5
    expect(await sample(m, /^kotak_actor_entities\{actor="conversation"\}/)).toBe(9)
    untrackA()
    untrackA()
    expect(await sample(m, /^kotak_actor_entities\{actor="conversation"\}/)).toBe(4)
    untrackB()
    expect(await m.registry.metrics()).not.toContain('kotak_actor_entities')
    // A node without a cluster exports no cluster series at all.
    expect(await m.registry.metrics()).not.toContain('kotak_cluster_')
    const untrack = m.clusterNode({
      address: '10.0.0.1:4000',
      role: 'runner',
      shardsHeld: () => 120,
      shardsConfigured: 300,
      redisUp: () => true,
    })
    expect(await sample(m, /^kotak_cluster_node_info\{address="10\.0\.0\.1:4000",role="runner"\}/)).toBe(1)
    expect(await sample(m, /^kotak_cluster_shards_held /)).toBe(120)
    expect(await sample(m, /^kotak_cluster_shards_configured /)).toBe(300)
    expect(await sample(m, /^kotak_cluster_redis_up /)).toBe(1)
    untrack()
    expect(await m.registry.metrics()).not.toContain('kotak_cluster_')
  })

  it('exports the pool failure, bus and group-commit series before their first count', async () => {
    const m = makeMetrics()
    for (const reason of ['acquire_timeout', 'query_timeout', 'held_idle'])
      expect(await sample(m, new RegExp(`^kotak_db_pool_wait_failures_total\\{reason="${reason}"\\}`))).toBe(
        0,
      )
    m.pool.waitFailed('held_idle')
    expect(await sample(m, /^kotak_db_pool_wait_failures_total\{reason="held_idle"\}/)).toBe(1)
    expect(await sample(m, /^kotak_bus_messages_total\{direction="in"\}/)).toBe(0)
    m.groupCommit('appends')
    expect(await sample(m, /^kotak_group_commit_wait_seconds_count\{writer="appends"\}/)).toBe(0)
  })

  it.scoped('counts a group-commit writer: items per flush, the wait of its oldest item, pending items', () =>
    Effect.gen(function* () {
      const m = makeMetrics()
      const writer = yield* GroupCommit.make({
        flush: (items: readonly number[]) => Effect.succeed(items.map((i) => Exit.succeed(i))),
        maxItems: 10,
        concurrency: 1,
        metrics: m.groupCommit('test'),
      })
      yield* Effect.all([writer.submit(1), writer.submit(2), writer.submit(3)], { concurrency: 'unbounded' })
      const flushes = yield* Effect.promise(() =>
        sample(m, /^kotak_group_commit_batch_items_count\{writer="test"\}/),
      )
      const items = yield* Effect.promise(() =>
        sample(m, /^kotak_group_commit_batch_items_sum\{writer="test"\}/),
      )
      expect(items).toBe(3)
      expect(flushes).toBeGreaterThanOrEqual(1)
      expect(
        yield* Effect.promise(() => sample(m, /^kotak_group_commit_wait_seconds_count\{writer="test"\}/)),
      ).toBe(flushes)
      expect(
        yield* Effect.promise(() => sample(m, /^kotak_group_commit_flush_seconds_count\{writer="test"\}/)),
      ).toBe(flushes)
      expect(
        yield* Effect.promise(() => sample(m, /^kotak_group_commit_pending_items\{writer="test"\}/)),
      ).toBe(0)
    }),
  )

  it.scoped("counts an actor type's live entities on a node with metrics, until the actor stops", () =>
    Effect.gen(function* () {
      const m = makeMetrics()
      const scope = yield* Scope.make()
      const counter = yield* Actor.make(
        Actor.define({
          name: 'counter',
          load: () => Effect.succeed(0),
          handlers: { Add: (n: number) => Effect.succeed([n + 1, n + 1] as const) },
        }),
      ).pipe(Effect.provideService(MetricsTag, m), Scope.extend(scope))
      for (const id of ['a', 'b', 'c']) yield* counter.ask(id, { _tag: 'Add' })
      expect(yield* Effect.promise(() => sample(m, /^kotak_actor_entities\{actor="counter"\}/))).toBe(3)
      yield* Scope.close(scope, Exit.void)
      expect(yield* Effect.promise(() => m.registry.metrics())).not.toContain('kotak_actor_entities')
    }),
  )
})

const REDIS_URL = process.env.REDIS_URL

describe.skipIf(!REDIS_URL)('bus metrics (Redis)', () => {
  it.scopedLive('measures its lag by a probe of its own and counts messages out and in', () =>
    Effect.gen(function* () {
      const prefix = `kotak_tm_${process.pid}_${Math.random().toString(36).slice(2, 8)}:`
      const m = makeMetrics()
      // The node's own connections (the subscriber's without a ready check, as a node opens it).
      const bus = (options: BusRedis.RedisBusOptions) =>
        Effect.map(Layer.build(BusRedis.layerRedis(REDIS_URL!, options)), (ctx) => Context.get(ctx, Bus))
      const measured = yield* bus({ prefix, metrics: m.bus })
      const other = yield* bus({ prefix })
      const got: Uint8Array[] = []
      yield* measured.subscribe('t', (p) => got.push(p))
      yield* other.publish('t', new Uint8Array([1]))
      yield* measured.publish('t', new Uint8Array([2]))
      yield* Effect.promise(() => waitFor('both messages in', () => got.length === 2))
      // A probe leaves every second. Three seconds on, a lag under a second says they come back:
      // one lost would read as the time since it left.
      yield* Effect.sleep('3 seconds')
      const lag = yield* Effect.promise(() => sample(m, /^kotak_bus_lag_seconds /))
      expect(lag).toBeGreaterThan(0)
      expect(lag).toBeLessThan(1)
      expect(yield* Effect.promise(() => sample(m, /^kotak_bus_messages_total\{direction="in"\}/))).toBe(1)
      expect(yield* Effect.promise(() => sample(m, /^kotak_bus_messages_total\{direction="out"\}/))).toBe(1)
    }),
  )
})
