import { SqlClient, type SqlError } from '@effect/sql'
import { Context, Effect, Exit, Layer, Option } from 'effect'
import * as GroupCommit from '../engine/groupCommit'
import { MetricsTag } from '../engine/metrics'
import { type Appended, type AppendWrite, writeAppends } from './conversations'
import * as Fence from './fence'
import { unavailableIn } from './pool'

/**
 * The node's one writer of appended messages (group commit, engine/groupCommit): every
 * conversation's appends that gather during a write go out together in the next — one statement
 * (store/conversations `writeAppends`), one commit. Callers are answered only after the commit,
 * so a 2xx and the events that follow still mean "stored".
 *
 * A write that fails is split: each conversation's part is written alone, so a bad one (a
 * duplicate client id or sequence) fails only its own caller and the others still commit. A part
 * whose conversation moved on meanwhile (its `last_seq` is not what the caller saw) fails with
 * `AppendStale`; the caller appends the slow way (store/conversations `append`). A write that
 * failed because the database is out of reach or busy is not split: every part would fail the
 * same way, one after the other, while their callers wait.
 */
export class AppendStale extends Error {
  readonly _tag = 'AppendStale'
}

export class AppendWriter extends Context.Tag('AppendWriter')<
  AppendWriter,
  GroupCommit.GroupCommit<AppendWrite, Appended, SqlError.SqlError | AppendStale | Fence.ShardLost>
>() {}

/** Conversations per write at most; a write of 256 stays a few hundred kilobytes of JSON. */
const MAX_WRITES = 256
/**
 * A write starts at most every 2 ms (issue 26): an append waits at most that long for company,
 * and under a steady load each commit carries what 2 ms brought instead of one message.
 */
const GATHER_MS = 2

type Answer = Exit.Exit<Appended, SqlError.SqlError | AppendStale | Fence.ShardLost>

const answers = (writes: readonly AppendWrite[], done: ReadonlyMap<number, Appended>): Answer[] =>
  writes.map((w): Answer => {
    const d = done.get(w.conversationId)
    return d ? Exit.succeed(d) : Exit.fail(new AppendStale(`conversation ${w.conversationId} moved on`))
  })

/**
 * One write of `writes`. In cluster mode each carries its shard's fence: the write and the check
 * of the fences go in one transaction, and the parts whose shard moved are answered `ShardLost`
 * (three statements instead of one, per write, not per message). A single node has no fences.
 */
const write = (
  writes: readonly AppendWrite[],
): Effect.Effect<readonly Answer[], SqlError.SqlError, SqlClient.SqlClient> => {
  const fences = writes.flatMap((w) => (w.fence ? [w.fence] : []))
  if (fences.length === 0) return Effect.map(writeAppends(writes), (done) => answers(writes, done))
  return Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const kept = yield* Fence.held(fences)
        // The shard a part's fence names when this node no longer holds it there.
        const lost = (w: AppendWrite) => (w.fence && !kept.has(w.fence.shard) ? w.fence.shard : undefined)
        const ok = writes.filter((w) => lost(w) === undefined)
        const done = ok.length > 0 ? yield* writeAppends(ok) : new Map<number, Appended>()
        return writes.map((w): Answer => {
          const shard = lost(w)
          return shard === undefined ? answers([w], done)[0]! : Exit.fail(new Fence.ShardLost({ shard }))
        })
      }),
    ),
  )
}

const flush = (
  writes: readonly AppendWrite[],
): Effect.Effect<readonly Answer[], never, SqlClient.SqlClient> =>
  write(writes).pipe(
    Effect.catchAll((e) =>
      writes.length === 1 || unavailableIn(e) !== undefined
        ? Effect.succeed(writes.map(() => Exit.fail(e) as Answer))
        : Effect.forEach(writes, (w) =>
            write([w]).pipe(
              Effect.map((a) => a[0]!),
              Effect.catchAll((err) => Effect.succeed(Exit.fail(err) as Answer)),
            ),
          ),
    ),
  )

export const layer = Layer.scoped(
  AppendWriter,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // Counted as `writer="appends"` on a node with metrics (a server; not the unit tests).
    const metrics = yield* Effect.serviceOption(MetricsTag)
    return yield* GroupCommit.make({
      flush: (writes: readonly AppendWrite[]) =>
        Effect.provideService(flush(writes), SqlClient.SqlClient, sql),
      maxItems: MAX_WRITES,
      concurrency: 1,
      gatherMs: GATHER_MS,
      ...Option.match(metrics, {
        onNone: () => ({}),
        onSome: (m) => ({ metrics: m.groupCommit('appends') }),
      }),
    })
  }),
)
