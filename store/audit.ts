import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

/**
 * The audit log (spec 1 §2, §4.2): the one writer every administration change goes through, and
 * its reader. `category` and `icon` are fixed by the action, so entries of one kind always look the
 * same; the localized label is the reader's business (actors/admin/audit.ts).
 */
export const categories = ['workspace', 'settings', 'members', 'roles', 'teams', 'api', 'billing'] as const
export type Category = (typeof categories)[number]

const entry = (category: Category, icon: string) => ({ category, icon })

/** Every action the log knows, with its category and icon. */
export const actions = {
  'workspace.created': entry('workspace', 'building'),
  'workspace.renamed': entry('workspace', 'pencil'),
  'workspace.left': entry('members', 'log-out'),
  'transfer.requested': entry('workspace', 'crown'),
  'transfer.cancelled': entry('workspace', 'crown'),
  'transfer.accepted': entry('workspace', 'crown'),
  'transfer.declined': entry('workspace', 'crown'),
  'settings.updated': entry('settings', 'settings'),
  'member.updated': entry('members', 'user-cog'),
  'member.disabled': entry('members', 'user-x'),
  'member.enabled': entry('members', 'user-check'),
  'invitation.created': entry('members', 'mail'),
  'invitation.resent': entry('members', 'mail'),
  'invitation.cancelled': entry('members', 'mail-x'),
  'invitation.accepted': entry('members', 'user-plus'),
  'role.created': entry('roles', 'shield'),
  'role.updated': entry('roles', 'shield'),
  'role.duplicated': entry('roles', 'copy'),
  'role.deleted': entry('roles', 'trash'),
  'team.created': entry('teams', 'users'),
  'team.updated': entry('teams', 'users'),
  'team.deleted': entry('teams', 'trash'),
  'api_key.created': entry('api', 'key'),
  'api_key.revoked': entry('api', 'key'),
  'billing.profile_updated': entry('billing', 'receipt'),
  'billing.upgrade_started': entry('billing', 'credit-card'),
  'billing.checkout_started': entry('billing', 'credit-card'),
  'billing.paid': entry('billing', 'credit-card'),
  'billing.downgrade_chosen': entry('billing', 'list-checks'),
  'billing.downgraded': entry('billing', 'arrow-down'),
  'billing.frozen': entry('billing', 'snowflake'),
} as const satisfies Record<string, { readonly category: Category; readonly icon: string }>

export type Action = keyof typeof actions
export const allActions = Object.keys(actions) as Action[]

export interface NewEntry {
  readonly workspaceId: number
  /** Null for the system (a lapsed plan, a provider's payment confirmation). */
  readonly userId: number | null
  readonly action: Action
  readonly target?: string
  readonly details?: string
  readonly ip?: string
  readonly data?: Readonly<Record<string, unknown>>
  /** When it happened; the database's clock unless given (imports, tests). */
  readonly at?: Date
}

export interface EntryRow {
  readonly id: number
  readonly workspace_id: number
  readonly user_id: number | null
  readonly user_name: string | null
  readonly user_avatar_url: string | null
  readonly action: Action
  readonly category: Category
  readonly icon: string
  readonly target: string
  readonly details: string
  readonly ip: string
  readonly data: Readonly<Record<string, unknown>>
  readonly created_at: Date
}

/** Writes one entry. Call it inside the transaction of the change it records. */
export const record = (e: NewEntry) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const { category, icon } = actions[e.action]
    return sql`
      INSERT INTO audit_logs (workspace_id, user_id, action, category, icon, target, details, ip, data, created_at)
      VALUES (${e.workspaceId}, ${e.userId}, ${e.action}, ${category}, ${icon}, ${e.target ?? ''},
              ${e.details ?? ''}, ${e.ip ?? ''}, ${JSON.stringify(e.data ?? {})}::jsonb, ${e.at ?? sql`now()`})`.pipe(
      Effect.asVoid,
    )
  })

export interface Filter {
  readonly category?: Category
  readonly userId?: number
  /** Inclusive lower and exclusive upper bound (instants; the reader's local days already resolved). */
  readonly from?: Date
  readonly until?: Date
  readonly q?: string
}

const like = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** One page of entries, newest first, and the total matching the filter. */
export const list = (workspaceId: number, f: Filter, limit: number, offset: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const where = [sql`a.workspace_id = ${workspaceId}`]
    if (f.category) where.push(sql`a.category = ${f.category}`)
    if (f.userId !== undefined) where.push(sql`a.user_id = ${f.userId}`)
    if (f.from) where.push(sql`a.created_at >= ${f.from}`)
    if (f.until) where.push(sql`a.created_at < ${f.until}`)
    if (f.q) {
      const p = like(f.q)
      where.push(sql`(a.target ILIKE ${p} OR a.details ILIKE ${p} OR a.action ILIKE ${p})`)
    }
    const cond = sql.and(where)
    return Effect.all({
      rows: sql<EntryRow>`
        SELECT a.*, u.name AS user_name, u.avatar_url AS user_avatar_url
        FROM audit_logs a LEFT JOIN users u ON u.id = a.user_id
        WHERE ${cond} ORDER BY a.created_at DESC, a.id DESC LIMIT ${limit} OFFSET ${offset}`,
      total: sql<{ n: number }>`SELECT count(*) AS n FROM audit_logs a WHERE ${cond}`.pipe(
        Effect.map((r) => r[0]!.n),
      ),
    })
  })

/** Everyone who appears in the workspace's log (the `user` filter's choices). */
export const users = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ id: number; name: string }>`
      SELECT u.id, u.name FROM users u
      WHERE u.id IN (SELECT DISTINCT user_id FROM audit_logs WHERE workspace_id = ${workspaceId} AND user_id IS NOT NULL)
      ORDER BY lower(u.name), u.id`,
  )

/** Who wrote an entry, from where. */
export interface Author {
  readonly userId: number
  readonly ip: string
}

export type EntryOf = Omit<NewEntry, 'userId' | 'ip' | 'at'>

/**
 * Runs a change and writes its entry in the same transaction, so there is never a change without
 * its entry or the reverse. `entry` derives the entry from the change's result; null writes none
 * (the change did nothing).
 */
export const withEntry = <A, E, R>(
  by: Author,
  change: Effect.Effect<A, E, R>,
  entry: (a: A) => EntryOf | null,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.tap(change, (a) => {
        const e = entry(a)
        return e ? record({ ...e, userId: by.userId, ip: by.ip }) : Effect.void
      }),
    ),
  )
