import { Effect, Schema } from 'effect'
import { iso, startOfLocalDay } from '../../engine/time'
import * as Audit from '../../store/audit'
import { invalid } from '../errors'
import { addMessages, type Locale, t } from '../i18n'
import type { InWorkspace, Origin } from './caller'
import { Timestamp } from './presenters'

/**
 * Spec 1 §4.2 audit log: `audited`, the one way an administration change is written with its entry
 * (same transaction), the entry's resource shape and the log's reader.
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

export type EntryInput = Audit.EntryOf

/**
 * Runs an administration change and writes its audit entry in the same transaction. `entry`
 * derives the entry from the change's result; null writes none (the change did nothing).
 */
export const audited = <A, E, R>(
  origin: Origin,
  change: Effect.Effect<A, E, R>,
  entry: (a: A) => EntryInput | null,
) => Audit.withEntry({ userId: origin.caller.user.id, ip: origin.ip() }, change, entry)

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

/** The newest entries (the dashboard's recent activity). */
export const latest = (workspaceId: number, n: number, locale: Locale) =>
  Effect.map(Audit.list(workspaceId, {}, n, 0), ({ rows }) => rows.map((r) => presentEntry(r, locale)))

export interface Search {
  readonly category?: Audit.Category | undefined
  readonly user?: number | undefined
  /** Local dates (`YYYY-MM-DD`) in the reader's zone, both included. */
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly q?: string | undefined
}

const dayStart = (date: string, zone: string, plusDays = 0) => {
  const [y, m, d] = date.split('-').map(Number)
  return startOfLocalDay(y!, m!, d! + plusDays, zone)
}

/**
 * One page of the log with its filter choices. Dates are the reader's days: their own zone, else
 * the workspace's (the spec reads dates in the reader's zone).
 */
export const search = (
  ctx: InWorkspace,
  s: Search,
  page: { readonly limit: number; readonly offset: number },
  locale: Locale,
) =>
  Effect.gen(function* () {
    if (s.from && s.to && s.from > s.to) return yield* Effect.fail(invalid({ from: { key: 'audit.range' } }))
    const { workspace } = ctx
    const zone = ctx.caller.user.timezone ?? workspace.timezone
    const q = s.q?.trim()
    const { rows, total } = yield* Audit.list(
      workspace.id,
      {
        ...(s.category ? { category: s.category } : {}),
        ...(s.user !== undefined ? { userId: s.user } : {}),
        ...(s.from ? { from: dayStart(s.from, zone) } : {}),
        ...(s.to ? { until: dayStart(s.to, zone, 1) } : {}),
        ...(q ? { q } : {}),
      },
      page.limit,
      page.offset,
    )
    return {
      entries: rows.map((r) => presentEntry(r, locale)),
      total,
      categories: Audit.categories.map((key) => ({ key, label: t(locale, `audit.category.${key}`) })),
      users: yield* Audit.users(workspace.id),
      timezone: zone,
    }
  })
