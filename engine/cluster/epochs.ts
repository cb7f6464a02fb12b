import { SqlClient } from '@effect/sql'
import { Effect, type Scope } from 'effect'

/**
 * Ownership epochs of the cluster's shards (fencing tokens), kept in PostgreSQL (`shard_epochs`,
 * migration 0113): the truth about who may act for a shard, whatever Redis's locks say.
 *
 * Why: a shard moves as soon as its owner's heartbeat is a second old (RunnerStorageRedis
 * `deadMs`), long before the owner's lease runs out. The owner may only have been frozen (a
 * pause, a long GC) or cut off from Redis, and go on acting for the shard it lost until it learns
 * so. Each take bumps the shard's epoch in the database; a node acts for a shard only while the
 * epoch it took is still the stored one.
 *
 * Guarantees (one node's view, `admit`):
 * - it admits a message for a shard only if it holds the shard at the epoch it took and its own
 *   heartbeat reached Redis less than three quarters of the dead time ago (the monotonic clock,
 *   from the start of the round that sent it); after a gap in its heartbeats it may have been
 *   forgotten, so it also waits for the epochs to be read back from the database, which shows a
 *   shard taken meanwhile; a frozen node finds its heartbeat stale when it wakes and waits for
 *   that round;
 * - a take happens only after the previous owner's heartbeat has been silent for the dead time,
 *   so an owner that keeps its heartbeat stops admitting before anyone can take its shards; one
 *   cut off from Redis but not from the database sees the bump within a round.
 * What remains is a check before acting, not a lock held while writing: a message admitted just
 * before a freeze may still be written after it. The database's guards (docs/decisions.md, "Which
 * database guard protects which invariant") keep such a late write from doubling or reordering
 * messages.
 */
export interface Epochs {
  /**
   * Bumps the epochs of `shards`, just locked by this node; answers those it now holds (all, or
   * none when the database does not answer: the shards then wait for the next acquisition).
   */
  readonly take: (shards: readonly string[]) => Effect.Effect<readonly string[]>
  /** What the locks say this node holds now: the others are forgotten. */
  readonly keep: (shards: readonly string[]) => void
  /** This node gave shards up (released, or all of them when it stops). */
  readonly forget: (shards: readonly string[] | 'all') => void
  /** Succeeds when this node may act for `shard` now (see above); else fails with the reason. */
  readonly admit: (shard: string) => Effect.Effect<void, string>
  /** The epoch this node took `shard` at, while it holds it. */
  readonly epochOf: (shard: string) => number | undefined
}

export interface EpochsOptions {
  /** This node's address, recorded as the owner. */
  readonly owner: string
  /** The dead time of RunnerStorageRedis: rounds run every quarter of it. */
  readonly deadMs: number
  /** This node's heartbeat to Redis: succeeds when Redis recorded it. */
  readonly heartbeat: Effect.Effect<unknown, unknown>
  /** Logs a shard this node found taken by another. */
  readonly onMoved: (shard: string, to: string) => void
}

interface Held {
  readonly epoch: number
}

export const make = (
  options: EpochsOptions,
): Effect.Effect<Epochs, never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const roundMs = Math.max(50, Math.floor(options.deadMs / 4))
    // What bounds a node in time is its heartbeat: nobody takes its shards before its heartbeat
    // is `deadMs` old, and it stops acting at three quarters of that (the rest is the margin for
    // a message admitted just then). While its heartbeats keep coming within that, nobody can have
    // forgotten it, and no database read is needed. After a gap (a freeze, a starved loop) it may
    // have been forgotten, and a forgotten node's heartbeat still "succeeds" (it only refreshes a
    // registered node): then it acts again only after an epoch read that began after the gap.
    // The database is read on a gap only, so a busy pool never slows the actors' door.
    const beatMs = Math.floor((options.deadMs * 3) / 4)
    const held = new Map<string, Held>()
    let beatAt = Number.NEGATIVE_INFINITY
    // A gap in the heartbeats not yet cleared by an epoch read begun after it.
    let suspect = false
    let waiters: Array<() => void> = []

    const fresh = (now: number) => !suspect && now - beatAt < beatMs

    // Shard ids are `group:n`: no commas, so one text parameter carries a list.
    const list = (shards: Iterable<string>) => [...shards].join(',')

    const readEpochs = Effect.gen(function* () {
      if (held.size === 0) return
      const rows = yield* sql<{ shard: string; epoch: string; owner: string }>`
        SELECT shard, epoch::text, owner FROM shard_epochs
        WHERE shard = ANY(string_to_array(${list(held.keys())}, ','))`
      const stored = new Map(rows.map((r) => [r.shard, r]))
      for (const [shard, h] of held) {
        const row = stored.get(shard)
        if (row && Number(row.epoch) !== h.epoch) {
          held.delete(shard)
          options.onMoved(shard, row.owner)
        }
      }
    })

    const confirm = Effect.gen(function* () {
      const started = performance.now()
      if (started - beatAt >= beatMs) suspect = true
      const beat = yield* Effect.either(options.heartbeat)
      if (beat._tag === 'Left') {
        // Cut off from Redis: the others will take its shards; the epochs say when they have.
        suspect = true
        return yield* readEpochs
      }
      if (suspect) {
        yield* readEpochs
        suspect = false
      }
      beatAt = started
    }).pipe(
      Effect.catchAll(() => Effect.void),
      Effect.ensuring(
        Effect.sync(() => {
          const woken = waiters
          waiters = []
          for (const w of woken) w()
        }),
      ),
    )
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(confirm, Effect.sleep(roundMs))))

    const decide = (shard: string): string | null => {
      if (!held.has(shard)) return 'this node does not hold the shard'
      return fresh(performance.now()) ? null : 'this node could not confirm it still owns the shard'
    }

    const epochs: Epochs = {
      take: (shards) => {
        const fresh = shards.filter((s) => !held.has(s))
        if (fresh.length === 0) return Effect.succeed(shards)
        return sql<{ shard: string; epoch: string }>`
          INSERT INTO shard_epochs AS e (shard, epoch, owner)
          SELECT s, 1, ${options.owner} FROM unnest(string_to_array(${list(fresh)}, ',')) AS s
          ON CONFLICT (shard) DO UPDATE SET epoch = e.epoch + 1, owner = EXCLUDED.owner, taken_at = now()
          RETURNING shard, epoch::text`.pipe(
          Effect.map((rows) => {
            for (const r of rows) held.set(r.shard, { epoch: Number(r.epoch) })
            return shards.filter((s) => held.has(s))
          }),
          Effect.catchAll(() => Effect.succeed(shards.filter((s) => held.has(s)))),
        )
      },
      keep: (shards) => {
        const now = new Set(shards)
        for (const s of held.keys()) if (!now.has(s)) held.delete(s)
      },
      forget: (shards) => {
        if (shards === 'all') held.clear()
        else for (const s of shards) held.delete(s)
      },
      epochOf: (shard) => held.get(shard)?.epoch,
      admit: (shard) =>
        Effect.suspend(() => {
          const reason = decide(shard)
          if (reason === null) return Effect.void
          if (!held.has(shard)) return Effect.fail(reason)
          // Stale (a freeze, a slow round): wait for the next round, at most the dead time.
          return Effect.async<void>((resume) => {
            waiters.push(() => resume(Effect.void))
          }).pipe(
            Effect.timeoutOption(options.deadMs),
            Effect.flatMap(() => {
              const again = decide(shard)
              return again === null ? Effect.void : Effect.fail(again)
            }),
          )
        }),
    }
    return epochs
  })
