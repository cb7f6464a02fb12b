import { Effect } from 'effect'
import pg from 'pg'
import { ClaimsUnavailable, local, type MakeClaims } from './Claims'

/**
 * Claims as PostgreSQL session-level advisory locks `(space, key)` on one dedicated connection
 * per holder (not a pool's: a pooled connection would carry the locks to whoever borrows it next).
 * Ending the connection, or the node dying, drops every lock it held, which is what lets another
 * node take over. A connection error marks the claims lost (`onLost`); the next `tryClaim` opens a
 * new connection and competes again.
 */
export const make =
  (url: string, space: number): MakeClaims =>
  (onLost) =>
    Effect.gen(function* () {
      let client: pg.Client | null = null
      let broken = false

      const connection = async () => {
        if (client && !broken) return client
        const old = client
        client = null
        await old?.end().catch(() => {})
        // Named after the process, so an operator (or a test) sees in pg_stat_activity which
        // node holds which lock.
        const c = new pg.Client({ connectionString: url, application_name: `kotak-claims ${process.pid}` })
        c.on('error', () => {
          if (client === c && !broken) {
            broken = true
            onLost()
          }
        })
        await c.connect()
        broken = false
        client = c
        return c
      }

      yield* Effect.addFinalizer(() =>
        Effect.promise(async () => {
          const c = client
          client = null
          await c?.end().catch(() => {})
        }),
      )

      return {
        tryClaim: (key: number) =>
          Effect.tryPromise({
            try: async () => {
              const c = await connection()
              const r = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [
                space,
                key,
              ])
              return r.rows[0]?.ok === true
            },
            catch: (cause) => new ClaimsUnavailable({ cause }),
          }),
        release: (key: number) =>
          Effect.promise(async () => {
            if (!client || broken) return
            await client.query('SELECT pg_advisory_unlock($1, $2)', [space, key]).catch(() => {})
          }),
      }
    })

/**
 * Advisory locks when the node talks to a PostgreSQL server (`DATABASE_URL`); without one the
 * node runs the embedded database and is the only node, so every claim is its own.
 */
export const makeConfig = (url: string | undefined, space: number): MakeClaims =>
  url ? make(url, space) : local
