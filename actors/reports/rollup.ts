import { SqlClient } from '@effect/sql'
import { type Duration, Effect, Option } from 'effect'
import { everyLogged } from '../../engine/loop'
import { DatabaseLink } from '../../store/database'
import * as Reports from '../../store/reports'
import * as Workspaces from '../../store/workspaces'
import * as Metrics from '../metrics'

/**
 * The roll-up: adds facts (store/reportFacts.ts) to the roll-ups that reports read. Every node
 * runs it every few seconds (`rollupLoop`) and every report read runs it for its workspace first
 * (`catchUp`), so reports are exact at the moment of asking while the write path pays only one
 * INSERT of a fact. One roll-up per workspace at a time (an advisory lock); each batch takes its
 * facts, measures in Node those with something to measure (business minutes, target met:
 * actors/metrics.ts), then stores the measures and adds every fact of the batch to the
 * roll-ups in one statement, in one transaction, so a fact is counted once whatever fails.
 */
export const BATCH = 5000
/**
 * Facts per batch on a database with one connection (the embedded one): each batch is a
 * transaction that holds that connection, and every append and read of the node waits behind it.
 * 5,000 facts held it about 100 ms, every 5 s, at 1,000 inbound messages a second; 500 hold it
 * 20–35 ms, with the writes in between, at the same CPU; there the loop runs every second too
 * (`rollupLoop`) (docs/decisions.md, "The roll-up on one connection").
 */
export const BATCH_ONE_CONNECTION = 500

/** Whether this node's database has one connection (the embedded one). */
const oneConnection = Effect.map(
  Effect.serviceOption(DatabaseLink),
  (link) => Option.isSome(link) && link.value.connections === 1,
)

/** The batch for this node's database: smaller when it has only one connection. */
const batchSize = Effect.map(oneConnection, (one) => (one ? BATCH_ONE_CONNECTION : BATCH))

/**
 * One batch of a workspace's pending facts with ids above `after`: how many, and the last id.
 * The channels and targets the measures need are read before the transaction (settings, which a
 * change just before or just after the batch would give alike): on the embedded database's only
 * connection, a transaction should run its statements back to back.
 */
const batch = (workspaceId: number, after: number, inputs: Reports.SlaInputs, size: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* Reports.lockWorkspace(workspaceId)
        const workspace = yield* Workspaces.byId(workspaceId)
        if (!workspace) return { taken: 0, last: after }
        // `report_days` follow the workspace zone: a new zone re-adds every day first.
        const zone = yield* Reports.rollupZone(workspaceId)
        if (zone && zone.report_zone !== zone.timezone) yield* Reports.rebuild(workspaceId, zone.timezone)
        const { taken, first, last, measure } = yield* Reports.take(workspaceId, size, after)
        if (taken === 0) return { taken, last: after }
        const ctx = measure.length > 0 ? Metrics.contextFrom(workspace, inputs) : undefined
        yield* Reports.roll(
          workspaceId,
          workspace.timezone,
          first,
          last,
          ctx ? measure.map((f) => ({ id: f.id, ...Metrics.measure(ctx, f) })) : [],
        )
        return { taken, last }
      }),
    ),
  )

/** Rolls up every pending fact of a workspace; cheap (one index probe) when there is none. */
export const catchUp = (workspaceId: number) =>
  Effect.gen(function* () {
    if (!(yield* Reports.hasPending(workspaceId))) return 0
    const inputs = yield* Reports.slaInputs(workspaceId)
    const size = yield* batchSize
    let total = 0
    let after = 0
    for (;;) {
      const { taken, last } = yield* batch(workspaceId, after, inputs, size)
      total += taken
      after = last
      if (taken < size) return total
    }
  })

/** Every workspace with pending facts, rolled up. */
export const catchUpAll = () =>
  Effect.flatMap(Reports.pendingWorkspaces(), (ids) =>
    Effect.map(
      Effect.forEach(ids, (id) => catchUp(id)),
      (ns) => ns.reduce((a, b) => a + b, 0),
    ),
  )

/**
 * `catchUpAll` every `every` for the life of the node; errors are logged. By default every 5 s,
 * and every second on a database with one connection, so that each run's batches, which every
 * other statement of the node waits behind, are a second's facts and not five.
 */
export const rollupLoop = (every?: Duration.DurationInput) =>
  Effect.flatMap(oneConnection, (one) =>
    everyLogged(
      'report roll-up',
      every ?? (one ? '1 second' : '5 seconds'),
      Effect.suspend(() => catchUpAll()),
    ),
  )

/**
 * Recomputes the roll-ups of one workspace (or all) from their facts (`kotak reports rebuild`):
 * pending facts are rolled up first, then every day and hour is added up again from the measures
 * the facts hold, in the workspace's zone now.
 */
export const rebuild = (workspaceId?: number) =>
  Effect.gen(function* () {
    const ids = workspaceId === undefined ? yield* Reports.workspaceIds() : [workspaceId]
    const sql = yield* SqlClient.SqlClient
    const done: Array<{ workspace: number; facts_rolled: number }> = []
    for (const id of ids) {
      const rolled = yield* catchUp(id)
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* Reports.lockWorkspace(id)
          const w = yield* Workspaces.byId(id)
          if (w) yield* Reports.rebuild(id, w.timezone)
        }),
      )
      done.push({ workspace: id, facts_rolled: rolled })
    }
    yield* Reports.tidy()
    return done
  })
