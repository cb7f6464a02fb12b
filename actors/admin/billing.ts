import { type Duration, Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import { invalidateCredentials } from '../../engine/events'
import { everyLogged } from '../../engine/loop'
import { iso } from '../../engine/time'
import * as Billing from '../../store/billing'
import * as Channels from '../../store/channels'
import * as Members from '../../store/members'
import { inGrace, limitsOf, planLimits, planPrices } from '../../store/plans'
import * as Users from '../../store/users'
import type { WorkspaceRow } from '../../store/workspaces'
import { ApiError, type FieldMessage, invalid } from '../errors'
import { publish, topics } from '../events'
import { addMessages, t } from '../i18n'
import * as Notifications from '../notifications'
import { audited, changes } from './audit'
import { type InWorkspace, isAdminCaller } from './caller'
import { Timestamp } from './presenters'
import { WorkspaceActor } from './WorkspaceActor'
import { reloadWorkspace } from './workspaces'

/**
 * Spec 1 §4.3 billing: plan and usage, the billing profile, the choice of what stays active on
 * Free, and the plan's movements in time (paid period and grace ending: `settleLoop`). Invoices,
 * checkouts and the provider's answers are in invoices.ts.
 */

addMessages({
  'billing.custom': {
    en: 'This workspace is on a Custom contract; contact us to change it.',
    id: 'Workspace ini memakai kontrak Custom; hubungi kami untuk mengubahnya.',
  },
  'billing.not_open': { en: 'This invoice is no longer open.', id: 'Tagihan ini sudah tidak terbuka.' },
  'billing.provider': {
    en: 'The payment provider cannot be reached; please try again shortly.',
    id: 'Penyedia pembayaran tidak dapat dihubungi; coba lagi sebentar lagi.',
  },
  'billing.too_many': {
    en: 'must have at most {n} items on the Free plan',
    id: 'paling banyak {n} item di paket Gratis',
  },
  'billing.admins_kept': {
    en: 'Only the Owner or an admin may leave an admin out of the members who stay active.',
    id: 'Hanya Pemilik atau admin yang boleh tidak menyertakan admin di antara anggota yang tetap aktif.',
  },
  'billing.unknown_members': {
    en: 'must be members of this workspace (not the Owner)',
    id: 'harus anggota workspace ini (bukan Pemilik)',
  },
  'billing.paid.title': {
    en: 'Payment received: Pro until {date}',
    id: 'Pembayaran diterima: Pro sampai {date}',
  },
  'billing.downgraded.title': {
    en: '{workspace} moved to the Free plan',
    id: '{workspace} pindah ke paket Gratis',
  },
  'billing.frozen.title': {
    en: '{workspace} is frozen: its contract ended',
    id: '{workspace} dibekukan: kontraknya berakhir',
  },
  unauthorized_callback: {
    en: 'The notification could not be verified.',
    id: 'Notifikasi tidak dapat diverifikasi.',
  },
})

const AttemptSchema = Schema.Struct({
  id: Schema.Number,
  provider: Schema.String,
  status: Schema.Literal('pending', 'paid', 'failed', 'expired'),
  checkout_url: Schema.NullOr(Schema.String),
  amount: Schema.Number,
  created_at: Timestamp,
  expires_at: Timestamp,
  updated_at: Timestamp,
})

const InvoiceSchema = Schema.Struct({
  number: Schema.String,
  status: Schema.Literal('open', 'paid', 'void'),
  kind: Schema.Literal('upgrade'),
  plan: Schema.Literal('pro'),
  months: Schema.Number,
  currency: Schema.String,
  subtotal: Schema.Number,
  tax: Schema.Number,
  tax_percent: Schema.Number,
  total: Schema.Number,
  profile: Schema.Record({ key: Schema.String, value: Schema.String }),
  created_at: Timestamp,
  due_at: Timestamp,
  paid_at: Schema.NullOr(Timestamp),
  period_start: Schema.NullOr(Timestamp),
  period_end: Schema.NullOr(Timestamp),
})

export const InvoiceDetailSchema = Schema.Struct({
  ...InvoiceSchema.fields,
  attempts: Schema.Array(AttemptSchema),
})

export const presentAttempt = (a: Billing.AttemptRow, now: Date): typeof AttemptSchema.Type => {
  const expired = a.status === 'pending' && a.expires_at.getTime() <= now.getTime()
  return {
    id: a.id,
    provider: a.provider,
    status: expired ? 'expired' : a.status,
    checkout_url: a.status === 'pending' && !expired ? a.checkout_url : null,
    amount: a.amount,
    created_at: iso(a.created_at)!,
    expires_at: iso(a.expires_at)!,
    updated_at: iso(a.updated_at)!,
  }
}

export const presentInvoice = (i: Billing.InvoiceRow): typeof InvoiceSchema.Type => ({
  number: i.number,
  status: i.status,
  kind: i.kind,
  plan: i.plan,
  months: i.months,
  currency: i.currency,
  subtotal: i.subtotal,
  tax: i.tax,
  tax_percent: Billing.TAX_PERCENT,
  total: i.total,
  profile: i.profile as Record<string, string>,
  created_at: iso(i.created_at)!,
  due_at: iso(i.due_at)!,
  paid_at: iso(i.paid_at),
  period_start: iso(i.period_start),
  period_end: iso(i.period_end),
})

const Quota = Schema.Struct({ used: Schema.Number, limit: Schema.Number })

/** Quota usage of the current periods (workspace zone) against the plan's limits (0 = unlimited). */
export const usageOf = (workspace: WorkspaceRow) =>
  Effect.gen(function* () {
    const limits = limitsOf(workspace)
    const now = yield* currentTime
    const counters = yield* Effect.flatMap(WorkspaceActor, (a) => a.ask(workspace.id, { _tag: 'Usage', now }))
    const channels = yield* Billing.channelUsage(workspace.id)
    const counter = (c: keyof typeof counters) => ({
      used: counters[c].used,
      limit: counters[c].limit,
      resets_at: iso(counters[c].endsAt),
    })
    return {
      channels: { used: channels.used, limit: limits.channels, suspended: channels.suspended },
      users: { used: yield* Members.countActive(workspace.id), limit: limits.users },
      replies_per_day: counter('replies_per_day'),
      tickets_per_month: counter('tickets_per_month'),
      leads_per_month: counter('leads_per_month'),
      ai_per_month: counter('ai_per_month'),
    }
  })

export const UsageSchema = Schema.Struct({
  channels: Schema.Struct({ ...Quota.fields, suspended: Schema.Number }),
  users: Quota,
  replies_per_day: Schema.Struct({ ...Quota.fields, resets_at: Schema.NullOr(Timestamp) }),
  tickets_per_month: Schema.Struct({ ...Quota.fields, resets_at: Schema.NullOr(Timestamp) }),
  leads_per_month: Schema.Struct({ ...Quota.fields, resets_at: Schema.NullOr(Timestamp) }),
  ai_per_month: Schema.Struct({ ...Quota.fields, resets_at: Schema.NullOr(Timestamp) }),
})

export const planOf = (w: WorkspaceRow, now: Date) => ({
  key: w.plan,
  pro_until: iso(w.pro_until),
  in_grace: inGrace(w, now),
  frozen: w.frozen_at !== null,
  limits: limitsOf(w),
})

/** After a plan change: caches dropped, the quota actor reloaded, `billing.updated` with the plan. */
export const billingUpdated = (w: WorkspaceRow, reason: string) =>
  Effect.all([
    invalidateCredentials({ workspaceId: w.id }),
    reloadWorkspace(w.id),
    Effect.flatMap(currentTime, (now) =>
      publish(topics.workspace(w.id), 'billing.updated', { ...planOf(w, now), reason }),
    ),
  ])

/** Tells the workspace's Owner, in their language, with a link to the billing page. */
export const notifyOwner = (w: WorkspaceRow, kind: string, key: string, params: Record<string, string>) =>
  w.owner_user_id === null
    ? Effect.void
    : Effect.flatMap(Users.byId(w.owner_user_id), (u) =>
        u
          ? Notifications.notify({
              workspaceId: w.id,
              userId: u.id,
              kind,
              title: t(u.locale, key, params),
              link: '/settings/billing',
            })
          : Effect.void,
      )

/** After `Billing.settle`: the same announcements for each workspace whose plan moved. */
export const announceSettled = (settled: readonly Billing.Settled[]) =>
  Effect.forEach(settled, (s) =>
    Effect.gen(function* () {
      const w = (yield* Billing.workspaceOf(s.workspaceId))!
      for (const userId of s.dropped) yield* Members.endAccess(userId, w.id)
      yield* billingUpdated(w, s.change)
      yield* notifyOwner(w, `billing.${s.change}`, `billing.${s.change}.title`, { workspace: w.name })
    }),
  )

/**
 * Moves the workspaces whose paid period and grace ended (Pro to Free, Custom to frozen) and
 * announces each change. Run by every node's timer (`settleLoop`) and by `kotak billing settle`;
 * `Billing.settle` locks each workspace, so nodes running it together change each one once.
 */
export const settleNow = (at?: Date) =>
  Effect.flatMap(at ? Effect.succeed(at) : currentTime, (now) =>
    Effect.flatMap(Billing.settle(now), (settled) => Effect.as(announceSettled(settled), settled)),
  )

/** `settleNow` every `every` (default one minute) for the life of the node; errors are logged. */
export const settleLoop = (every: Duration.DurationInput = '1 minute') =>
  everyLogged(
    'billing settle',
    every,
    Effect.suspend(() => settleNow()),
  )

/** Plan, usage, invoices, billing profile, prices and the Free-plan choice. */
export const overview = (workspaceId: number) =>
  Effect.gen(function* () {
    const w = (yield* Billing.workspaceOf(workspaceId))!
    const invoices = yield* Billing.invoices(w.id)
    const channels = yield* Billing.liveChannels(w.id)
    const members = yield* Members.listViews(w.id)
    return {
      plan: planOf(w, yield* currentTime),
      usage: yield* usageOf(w),
      invoices: invoices.map(presentInvoice),
      profile: w.billing_profile,
      prices: {
        currency: 'IDR',
        tax_percent: Billing.TAX_PERCENT,
        pro_monthly: planPrices.pro,
        upgrade: Billing.MONTH_CHOICES.map((months) => ({ months, ...Billing.priceOf(months) })),
      },
      downgrade: {
        limits: planLimits.free,
        choice: w.downgrade_choice,
        channels,
        members: members
          .filter((m) => m.user_id !== w.owner_user_id)
          .map((m) => ({ id: m.id, name: m.user_name, email: m.user_email, status: m.status })),
      },
    }
  })

/** Sets the fields given (an empty string clears one); answers the whole profile. */
export const updateProfile = (ctx: InWorkspace, body: Readonly<Record<string, string | undefined>>) =>
  Effect.gen(function* () {
    const { workspace } = ctx
    const before = (yield* Billing.workspaceOf(workspace.id))!.billing_profile
    const next: Record<string, string> = { ...(before as Record<string, string>) }
    for (const [k, v] of Object.entries(body)) {
      if (v === undefined) continue
      if (v.trim() === '') delete next[k]
      else next[k] = v.trim()
    }
    const w = yield* audited(ctx, Billing.setProfile(workspace.id, next), () => ({
      action: 'billing.profile_updated',
      workspaceId: workspace.id,
      details: changes(
        Object.keys({ ...before, ...next }).map(
          (k) => [k, (before as Record<string, string>)[k] ?? null, next[k] ?? null] as const,
        ),
      ),
    }))
    return w.billing_profile
  })

/**
 * Which channels and members stay active on Free (within Free's limits; the Owner always stays).
 * On Free or frozen it applies now: the others lose access and everyone hears of the change.
 */
export const chooseDowngrade = (
  ctx: InWorkspace,
  choice: { readonly channel_ids: readonly number[]; readonly member_ids: readonly number[] },
) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const channelIds = [...new Set(choice.channel_ids)]
    const memberIds = [...new Set(choice.member_ids)]
    const free = planLimits.free
    const problems: Record<string, FieldMessage> = {}
    if (channelIds.length > free.channels)
      problems.channel_ids = { key: 'billing.too_many', params: { n: free.channels } }
    else if ((yield* Channels.unknownLive(workspace.id, channelIds)).length > 0)
      problems.channel_ids = { key: 'members.unknown_channels' }
    const members = yield* Members.listViews(workspace.id)
    const others = new Set(members.filter((m) => m.user_id !== workspace.owner_user_id).map((m) => m.id))
    if (memberIds.length > free.users - 1)
      problems.member_ids = { key: 'billing.too_many', params: { n: free.users - 1 } }
    else if (memberIds.some((id) => !others.has(id))) problems.member_ids = { key: 'billing.unknown_members' }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    // Leaving someone out disables them: a member who may not change admins (members.ts) may not
    // disable one this way either.
    const adminsLeftOut = members.some(
      (m) =>
        m.status === 'active' &&
        m.role_is_admin &&
        m.user_id !== workspace.owner_user_id &&
        !memberIds.includes(m.id),
    )
    if (adminsLeftOut && !isAdminCaller(caller))
      return yield* Effect.fail(new ApiError({ code: 'forbidden', message: 'billing.admins_kept' }))
    const r = yield* Billing.chooseDowngrade(
      workspace.id,
      { channelIds, memberIds },
      caller.user.id,
      yield* currentTime,
      ctx.ip(),
    )
    if (r.applied) {
      for (const userId of r.dropped) yield* Members.endAccess(userId, workspace.id)
      const w = (yield* Billing.workspaceOf(workspace.id))!
      yield* billingUpdated(w, 'downgraded')
      yield* publish(topics.workspace(workspace.id), 'members.changed', { reason: 'plan_limit' })
    }
    return { applied: r.applied, plan: r.plan, channel_ids: channelIds, member_ids: memberIds }
  })
