import type { Sharding } from '@effect/cluster/Sharding'
import type { SqlClient } from '@effect/sql'
import type { Layer } from 'effect'
import { lazyLayer } from '../lazyLayer.js'
import type { ClusterNode, ClusterOptions } from './node.js'

/**
 * Cluster mode: the nodes of a deployment place every actor entity on exactly one node, with
 * @effect/cluster doing the placement (a hash ring of the live nodes over a fixed number of shards)
 * and Redis holding the runner registry and one lock per shard (`RunnerStorageRedis`). Messages
 * between nodes travel runner to runner over a TCP port of their own, msgpack-framed
 * (@effect/rpc), carrying msgpackr-encoded actor messages and outcomes (`codec.ts`).
 *
 * Timing (lease L = `CLUSTER_LEASE_MS`, dead time D = `CLUSTER_DEAD_MS`):
 * - every node renews its shard locks every L/3, sends a heartbeat and checks its shards' epochs
 *   (epochs.ts) every D/4, and reads the registry every min(1 s, L/4, D/4);
 * - a node killed outright, frozen or cut off from Redis is dropped from the ring once its
 *   heartbeat is D old, and the others take its locks then, without waiting for its lease; the
 *   epochs keep it from acting for them if it was only frozen;
 * - a node cut off from Redis stops serving its shards after about 2L/3 (its renewal failed) and
 *   takes them again, by itself, once Redis answers;
 * - a node leaving gracefully (SIGTERM) finishes what its entities are doing, then hands its shards
 *   over at once.
 */

export * from './node.js'

/**
 * Sharding for this process plus its `ClusterNode`. A runner listens on `CLUSTER_HOST:CLUSTER_PORT`
 * (port 0: any free port) and advertises the address it got. The cluster libraries load with it
 * (ClusterLive.ts), never on a single node.
 */
export const layer = (
  options: ClusterOptions,
): Layer.Layer<Sharding | ClusterNode, never, SqlClient.SqlClient> =>
  lazyLayer(
    () => import('./ClusterLive.js'),
    (live) => live.layer(options),
  )
