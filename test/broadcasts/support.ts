import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { expect } from 'vitest'
import { WallClock } from '../../engine/clock'
import { api, type Who } from '../contacts/support'
import type { TestServer } from '../support/server'

/** Broadcast tests: the test transport, fast looks, contacts made in bulk through SQL. */
export const ENV = {
  MSGAPP_TRANSPORT: 'test',
  MSGAPP_POLL_MS: '100',
  MSGAPP_BACKOFF_BASE_MS: '200',
  MSGAPP_PACE_MS: '0',
  BROADCAST_POLL_MS: '10',
  SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
}

export const sql = <A extends object>(
  s: TestServer,
  f: (sql: SqlClient.SqlClient) => Effect.Effect<readonly A[], unknown>,
) => s.run(Effect.flatMap(SqlClient.SqlClient, (c) => f(c) as Effect.Effect<readonly A[], never>))

/** Moves the server's clock (never sleeps). */
export const advance = (s: TestServer, ms: number) => s.run(Effect.flatMap(WallClock, (c) => c.advance(ms)))

/** `n` contacts with phones `+62813<prefix><i>` labelled `labelId`; returns their ids in id order. */
export const bulkContacts = async (
  s: TestServer,
  workspaceId: number,
  n: number,
  prefix: string,
  labelId: number,
) => {
  const rows = await sql<{ id: number }>(
    s,
    (db) => db`INSERT INTO contacts (workspace_id, name, phone)
      SELECT ${workspaceId}, 'Pelanggan ' || i, '+62813' || ${prefix} || lpad(i::text, 5, '0')
      FROM generate_series(1, ${n}) i RETURNING id`,
  )
  await sql(
    s,
    (db) => db`INSERT INTO contact_labels (contact_id, label_id) SELECT id, ${labelId} FROM contacts
      WHERE id = ANY(${`{${rows.map((r) => r.id).join(',')}}`}::bigint[]) RETURNING contact_id`,
  )
  return rows.map((r) => r.id).sort((a, b) => a - b)
}

/** The number counts as linked long ago: no warm-up allowance. */
export const warmedUp = (s: TestServer, channelId: number) =>
  sql(
    s,
    (db) =>
      db`UPDATE msgapp_numbers SET linked_at = now() - interval '30 days' WHERE channel_id = ${channelId} RETURNING channel_id`,
  )

export const waitFor = async <A>(
  what: string,
  f: () => Promise<A | null | undefined | false>,
  timeoutMs = 10_000,
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await f()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
}

export const get = async (s: TestServer, who: Who, path: string) => {
  const r = await api(s, who).get(path)
  expect(r.status, `${path}: ${JSON.stringify(r.error)}`).toBe(200)
  return r
}

/** Recipient rows as stored, in send order. */
export const recipients = (s: TestServer, broadcastId: number) =>
  sql<{
    id: number
    position: number
    phone: string | null
    state: string
    reason: string | null
    handed_at: Date | null
    message_id: number | null
  }>(
    s,
    (db) => db`SELECT id, position, phone, state, reason, handed_at, message_id FROM broadcast_recipients
    WHERE broadcast_id = ${broadcastId} ORDER BY position`,
  )
