import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

/**
 * The set-based statements of the CSV import (spec 2 §4.4 `POST /contacts/import`): one lookup,
 * one insert, one update and one label insert per batch of rows, all inside the import's
 * transaction. Values arrive normalised (actors/contacts/csvImport.ts).
 */
export interface ImportValues {
  readonly name: string | null
  readonly phone: string | null
  readonly email: string | null
  readonly company: string | null
  readonly job_title: string | null
  readonly address: string | null
  readonly city: string | null
  readonly language: string | null
  readonly broadcast_opt_out: boolean | null
  readonly custom: Readonly<Record<string, unknown>>
}

/**
 * One import at a time per workspace, so two imports of one file cannot both create; and no
 * write giving a contact a phone or an e-mail meanwhile (they hold `holdOffImports`), since the
 * import looks its rows' addresses up and inserts them without their address locks.
 */
export const lockWorkspace = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT pg_advisory_xact_lock(${workspaceId}, hashtext('contacts:import'))`.pipe(Effect.asVoid),
  )

/**
 * Taken, until the transaction ends, by a write that gives a contact a phone or an e-mail, before
 * its address locks (store/contacts `lockAddresses`): such writes do not wait for each other,
 * but an import waits for them to commit and they wait for an import to commit, so each sees
 * the other's contacts (one phone or one e-mail is one contact).
 */
export const holdOffImports = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT pg_advisory_xact_lock_shared(${workspaceId}, hashtext('contacts:import'))`.pipe(Effect.asVoid),
  )

/** Live contacts of the workspace having one of these phones or e-mails. */
export const matches = (workspaceId: number, phones: readonly string[], emails: readonly string[]) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ id: number; phone: string | null; email: string | null }>`
      SELECT id, phone, email FROM contacts
      WHERE workspace_id = ${workspaceId} AND merged_into IS NULL AND deleting_at IS NULL
        AND (phone = ANY(${`{${phones.map((p) => `"${p}"`).join(',')}}`}::text[])
          OR lower(email) = ANY(${`{${emails.map((e) => `"${e.replace(/["\\]/g, '\\$&')}"`).join(',')}}`}::text[]))
      ORDER BY id`,
  )

const COLS = `name text, phone text, email text, company text, job_title text, address text, city text,
  language text, broadcast_opt_out boolean, custom jsonb`

/** New contacts; answers each one's id with its phone and e-mail (unique within a batch). */
export const insertMany = (workspaceId: number, rows: readonly ImportValues[]) =>
  rows.length === 0
    ? Effect.succeed([] as readonly { id: number; phone: string | null; email: string | null }[])
    : Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ id: number; phone: string | null; email: string | null }>`
          INSERT INTO contacts (workspace_id, name, phone, email, company, job_title, address, city, language,
                                broadcast_opt_out, custom)
          SELECT ${workspaceId}, COALESCE(x.name, x.phone, x.email, ''), x.phone, x.email, x.company, x.job_title,
                 x.address, x.city, x.language, COALESCE(x.broadcast_opt_out, false), x.custom
          FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(${sql.literal(COLS)})
          RETURNING id, phone, email`,
      )

/**
 * Given cells overwrite, empty ones leave the value; custom values are merged. Answers the ids
 * of the contacts that actually changed (an identical row changes nothing).
 */
export const updateMany = (rows: readonly (ImportValues & { readonly id: number })[]) =>
  rows.length === 0
    ? Effect.succeed([] as readonly number[])
    : Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ id: number }>`
          WITH x AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(id bigint, ${sql.literal(COLS)})),
          n AS (
            SELECT c.id, COALESCE(x.name, c.name) AS name, COALESCE(x.phone, c.phone) AS phone,
                   COALESCE(x.email, c.email) AS email, COALESCE(x.company, c.company) AS company,
                   COALESCE(x.job_title, c.job_title) AS job_title, COALESCE(x.address, c.address) AS address,
                   COALESCE(x.city, c.city) AS city, COALESCE(x.language, c.language) AS language,
                   COALESCE(x.broadcast_opt_out, c.broadcast_opt_out) AS broadcast_opt_out,
                   c.custom || x.custom AS custom
            FROM contacts c JOIN x ON x.id = c.id
          )
          UPDATE contacts c SET name = n.name, phone = n.phone, email = n.email, company = n.company,
            job_title = n.job_title, address = n.address, city = n.city, language = n.language,
            broadcast_opt_out = n.broadcast_opt_out, custom = n.custom, updated_at = now()
          FROM n WHERE c.id = n.id
            AND (c.name, c.phone, c.email, c.company, c.job_title, c.address, c.city, c.language, c.broadcast_opt_out, c.custom)
              IS DISTINCT FROM (n.name, n.phone, n.email, n.company, n.job_title, n.address, n.city, n.language, n.broadcast_opt_out, n.custom)
          RETURNING c.id`.pipe(Effect.map((r) => r.map((x) => x.id))),
      )

/** Adds labels to contacts; answers the contacts that gained one. */
export const addLabels = (pairs: readonly { readonly contact_id: number; readonly label_id: number }[]) =>
  pairs.length === 0
    ? Effect.succeed([] as readonly number[])
    : Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ contact_id: number }>`
          INSERT INTO contact_labels (contact_id, label_id)
          SELECT x.contact_id, x.label_id FROM jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb)
            AS x(contact_id bigint, label_id integer)
          ON CONFLICT DO NOTHING RETURNING contact_id`.pipe(Effect.map((r) => r.map((x) => x.contact_id))),
      )

/** One timeline entry per contact the import created or changed. */
export const recordImported = (
  workspaceId: number,
  entries: readonly { readonly contact_id: number; readonly created: boolean }[],
  userId: number,
) =>
  entries.length === 0
    ? Effect.void
    : Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`INSERT INTO contact_events (workspace_id, contact_id, kind, data, user_id)
          SELECT ${workspaceId}, x.contact_id, 'imported', jsonb_build_object('created', x.created), ${userId}
          FROM jsonb_to_recordset(${JSON.stringify(entries)}::jsonb) AS x(contact_id bigint, created boolean)`.pipe(
          Effect.asVoid,
        ),
      )
