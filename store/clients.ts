import { SqlClient } from '@effect/sql'
import type { Fragment } from '@effect/sql/Statement'
import { Effect } from 'effect'
import { pgArray } from './arrays'
import { orIfTaken } from './unique'

/**
 * Clients (spec 2 §2): the companies behind contacts and leads. Names are unique per workspace
 * regardless of case. Leads find or create a client by name (`findOrCreate`); the client
 * endpoints list, search, show, change, delete (contacts and leads stay, unlinked) and link contacts.
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

// ---- The client endpoints (spec 2 §4.7, issue 24) ---------------------------------------------

export interface ClientListRow extends ClientRow {
  readonly contacts_count: number
}

export interface ClientFilter {
  readonly q?: string
  readonly industry?: string
}

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`

const whereOf = (sql: SqlClient.SqlClient, workspaceId: number, f: ClientFilter) =>
  sql.and([
    sql`k.workspace_id = ${workspaceId}`,
    ...(f.q
      ? [
          sql`(k.name ILIKE ${likePattern(f.q)} OR k.email ILIKE ${likePattern(f.q)} OR k.phone ILIKE ${likePattern(f.q)} OR k.city ILIKE ${likePattern(f.q)})`,
        ]
      : []),
    ...(f.industry ? [sql`lower(k.industry) = lower(${f.industry})`] : []),
  ])

const WITH_COUNT = `SELECT k.*, (SELECT count(*)::int FROM contacts c WHERE c.client_id = k.id
  AND c.merged_into IS NULL AND c.deleting_at IS NULL) AS contacts_count FROM clients k`

export const list = (
  workspaceId: number,
  f: ClientFilter,
  page: { readonly limit: number; readonly offset: number },
) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<ClientListRow>`${sql.literal(WITH_COUNT)} WHERE ${whereOf(sql, workspaceId, f)}
      ORDER BY lower(k.name), k.id LIMIT ${page.limit} OFFSET ${page.offset}`,
  )

export const count = (workspaceId: number, f: ClientFilter) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM clients k WHERE ${whereOf(sql, workspaceId, f)}`.pipe(
      Effect.map((r) => r[0]!.n),
    ),
  )

/** The industries in use (the list's `meta.industries`), as first written, one per spelling regardless of case. */
export const industries = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ industry: string }>`SELECT min(industry) AS industry FROM clients
      WHERE workspace_id = ${workspaceId} AND industry IS NOT NULL GROUP BY lower(industry) ORDER BY lower(min(industry))`.pipe(
      Effect.map((r) => r.map((x) => x.industry)),
    ),
  )

/** Names starting with `q` first, then containing it; at most `limit`. */
export const search = (workspaceId: number, q: string, limit: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<ClientListRow>`${sql.literal(WITH_COUNT)}
      WHERE k.workspace_id = ${workspaceId} AND k.name ILIKE ${likePattern(q)}
      ORDER BY (k.name ILIKE ${`${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`}) DESC, lower(k.name), k.id LIMIT ${limit}`,
  )

export const detailById = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ClientListRow>`${sql.literal(WITH_COUNT)} WHERE k.id = ${id} AND k.workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const TEXT_FIELDS = ['industry', 'phone', 'email', 'website', 'address', 'city', 'notes'] as const
export type ClientText = (typeof TEXT_FIELDS)[number]

export interface ClientFields {
  readonly name?: string
  readonly industry?: string | null
  readonly phone?: string | null
  readonly email?: string | null
  readonly website?: string | null
  readonly address?: string | null
  readonly city?: string | null
  readonly notes?: string | null
}

export const nameTaken = (workspaceId: number, name: string, except: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT 1 FROM clients WHERE workspace_id = ${workspaceId} AND lower(name) = lower(${name})
      AND id <> ${except ?? 0}`.pipe(Effect.map((r) => r.length > 0)),
  )

/** A new client, or null when the name is taken (the unique index decides a race). */
export const insert = (
  workspaceId: number,
  f: ClientFields & { readonly name: string; readonly custom: Readonly<Record<string, unknown>> },
  createdBy: number | null,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      id: number
    }>`INSERT INTO clients (workspace_id, name, industry, phone, email, website, address, city, notes, custom, created_by)
      VALUES (${workspaceId}, ${f.name}, ${f.industry ?? null}, ${f.phone ?? null}, ${f.email ?? null}, ${f.website ?? null},
              ${f.address ?? null}, ${f.city ?? null}, ${f.notes ?? null}, ${JSON.stringify(f.custom)}::jsonb, ${createdBy})
      ON CONFLICT (workspace_id, lower(name)) DO NOTHING RETURNING id`.pipe(
      Effect.map((r) => r[0]?.id ?? null),
    ),
  )

/** Changes the given fields; false when the new name is taken. */
export const update = (
  id: number,
  f: ClientFields & {
    readonly customSet?: Readonly<Record<string, unknown>>
    readonly customClear?: readonly string[]
  },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const sets: Fragment[] = [sql`updated_at = now()`]
    for (const k of ['name', ...TEXT_FIELDS] as const) {
      const v = f[k]
      if (v !== undefined) sets.push(sql`${sql(k)} = ${v}`)
    }
    if (f.customSet !== undefined || f.customClear !== undefined)
      sets.push(
        sql`custom = (custom || ${JSON.stringify(f.customSet ?? {})}::jsonb) - ${pgArray(f.customClear ?? [])}::text[]`,
      )
    return sql`UPDATE clients SET ${sql.csv(sets)} WHERE id = ${id}`.pipe(Effect.as(true), orIfTaken(false))
  })

/** Deletes the client; its contacts and leads stay, unlinked (the foreign keys set null). */
export const remove = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DELETE FROM clients WHERE id = ${id} AND workspace_id = ${workspaceId} RETURNING id`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )

export interface LinkedContact {
  readonly id: number
  readonly name: string
  readonly phone: string | null
  readonly email: string | null
  readonly job_title: string | null
}

export const contactsOf = (clientId: number, limit: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<LinkedContact>`SELECT id, name, phone, email, job_title FROM contacts
      WHERE client_id = ${clientId} AND merged_into IS NULL AND deleting_at IS NULL
      ORDER BY lower(name), id LIMIT ${limit}`,
  )

/**
 * Links (or unlinks) a live contact of the workspace; linking also gives the contact's leads
 * without a client this one. Answers null when the contact is unknown, else the leads linked.
 */
export const linkContact = (workspaceId: number, clientId: number, contactId: number, link: boolean) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [c] = yield* sql<{ id: number }>`
          UPDATE contacts SET client_id = ${link ? clientId : null}, updated_at = now()
          WHERE id = ${contactId} AND workspace_id = ${workspaceId} AND merged_into IS NULL AND deleting_at IS NULL
            AND (${link} OR client_id = ${clientId})
          RETURNING id`
        if (!c) {
          const [exists] =
            yield* sql`SELECT 1 FROM contacts WHERE id = ${contactId} AND workspace_id = ${workspaceId}
            AND merged_into IS NULL AND deleting_at IS NULL`
          return exists ? { leads: [] as Array<{ id: number; pipeline_id: number }> } : null
        }
        const leads = link
          ? yield* sql<{ id: number; pipeline_id: number }>`
              UPDATE leads SET client_id = ${clientId}, updated_at = now()
              WHERE workspace_id = ${workspaceId} AND contact_id = ${contactId} AND client_id IS NULL
              RETURNING id, pipeline_id`
          : []
        return { leads }
      }),
    ),
  )
