import { SqlClient } from '@effect/sql'
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
