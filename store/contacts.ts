import { SqlClient } from '@effect/sql'
import type { Fragment } from '@effect/sql/Statement'
import { Effect } from 'effect'
import { pgArray } from './arrays'

/**
 * Contacts (spec 2 §2, §4.4): the record conversations point at, its labels, the list with its
 * filters and orders, and the batch upsert of the CSV import. Channels create contacts through
 * `matchOrCreate` / `create`; the domain rules (normalisation, merge, delete) are in actors/contacts.
 */
export interface ContactRow {
  readonly id: number
  readonly workspace_id: number
  readonly name: string
  readonly phone: string | null
  readonly email: string | null
  readonly avatar_file_id: number | null
  readonly company: string | null
  readonly job_title: string | null
  readonly address: string | null
  readonly city: string | null
  readonly language: string | null
  readonly owner_id: number | null
  readonly custom: Readonly<Record<string, unknown>>
  readonly broadcast_opt_out: boolean
  readonly merged_into: number | null
  readonly deleting_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

/** A contact with its service label ids (list, detail, export). */
export interface ContactView extends ContactRow {
  readonly label_ids: readonly number[]
}

/** Listed and matched: not on its way out through a merge or a delete. */
const LIVE = 'c.merged_into IS NULL AND c.deleting_at IS NULL'
const VIEW = `SELECT c.*, COALESCE((SELECT array_agg(cl.label_id ORDER BY cl.label_id) FROM contact_labels cl
  WHERE cl.contact_id = c.id), '{}') AS label_ids FROM contacts c`

export const byId = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ContactRow>`SELECT * FROM contacts WHERE id = ${id} AND workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** A live contact with its label ids, or null (another workspace's, merged or being deleted). */
export const viewById = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ContactView>`${sql.literal(VIEW)} WHERE c.id = ${id} AND c.workspace_id = ${workspaceId} AND ${sql.literal(LIVE)}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const create = (
  workspaceId: number,
  c: { readonly name: string; readonly phone?: string | null; readonly email?: string | null },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ContactRow>`
      INSERT INTO contacts (workspace_id, name, phone, email)
      VALUES (${workspaceId}, ${c.name}, ${c.phone ?? null}, ${c.email ?? null}) RETURNING *`.pipe(
      Effect.map((r) => r[0]!),
    ),
  )

/**
 * The contact a channel's customer is: an existing one of the workspace with the same e-mail
 * (case-insensitive), else the same phone, else a new one; a contact being merged answers its
 * merge target, one being deleted is not matched. Joins the caller's transaction and holds a
 * key-share lock on the contact found until it ends, so a merge or delete of that contact waits
 * for the conversation being attached and then moves or removes it too. When the contact found
 * was deleted meanwhile the lock skips it, and the second look (a fresh snapshot) finds the merge
 * target, which took over its phone or e-mail where it had none.
 */
export const matchOrCreate = (
  workspaceId: number,
  c: { readonly name: string; readonly phone: string | null; readonly email: string | null },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const look = sql<{ id: number }>`
        SELECT COALESCE(c.merged_into, c.id) AS id FROM contacts c
        WHERE c.workspace_id = ${workspaceId} AND c.deleting_at IS NULL
          AND ((${c.email}::text IS NOT NULL AND lower(c.email) = lower(${c.email}))
            OR (${c.email}::text IS NULL AND ${c.phone}::text IS NOT NULL AND c.phone = ${c.phone}))
        ORDER BY c.id LIMIT 1 FOR KEY SHARE`
      const [known] = yield* look
      if (known) return { id: known.id, created: false }
      const [again] = yield* look
      if (again) return { id: again.id, created: false }
      return { id: (yield* create(workspaceId, c)).id, created: true }
    }),
  )

// ---- The list ---------------------------------------------------------------------------------

/** The list's orders, and `created_asc` (oldest first) for the export. */
export type Sort = 'recent' | 'name' | 'created' | 'created_asc'

export interface ListFilter {
  readonly q?: string
  readonly labelId?: number
  readonly msgappLabelId?: string
  readonly owner?: 'none' | number
  readonly channelId?: number
}

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`

const whereOf = (sql: SqlClient.SqlClient, workspaceId: number, f: ListFilter): Fragment => {
  const parts: Fragment[] = [sql`c.workspace_id = ${workspaceId}`, sql.literal(LIVE)]
  if (f.q) {
    const p = likePattern(f.q)
    parts.push(sql`(c.name ILIKE ${p} OR c.phone ILIKE ${p} OR c.email ILIKE ${p} OR c.company ILIKE ${p})`)
  }
  if (f.labelId !== undefined)
    parts.push(
      sql`EXISTS (SELECT 1 FROM contact_labels cl WHERE cl.contact_id = c.id AND cl.label_id = ${f.labelId})`,
    )
  if (f.msgappLabelId !== undefined)
    parts.push(
      sql`EXISTS (SELECT 1 FROM contact_msgapp_labels ml WHERE ml.contact_id = c.id AND ml.label_id = ${f.msgappLabelId}
        ${f.channelId !== undefined ? sql`AND ml.channel_id = ${f.channelId}` : sql``})`,
    )
  if (f.owner === 'none') parts.push(sql`c.owner_id IS NULL`)
  else if (f.owner !== undefined) parts.push(sql`c.owner_id = ${f.owner}`)
  if (f.channelId !== undefined)
    parts.push(
      sql`EXISTS (SELECT 1 FROM conversations cv WHERE cv.contact_id = c.id AND cv.channel_id = ${f.channelId})`,
    )
  return sql.and(parts)
}

/**
 * The value each order sorts on (with `id` as the tie-breaker); `recent` = the latest of the
 * contact's creation and its conversations' last activity.
 */
const SORT_KEY: Readonly<Record<Sort, string>> = {
  recent: `GREATEST(c.created_at, (SELECT max(COALESCE(cv.last_message_at, cv.created_at)) FROM conversations cv WHERE cv.contact_id = c.id))`,
  created: 'c.created_at',
  created_asc: 'c.created_at',
  name: 'lower(c.name)',
}
const ASCENDING: Readonly<Record<Sort, boolean>> = {
  recent: false,
  created: false,
  created_asc: true,
  name: true,
}

/** A position in a sorted list: the sort value and id of the last row seen. */
export interface Cursor {
  readonly v: string
  readonly id: number
}

export interface ListPage {
  readonly limit: number
  readonly offset: number
  readonly after?: Cursor
}

export const list = (workspaceId: number, f: ListFilter, sort: Sort, page: ListPage) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const key = SORT_KEY[sort]
    const asc = ASCENDING[sort]
    const where = [whereOf(sql, workspaceId, f)]
    if (page.after) {
      const v = sort === 'name' ? sql`${page.after.v}` : sql`${page.after.v}::timestamptz`
      where.push(
        asc
          ? sql`(${sql.literal(key)}, c.id) > (${v}, ${page.after.id})`
          : sql`(${sql.literal(key)}, c.id) < (${v}, ${page.after.id})`,
      )
    }
    const dir = asc ? 'ASC' : 'DESC'
    // The sort value as text keeps a timestamp's microseconds, so a cursor resumes exactly.
    return sql<ContactView & { sort_key: string }>`
      ${sql.literal(VIEW.replace('FROM contacts c', `, (${key})::text AS sort_key FROM contacts c`))}
      WHERE ${sql.and(where)}
      ORDER BY ${sql.literal(`${key} ${dir}, c.id ${dir}`)}
      LIMIT ${page.limit} OFFSET ${page.after ? 0 : page.offset}`
  })

export const count = (workspaceId: number, f: ListFilter) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM contacts c WHERE ${whereOf(sql, workspaceId, f)}`.pipe(
      Effect.map((r) => r[0]?.n ?? 0),
    ),
  )

// ---- Writes -----------------------------------------------------------------------------------

/** The fields of spec 2 §2 a contact is written with (already normalised by the domain). */
export interface ContactFields {
  readonly name?: string
  readonly phone?: string | null
  readonly email?: string | null
  readonly company?: string | null
  readonly job_title?: string | null
  readonly address?: string | null
  readonly city?: string | null
  readonly language?: string | null
  readonly owner_id?: number | null
}
export const TEXT_FIELDS = [
  'name',
  'phone',
  'email',
  'company',
  'job_title',
  'address',
  'city',
  'language',
] as const

export const insert = (
  workspaceId: number,
  c: ContactFields & { readonly custom: Readonly<Record<string, unknown>> },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ContactRow>`
      INSERT INTO contacts (workspace_id, name, phone, email, company, job_title, address, city, language, owner_id, custom)
      VALUES (${workspaceId}, ${c.name ?? ''}, ${c.phone ?? null}, ${c.email ?? null}, ${c.company ?? null},
              ${c.job_title ?? null}, ${c.address ?? null}, ${c.city ?? null}, ${c.language ?? null},
              ${c.owner_id ?? null}, ${JSON.stringify(c.custom)}::jsonb)
      RETURNING *`.pipe(Effect.map((r) => r[0]!)),
  )

/** Only the fields given change; `customSet` is merged into `custom`, `customClear` keys removed. */
export const update = (
  id: number,
  c: ContactFields & {
    readonly customSet?: Readonly<Record<string, unknown>>
    readonly customClear?: readonly string[]
    readonly broadcast_opt_out?: boolean
  },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const sets: Fragment[] = [sql`updated_at = now()`]
    for (const k of [...TEXT_FIELDS, 'owner_id', 'broadcast_opt_out'] as const) {
      const v = c[k]
      if (v !== undefined) sets.push(sql`${sql(k)} = ${v}`)
    }
    if (c.customSet !== undefined || c.customClear !== undefined)
      sets.push(
        sql`custom = (custom || ${JSON.stringify(c.customSet ?? {})}::jsonb) - ${pgArray(c.customClear ?? [])}::text[]`,
      )
    return sql<ContactRow>`UPDATE contacts SET ${sql.csv(sets)} WHERE id = ${id} RETURNING *`.pipe(
      Effect.map((r) => r[0] ?? null),
    )
  })

/**
 * Serialises, until the transaction ends, the writes that give a contact one of these phones or
 * e-mails (normalised), so the check that no other live contact holds it and the write that
 * follows see each other (one phone or one e-mail is one contact). In sorted order: no deadlock.
 */
export const lockAddresses = (workspaceId: number, addresses: readonly string[]) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(
      [...new Set(addresses)].sort(),
      (a) => sql`SELECT pg_advisory_xact_lock(${workspaceId}, hashtext(${`contacts:address:${a}`}))`,
      { discard: true },
    ),
  )

/** Replaces the contact's labels with `labelIds` (already checked to be the workspace's). */
export const setLabels = (contactId: number, labelIds: readonly number[]) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      yield* sql`DELETE FROM contact_labels WHERE contact_id = ${contactId}
        AND NOT (label_id = ANY(${pgArray(labelIds)}::int[]))`
      if (labelIds.length > 0)
        yield* sql`INSERT INTO contact_labels (contact_id, label_id)
          SELECT ${contactId}, unnest(${pgArray(labelIds)}::int[]) ON CONFLICT DO NOTHING`
    }),
  )

export const removeLabel = (contactId: number, labelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DELETE FROM contact_labels WHERE contact_id = ${contactId} AND label_id = ${labelId} RETURNING 1`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )

/** One entry of the contact's timeline of changes. */
export const recordEvent = (
  workspaceId: number,
  contactId: number,
  kind: string,
  data: Readonly<Record<string, unknown>>,
  userId: number | null,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO contact_events (workspace_id, contact_id, kind, data, user_id)
      VALUES (${workspaceId}, ${contactId}, ${kind}, ${JSON.stringify(data)}::jsonb, ${userId})`.pipe(
      Effect.asVoid,
    ),
  )

/** Messaging-app business labels the phone put on (or took off) a contact's chat. */
export const markMsgappLabel = (contactId: number, channelId: number, labelId: string, on: boolean) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    (on
      ? sql`INSERT INTO contact_msgapp_labels (contact_id, channel_id, label_id)
          VALUES (${contactId}, ${channelId}, ${labelId}) ON CONFLICT DO NOTHING`
      : sql`DELETE FROM contact_msgapp_labels WHERE contact_id = ${contactId} AND channel_id = ${channelId}
          AND label_id = ${labelId}`
    ).pipe(Effect.asVoid),
  )

// ---- Labels (the parts channels and the inbox use; the label resource is store/contactLabels) --

export interface LabelRow {
  readonly id: number
  readonly workspace_id: number
  readonly name: string
  readonly color: string
  readonly position: number
}

/** How many of these ids name contacts of this workspace (another workspace's count as none). */
export const countInWorkspace = (workspaceId: number, ids: readonly number[]) =>
  ids.length === 0
    ? Effect.succeed(0)
    : Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM contacts
          WHERE workspace_id = ${workspaceId} AND id = ANY(${pgArray(ids)}::bigint[])`.pipe(
          Effect.map((r) => r[0]?.n ?? 0),
        ),
      )

export const labelById = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<LabelRow>`SELECT * FROM labels WHERE id = ${id} AND workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const labelsByIds = (workspaceId: number, ids: readonly number[]) =>
  ids.length === 0
    ? Effect.succeed([] as readonly LabelRow[])
    : Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<LabelRow>`SELECT * FROM labels WHERE workspace_id = ${workspaceId} AND id IN ${sql.in(ids)}`,
      )

export const createLabel = (workspaceId: number, name: string, color = '') =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<LabelRow>`INSERT INTO labels (workspace_id, name, color) VALUES (${workspaceId}, ${name}, ${color}) RETURNING *`.pipe(
      Effect.map((r) => r[0]!),
    ),
  )

/** Adds a label to a contact (nothing happens when it has it already). */
export const addLabel = (contactId: number, labelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO contact_labels (contact_id, label_id) VALUES (${contactId}, ${labelId}) ON CONFLICT DO NOTHING`.pipe(
      Effect.asVoid,
    ),
  )

export const labelsOf = (contactId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<LabelRow>`
      SELECT l.* FROM labels l JOIN contact_labels cl ON cl.label_id = l.id
      WHERE cl.contact_id = ${contactId} ORDER BY l.position, l.id`,
  )
