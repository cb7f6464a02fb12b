import { SqlClient } from '@effect/sql'
import { Effect, Schema } from 'effect'
import type { Caller } from '../../actors/admin/caller'
import { Timestamp } from '../../actors/admin/presenters'
import { invalid } from '../../actors/errors'
import { IdFromString } from '../../actors/fields'
import { addMessages, type Locale, t } from '../../actors/i18n'
import { pageFields, pageMeta, pageOf } from '../../actors/pagination'
import { iso, startOfLocalDay } from '../../engine/time'
import * as Audit from '../../store/audit'
import type { WorkspaceRow } from '../../store/workspaces'
import { ok, type Route, route } from '../route'

/**
 * Spec 1 §4.2 audit log, and `audited`: the one way an administration change is written with its
 * entry (same transaction, so there is never a change without its entry or the reverse).
 */

addMessages({
  'audit.category.workspace': { en: 'Workspace', id: 'Workspace' },
  'audit.category.settings': { en: 'Settings', id: 'Pengaturan' },
  'audit.category.members': { en: 'Members', id: 'Anggota' },
  'audit.category.roles': { en: 'Roles', id: 'Peran' },
  'audit.category.teams': { en: 'Teams', id: 'Tim' },
  'audit.category.api': { en: 'API keys', id: 'Kunci API' },
  'audit.category.billing': { en: 'Billing', id: 'Tagihan' },
  'audit.workspace.created': { en: 'Workspace created', id: 'Workspace dibuat' },
  'audit.workspace.renamed': { en: 'Workspace renamed', id: 'Nama workspace diubah' },
  'audit.workspace.left': { en: 'Member left the workspace', id: 'Anggota keluar dari workspace' },
  'audit.transfer.requested': { en: 'Ownership transfer requested', id: 'Pengalihan kepemilikan diajukan' },
  'audit.transfer.cancelled': { en: 'Ownership transfer cancelled', id: 'Pengalihan kepemilikan dibatalkan' },
  'audit.transfer.accepted': { en: 'Ownership transferred', id: 'Kepemilikan dialihkan' },
  'audit.transfer.declined': { en: 'Ownership transfer declined', id: 'Pengalihan kepemilikan ditolak' },
  'audit.settings.updated': { en: 'General settings changed', id: 'Pengaturan umum diubah' },
  'audit.member.updated': { en: 'Member changed', id: 'Anggota diubah' },
  'audit.member.disabled': { en: 'Member disabled', id: 'Anggota dinonaktifkan' },
  'audit.member.enabled': { en: 'Member enabled', id: 'Anggota diaktifkan' },
  'audit.invitation.created': { en: 'Invitation sent', id: 'Undangan dikirim' },
  'audit.invitation.resent': { en: 'Invitation resent', id: 'Undangan dikirim ulang' },
  'audit.invitation.cancelled': { en: 'Invitation cancelled', id: 'Undangan dibatalkan' },
  'audit.invitation.accepted': { en: 'Invitation accepted', id: 'Undangan diterima' },
  'audit.role.created': { en: 'Role created', id: 'Peran dibuat' },
  'audit.role.updated': { en: 'Role changed', id: 'Peran diubah' },
  'audit.role.duplicated': { en: 'Role duplicated', id: 'Peran diduplikasi' },
  'audit.role.deleted': { en: 'Role deleted', id: 'Peran dihapus' },
  'audit.team.created': { en: 'Team created', id: 'Tim dibuat' },
  'audit.team.updated': { en: 'Team changed', id: 'Tim diubah' },
  'audit.team.deleted': { en: 'Team deleted', id: 'Tim dihapus' },
  'audit.api_key.created': { en: 'API key created', id: 'Kunci API dibuat' },
  'audit.api_key.revoked': { en: 'API key revoked', id: 'Kunci API dicabut' },
  'audit.billing.profile_updated': { en: 'Billing profile changed', id: 'Profil tagihan diubah' },
  'audit.billing.upgrade_started': { en: 'Upgrade invoice issued', id: 'Tagihan upgrade diterbitkan' },
  'audit.billing.checkout_started': { en: 'Payment started', id: 'Pembayaran dimulai' },
  'audit.billing.paid': { en: 'Payment received', id: 'Pembayaran diterima' },
  'audit.billing.downgrade_chosen': {
    en: 'Channels and members for Free chosen',
    id: 'Kanal dan anggota untuk paket Gratis dipilih',
  },
  'audit.billing.downgraded': { en: 'Moved to the Free plan', id: 'Pindah ke paket Gratis' },
  'audit.billing.frozen': { en: 'Workspace frozen', id: 'Workspace dibekukan' },
  'audit.range': { en: 'must not be after `to`', id: 'tidak boleh setelah `to`' },
})

/** Who made a change, where from: the request of an authenticated route. */
export interface Actor {
  readonly caller: Caller
  readonly ip: string
}

export interface EntryInput {
  readonly action: Audit.Action
  readonly workspaceId: number
  readonly target?: string
  readonly details?: string
  readonly data?: Readonly<Record<string, unknown>>
}

/**
 * Runs an administration change and writes its audit entry in the same transaction. `entry`
 * derives the entry from the change's result; null writes none (the change did nothing).
 */
export const audited = <A, E, R>(
  actor: Actor,
  change: Effect.Effect<A, E, R>,
  entry: (a: A) => EntryInput | null,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.tap(change, (a) => {
        const e = entry(a)
        return e
          ? Audit.record({
              workspaceId: e.workspaceId,
              userId: actor.caller.user.id,
              action: e.action,
              ip: actor.ip,
              ...(e.target !== undefined ? { target: e.target } : {}),
              ...(e.details !== undefined ? { details: e.details } : {}),
              ...(e.data !== undefined ? { data: e.data } : {}),
            })
          : Effect.void
      }),
    ),
  )

/** `field: old → new` for each field that changed, joined with `; `. */
export const changes = (pairs: ReadonlyArray<readonly [string, unknown, unknown]>): string =>
  pairs
    .filter(([, a, b]) => JSON.stringify(a) !== JSON.stringify(b))
    .map(([k, a, b]) => `${k}: ${show(a)} → ${show(b)}`)
    .join('; ')

const show = (v: unknown) => (Array.isArray(v) ? `[${v.join(', ')}]` : v === null ? '-' : String(v))

export const EntrySchema = Schema.Struct({
  id: Schema.Number,
  action: Schema.String,
  label: Schema.String,
  category: Schema.Literal(...Audit.categories),
  icon: Schema.String,
  target: Schema.String,
  details: Schema.String,
  user: Schema.NullOr(
    Schema.Struct({ id: Schema.Number, name: Schema.String, avatar_url: Schema.NullOr(Schema.String) }),
  ),
  ip: Schema.String,
  created_at: Timestamp,
})

export const presentEntry = (e: Audit.EntryRow, locale: Locale): typeof EntrySchema.Type => ({
  id: e.id,
  action: e.action,
  label: t(locale, `audit.${e.action}`),
  category: e.category,
  icon: e.icon,
  target: e.target,
  details: e.details,
  user: e.user_id === null ? null : { id: e.user_id, name: e.user_name ?? '', avatar_url: e.user_avatar_url },
  ip: e.ip,
  created_at: iso(e.created_at)!,
})

const LocalDate = Schema.String.pipe(
  Schema.filter((s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), {
    jsonSchema: { pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
  }),
)

const dayStart = (date: string, zone: string, plusDays = 0) => {
  const [y, m, d] = date.split('-').map(Number)
  return startOfLocalDay(y!, m!, d! + plusDays, zone)
}

/** The reader's zone: their own, else the workspace's (spec: dates in the reader's zone). */
const zoneOf = (caller: Caller, workspace: WorkspaceRow) => caller.user.timezone ?? workspace.timezone

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/audit-logs',
    access: 'K',
    permission: 'settings.audit',
    tag: 'Audit log',
    summary: 'Administration changes, newest first; filters category, user, from, to (your zone), q',
    query: Schema.Struct({
      ...pageFields,
      category: Schema.optional(Schema.Literal(...Audit.categories)),
      user: Schema.optional(IdFromString),
      from: Schema.optional(LocalDate),
      to: Schema.optional(LocalDate),
      q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
    }),
    response: Schema.Array(EntrySchema),
    handler: ({ caller, workspace, query, locale }) =>
      Effect.gen(function* () {
        if (query.from && query.to && query.from > query.to)
          return yield* Effect.fail(invalid({ from: { key: 'audit.range' } }))
        const zone = zoneOf(caller, workspace)
        const page = pageOf(query, 50)
        const q = query.q?.trim()
        const { rows, total } = yield* Audit.list(
          workspace.id,
          {
            ...(query.category ? { category: query.category } : {}),
            ...(query.user !== undefined ? { userId: query.user } : {}),
            ...(query.from ? { from: dayStart(query.from, zone) } : {}),
            ...(query.to ? { until: dayStart(query.to, zone, 1) } : {}),
            ...(q ? { q } : {}),
          },
          page.limit,
          page.offset,
        )
        const users = yield* Audit.users(workspace.id)
        return ok(
          rows.map((r) => presentEntry(r, locale)),
          {
            ...pageMeta(page, total),
            categories: Audit.categories.map((key) => ({ key, label: t(locale, `audit.category.${key}`) })),
            users,
            timezone: zone,
          },
        )
      }),
  }),
]
