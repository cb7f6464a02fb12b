import type pg from 'pg'

/**
 * Named (prepared) statements for a connection's parameterised statements, so PostgreSQL parses
 * each text once per connection and, once it has seen a few executions, plans it once too. An
 * unnamed statement is parsed and planned on every call: the inbox list's planning alone cost
 * more than its execution (0.9 ms against 0.8 ms at 100,000 conversations), and a small
 * statement's parse and plan are most of its cost.
 *
 * Only on PostgreSQL, where each connection is a session of its own: the embedded database runs
 * every socket in one shared session, where one client's names would meet another's.
 *
 * A connection names at most `MAX_NAMED` texts; past that, once it is idle, it forgets them all
 * (`DEALLOCATE ALL`, sent before its next statement) and starts again, so a process that builds
 * many texts (lists of ids, optional filters) keeps a bounded set per connection. A statement
 * that finds its name gone or its plan's columns changed (`26000`, or `0A000` after a migration
 * of a running cluster changed a table read with `*`) makes the connection forget its names too.
 */
export const MAX_NAMED = 300

interface Named {
  readonly names: Map<string, string>
  next: number
}

/** pg's own fields: the statements its connection has parsed, and its queue. */
interface PgInternals {
  readonly connection: {
    parsedStatements: Record<string, string>
    submittedNamedStatements: Record<string, string>
  }
  readonly _activeQuery?: unknown
  readonly _queryQueue?: readonly unknown[]
  /** The transaction status of the last ReadyForQuery: `I` outside a transaction. */
  readonly _txStatus?: string | null
}

export const preparedStatements = () => {
  const named = new WeakMap<pg.PoolClient, Named>()

  const idle = (client: pg.PoolClient) => {
    const c = client as unknown as PgInternals
    return c._activeQuery == null && (c._queryQueue?.length ?? 0) === 0
  }

  /** Sends `DEALLOCATE ALL` ahead of whatever comes next, and forgets every name. */
  const forget = (client: pg.PoolClient, send: (...args: unknown[]) => unknown) => {
    const n = named.get(client)
    if (!n || n.names.size === 0) return
    n.names.clear()
    const c = client as unknown as PgInternals
    c.connection.parsedStatements = {}
    c.connection.submittedNamedStatements = {}
    // Its answer says nothing to anyone: a failure means the connection is gone, and with it
    // every name.
    send('DEALLOCATE ALL', () => {})
  }

  /**
   * The arguments of `client.query` with the statement named, when it is a parameterised one.
   * `send` is the client's own `query` (not the wrapped one).
   */
  const name = (client: pg.PoolClient, args: unknown[], send: (...args: unknown[]) => unknown): unknown[] => {
    const first = args[0]
    const values = typeof first === 'string' ? args[1] : (first as { values?: unknown } | undefined)?.values
    if (!Array.isArray(values) || values.length === 0) return args
    const text = typeof first === 'string' ? first : (first as { text?: unknown; name?: unknown }).text
    if (typeof text !== 'string' || (typeof first === 'object' && first !== null && 'name' in first))
      return args
    let n = named.get(client)
    if (!n) {
      n = { names: new Map(), next: 0 }
      named.set(client, n)
    }
    let statement = n.names.get(text)
    if (statement === undefined) {
      if (n.names.size >= MAX_NAMED) {
        // Forgetting while a statement is queued would make it parse a name that still exists.
        if (!idle(client)) return args
        forget(client, send)
      }
      statement = `k${n.next++}`
      n.names.set(text, statement)
    }
    return typeof first === 'string'
      ? [{ text, values, name: statement }, ...args.slice(2)]
      : [{ ...(first as object), name: statement }, ...args.slice(1)]
  }

  /**
   * Whether a named statement's failure means the connection's names are stale: its name is gone
   * (`26000`) or a migration changed the columns its cached plan returns (`0A000`). The
   * connection then forgets its names; the caller may send the statement again, unnamed, when it
   * ran outside a transaction (pg's status is still the one from before it then).
   */
  const stale = (client: pg.PoolClient, error: unknown, send: (...args: unknown[]) => unknown) => {
    const e = error as { code?: unknown; message?: unknown } | null
    const gone = e?.code === '26000' || (e?.code === '0A000' && String(e.message).includes('cached plan'))
    if (!gone) return false
    if (idle(client)) forget(client, send)
    return (client as unknown as PgInternals)._txStatus === 'I'
  }

  return { name, stale }
}
