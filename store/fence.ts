import { SqlClient, type SqlError } from '@effect/sql'
import { Data, Effect } from 'effect'
import type { Fence } from '../engine/cluster/node'
import { pgArray } from './arrays'

/** A write refused: this node no longer holds its entity's shard at the epoch it took it at. */
export class ShardLost extends Data.TaggedError('ShardLost')<{ readonly shard: string }> {}

/**
 * Inside a write's transaction: the shards of `fences` still stored at the epoch given
 * (engine/cluster/epochs.ts). Their rows are locked `FOR SHARE` until the commit, in shard order
 * (a take bumps several in one statement), so a node taking a shard waits for a write under way
 * for it, and a write after the take sees the new epoch. This is the fence of each actor write;
 * the router's door (epochs.ts `admit`) only spares most stale writes the round trip.
 */
export const held = (fences: readonly Fence[]) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const wanted = new Map(fences.map((f) => [f.shard, f.epoch]))
    return sql<{ shard: string; epoch: string }>`
      SELECT shard, epoch::text FROM shard_epochs WHERE shard = ANY(${pgArray([...wanted.keys()])}::text[])
      ORDER BY shard FOR SHARE`.pipe(
      Effect.map(
        (rows) => new Set(rows.filter((r) => wanted.get(r.shard) === Number(r.epoch)).map((r) => r.shard)),
      ),
    )
  })

/**
 * `write` in a transaction that first checks `fence` (as `held`): a change of an entity's row
 * other than an append (status, assignment, a read marker) by an owner that has lost the shard
 * fails with `ShardLost` and writes nothing; a take waits for a fenced write under way.
 */
export const within = <A, E, R>(
  fence: Fence,
  write: Effect.Effect<A, E, R>,
): Effect.Effect<A, E | ShardLost | SqlError.SqlError, R | SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.flatMap(
        held([fence]),
        (ok): Effect.Effect<A, E | ShardLost, R> =>
          ok.has(fence.shard) ? write : Effect.fail(new ShardLost({ shard: fence.shard })),
      ),
    ),
  )
