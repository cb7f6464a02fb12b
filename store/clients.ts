import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

/**
 * Clients (spec 2 §2): the companies behind contacts and leads. Names are unique per workspace
 * regardless of case. Leads find or create a client by name (`findOrCreate`); the client
 * endpoints themselves come with the next issue.
 */
export interface ClientRow {
  readonly id: number
  readonly workspace_id: number
  readonly name: string
  readonly industry: string | null
  readonly phone: string | null
  readonly email: string | null
  readonly website: string | null
  readonly address: string | null
  readonly city: string | null
  readonly notes: string | null
  readonly custom: Readonly<Record<string, unknown>>
  readonly created_by: number | null
  readonly created_at: Date
  readonly updated_at: Date
}

export const byId = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ClientRow>`SELECT * FROM clients WHERE id = ${id} AND workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/**
 * The client of this name (case-insensitive), made when there is none. Two concurrent creations of
 * one name meet at the unique index: the loser's insert does nothing and it reads the winner's.
 */
export const findOrCreate = (workspaceId: number, name: string, createdBy: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const [made] = yield* sql<{ id: number }>`
        INSERT INTO clients (workspace_id, name, created_by) VALUES (${workspaceId}, ${name}, ${createdBy})
        ON CONFLICT (workspace_id, lower(name)) DO NOTHING RETURNING id`
      if (made) return { id: made.id, created: true }
      const [found] = yield* sql<{ id: number }>`
        SELECT id FROM clients WHERE workspace_id = ${workspaceId} AND lower(name) = lower(${name})`
      return { id: found!.id, created: false }
    }),
  )
