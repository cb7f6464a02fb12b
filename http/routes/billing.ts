import { type Duration, Effect, Schedule, Schema } from 'effect'
import type { Caller } from '../../actors/admin/caller'
import * as PaymentProvider from '../../actors/admin/PaymentProvider'
import { Timestamp } from '../../actors/admin/presenters'
import { WorkspaceActor } from '../../actors/admin/WorkspaceActor'
import { ApiError, conflict, type FieldMessage, invalid, notFound } from '../../actors/errors'
import { Id } from '../../actors/fields'
import { addMessages, t } from '../../actors/i18n'
import * as PaymentProviderLocal from '../../connectors/payments/PaymentProviderLocal'
import { Config } from '../../engine/config'
import { invalidateCredentials, publishEvent } from '../../engine/events'
import { Log } from '../../engine/log'
import { iso } from '../../engine/time'
import * as Billing from '../../store/billing'
import * as Members from '../../store/members'
import * as Notifications from '../../store/notifications'
import { inGrace, limitsOf, planLimits, planPrices } from '../../store/plans'
import * as Users from '../../store/users'
import type { WorkspaceRow } from '../../store/workspaces'
import { ok, type Route, raw, route } from '../route'
import { audited, changes } from './auditLogs'
import { unknownChannels } from './members'
import { reloadWorkspace } from './workspaces'

/**
 * Spec 1 §4.3 billing: plan, usage, invoices with their payment attempts, the upgrade invoice
 * (issued once, reused) paid through the payment-provider port, the billing profile, the choice of
 * what stays active on Free, and the provider's way back (`GET /billing/return` asks the provider;
 * `POST /payments/{provider}/callback` hears it). Every route works while the workspace is frozen.
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

const InvoiceDetailSchema = Schema.Struct({ ...InvoiceSchema.fields, attempts: Schema.Array(AttemptSchema) })

const presentAttempt = (a: Billing.AttemptRow, now: Date): typeof AttemptSchema.Type => {
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

const presentInvoice = (i: Billing.InvoiceRow): typeof InvoiceSchema.Type => ({
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

const detail = (i: Billing.InvoiceRow) =>
  Effect.map(Billing.attemptsOf(i.id), (attempts) => {
    const now = new Date()
    return { ...presentInvoice(i), attempts: attempts.map((a) => presentAttempt(a, now)) }
  })

const Quota = Schema.Struct({ used: Schema.Number, limit: Schema.Number })

/** Quota usage of the current periods (workspace zone) against the plan's limits (0 = unlimited). */
export const usageOf = (workspace: WorkspaceRow) =>
  Effect.gen(function* () {
    const limits = limitsOf(workspace)
    const counters = yield* Effect.flatMap(WorkspaceActor, (a) =>
      a.ask(workspace.id, { _tag: 'Usage', now: new Date() }),
    ).pipe(Effect.catchTag('WorkspaceNotFound', () => Effect.fail(notFound())))
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
      ai_per_month: counter('ai_per_month'),
    }
  })

export const UsageSchema = Schema.Struct({
  channels: Schema.Struct({ ...Quota.fields, suspended: Schema.Number }),
  users: Quota,
  replies_per_day: Schema.Struct({ ...Quota.fields, resets_at: Schema.NullOr(Timestamp) }),
  tickets_per_month: Schema.Struct({ ...Quota.fields, resets_at: Schema.NullOr(Timestamp) }),
  ai_per_month: Schema.Struct({ ...Quota.fields, resets_at: Schema.NullOr(Timestamp) }),
})

const planOf = (w: WorkspaceRow) => ({
  key: w.plan,
  pro_until: iso(w.pro_until),
  in_grace: inGrace(w, new Date()),
  frozen: w.frozen_at !== null,
  limits: limitsOf(w),
})

/** After a plan change: caches dropped, the quota actor reloaded, `billing.updated` with the plan. */
export const billingUpdated = (w: WorkspaceRow, reason: string) =>
  Effect.all([
    invalidateCredentials({ workspaceId: w.id }),
    reloadWorkspace(w.id),
    publishEvent(`ws:${w.id}`, 'billing.updated', { ...planOf(w), reason }),
  ])

const notifyOwner = (w: WorkspaceRow, kind: string, key: string, params: Record<string, string>) =>
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

/**
 * Records what the provider said about one of its checkouts and, after the commit, tells everyone
 * concerned: events, cached credentials, the quota actor, the Owner's notification. Used by the
 * return page, the provider's callback and the operator CLI.
 */
export const settlePayment = (provider: string, externalId: string, status: Billing.AttemptStatus) =>
  Effect.gen(function* () {
    const outcome = yield* Billing.recordPayment(provider, externalId, status, new Date())
    if (outcome._tag === 'Paid') {
      const w = (yield* Billing.workspaceOf(outcome.workspaceId))!
      yield* billingUpdated(w, 'paid')
      yield* notifyOwner(w, 'billing.paid', 'billing.paid.title', {
        date: iso(outcome.proUntil)!.slice(0, 10),
      })
    }
    return outcome
  })

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
export const settleNow = (now: Date = new Date()) =>
  Effect.flatMap(Billing.settle(now), (settled) => Effect.as(announceSettled(settled), settled))

/** `settleNow` every `every` (default one minute) for the life of the node; errors are logged. */
export const settleLoop = (every: Duration.DurationInput = '1 minute') =>
  Effect.suspend(() => settleNow()).pipe(
    Effect.catchAllCause((cause) =>
      Effect.flatMap(Log, (log) =>
        Effect.sync(() => log.error('billing settle failed', { cause: String(cause) })),
      ),
    ),
    Effect.repeat(Schedule.spaced(every)),
  )

/**
 * The operator's confirmation of an invoice paid outside the server (the local provider): marks
 * its newest pending local checkout paid (or failed) and settles it like a provider callback.
 */
export const confirmLocal = (invoiceNumber: string, status: 'paid' | 'failed') =>
  Effect.gen(function* () {
    const attempt = yield* Billing.latestAttemptByNumber(invoiceNumber, PaymentProviderLocal.NAME)
    if (!attempt) return null
    yield* PaymentProviderLocal.confirm(attempt.external_id, status)
    return yield* settlePayment(PaymentProviderLocal.NAME, attempt.external_id, status)
  })

/** The checkout of an open invoice: a still-valid attempt is reused, else the provider makes one. */
const checkoutFor = (caller: Caller, invoice: Billing.InvoiceRow) =>
  Billing.withInvoiceLock(
    invoice.id,
    Effect.gen(function* () {
      const now = new Date()
      const valid = yield* Billing.validAttempt(invoice.id, now)
      if (valid) return { attempt: valid, reused: true }
      const provider = yield* PaymentProvider.current
      const cfg = yield* Config
      const expiresAt = new Date(now.getTime() + Billing.CHECKOUT_HOURS * 3_600_000)
      const c = yield* provider
        .createCheckout({
          reference: `${invoice.number}-${now.getTime()}`,
          invoiceNumber: invoice.number,
          amount: invoice.total,
          currency: invoice.currency,
          description: `Kotak Pro × ${invoice.months}`,
          customer: {
            name: invoice.profile.name || caller.user.name,
            email: invoice.profile.email || caller.user.email,
          },
          returnUrl: `${cfg.publicUrl}/billing/return?invoice=${encodeURIComponent(invoice.number)}`,
          expiresAt,
        })
        .pipe(
          Effect.mapError(
            () =>
              new ApiError({
                code: 'unavailable',
                message: 'billing.provider',
                headers: { 'Retry-After': '5' },
              }),
          ),
        )
      const attempt = yield* Billing.addAttempt({
        invoiceId: invoice.id,
        provider: provider.name,
        externalId: c.externalId,
        checkoutUrl: c.checkoutUrl,
        amount: invoice.total,
        expiresAt: c.expiresAt,
      })
      return { attempt, reused: false }
    }),
  )

const invoiceOr404 = (workspaceId: number, number: string) =>
  Effect.flatMap(Billing.invoiceByNumber(workspaceId, number), (i) =>
    i ? Effect.succeed(i) : Effect.fail(notFound()),
  )

const NumberParam = Schema.Struct({ number: Schema.String.pipe(Schema.pattern(/^INV-\d{6}-\d{6,}$/)) })
const Ids = Schema.Array(Id).pipe(Schema.maxItems(1000))
const ProfileText = (max: number) => Schema.optional(Schema.String.pipe(Schema.maxLength(max)))

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/billing',
    access: 'A',
    permission: 'settings.billing',
    tag: 'Billing',
    summary: 'Plan, usage, invoices, billing profile, prices and the Free-plan choice',
    handler: ({ workspace }) =>
      Effect.gen(function* () {
        const w = (yield* Billing.workspaceOf(workspace.id))!
        const invoices = yield* Billing.invoices(w.id)
        const channels = yield* Billing.liveChannels(w.id)
        const members = yield* Members.listViews(w.id)
        return ok({
          plan: planOf(w),
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
        })
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/billing/upgrade',
    access: 'A',
    permission: 'settings.billing',
    whileFrozen: true,
    tag: 'Billing',
    summary: 'Issue (or reuse) the Pro upgrade invoice and open a checkout at the payment provider',
    body: Schema.Struct({
      months: Schema.optionalWith(Schema.Literal(...Billing.MONTH_CHOICES), { default: () => 1 as const }),
    }),
    handler: (req) =>
      Effect.gen(function* () {
        const { caller, workspace, body } = req
        if (workspace.plan === 'custom' && workspace.frozen_at === null)
          return yield* Effect.fail(conflict('billing.custom'))
        const { invoice, reused } = yield* Billing.openUpgrade(
          workspace.id,
          body.months,
          caller.user.id,
          new Date(),
          req.ip,
        )
        const { attempt } = yield* checkoutFor(caller, invoice)
        return ok({
          invoice: yield* detail(invoice),
          checkout_url: attempt.checkout_url,
          reused_invoice: reused,
        })
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/billing/invoices/{number}',
    access: 'A',
    permission: 'settings.billing',
    tag: 'Billing',
    summary: 'An invoice with its payment attempts',
    params: NumberParam,
    response: InvoiceDetailSchema,
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        return ok(yield* detail(yield* invoiceOr404(workspace.id, params.number)))
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/billing/invoices/{number}/pay',
    access: 'A',
    permission: 'settings.billing',
    whileFrozen: true,
    tag: 'Billing',
    summary: 'A checkout URL for an open invoice; a still-valid attempt is reused',
    params: NumberParam,
    handler: (req) =>
      Effect.gen(function* () {
        const { caller, workspace, params } = req
        const invoice = yield* invoiceOr404(workspace.id, params.number)
        if (invoice.status !== 'open') return yield* Effect.fail(conflict('billing.not_open'))
        // A new payment attempt is a change worth an entry; a reused one is not.
        const { attempt, reused } = yield* audited(req, checkoutFor(caller, invoice), (r) =>
          r.reused
            ? null
            : {
                action: 'billing.checkout_started',
                workspaceId: workspace.id,
                target: invoice.number,
                details: `${r.attempt.provider}, ${invoice.total} ${invoice.currency}`,
              },
        )
        return ok({
          checkout_url: attempt.checkout_url,
          attempt: presentAttempt(attempt, new Date()),
          reused,
        })
      }),
  }),
  route({
    method: 'PATCH',
    path: '/v1/billing/profile',
    access: 'A',
    permission: 'settings.billing',
    whileFrozen: true,
    tag: 'Billing',
    summary: 'The billing profile copied onto upcoming invoices (empty string clears a field)',
    body: Schema.Struct({
      name: ProfileText(120),
      email: Schema.optional(
        Schema.String.pipe(
          Schema.filter((s) => s === '' || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s.trim()), {
            message: () => 'field.email',
            jsonSchema: { format: 'email' },
          }),
        ),
      ),
      company: ProfileText(200),
      address: ProfileText(500),
      tax_id: ProfileText(40),
      phone: ProfileText(40),
    }),
    handler: (req) =>
      Effect.gen(function* () {
        const { workspace, body } = req
        const before = (yield* Billing.workspaceOf(workspace.id))!.billing_profile
        const next: Record<string, string> = { ...(before as Record<string, string>) }
        for (const [k, v] of Object.entries(body)) {
          if (v === undefined) continue
          if (v.trim() === '') delete next[k]
          else next[k] = v.trim()
        }
        const w = yield* audited(req, Billing.setProfile(workspace.id, next), () => ({
          action: 'billing.profile_updated',
          workspaceId: workspace.id,
          details: changes(
            Object.keys({ ...before, ...next }).map(
              (k) => [k, (before as Record<string, string>)[k] ?? null, next[k] ?? null] as const,
            ),
          ),
        }))
        return ok(w.billing_profile)
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/billing/downgrade-choice',
    access: 'A',
    permission: 'settings.billing',
    whileFrozen: true,
    tag: 'Billing',
    summary: 'Choose which channels and members stay active on Free (applies now on Free or frozen)',
    body: Schema.Struct({ channel_ids: Ids, member_ids: Ids }),
    handler: (req) =>
      Effect.gen(function* () {
        const { caller, workspace, body } = req
        const channelIds = [...new Set(body.channel_ids)]
        const memberIds = [...new Set(body.member_ids)]
        const free = planLimits.free
        const problems: Record<string, FieldMessage> = {}
        if (channelIds.length > free.channels)
          problems.channel_ids = { key: 'billing.too_many', params: { n: free.channels } }
        else if ((yield* unknownChannels(workspace.id, channelIds)).length > 0)
          problems.channel_ids = { key: 'members.unknown_channels' }
        const members = yield* Members.listViews(workspace.id)
        const others = new Set(members.filter((m) => m.user_id !== workspace.owner_user_id).map((m) => m.id))
        if (memberIds.length > free.users - 1)
          problems.member_ids = { key: 'billing.too_many', params: { n: free.users - 1 } }
        else if (memberIds.some((id) => !others.has(id)))
          problems.member_ids = { key: 'billing.unknown_members' }
        if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
        const r = yield* Billing.chooseDowngrade(
          workspace.id,
          { channelIds, memberIds },
          caller.user.id,
          new Date(),
          req.ip,
        )
        if (r.applied) {
          for (const userId of r.dropped) yield* Members.endAccess(userId, workspace.id)
          const w = (yield* Billing.workspaceOf(workspace.id))!
          yield* billingUpdated(w, 'downgraded')
          yield* publishEvent(`ws:${workspace.id}`, 'members.changed', { reason: 'plan_limit' })
        }
        return ok({ applied: r.applied, plan: r.plan, channel_ids: channelIds, member_ids: memberIds })
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/billing/return',
    access: 'A',
    permission: 'settings.billing',
    tag: 'Billing',
    summary: 'Payment status after the checkout, asked of the provider by the server',
    query: Schema.Struct({ invoice: Schema.String.pipe(Schema.pattern(/^INV-\d{6}-\d{6,}$/)) }),
    handler: ({ workspace, query }) =>
      Effect.gen(function* () {
        const invoice = yield* invoiceOr404(workspace.id, query.invoice)
        const [latest] = yield* Billing.attemptsOf(invoice.id)
        let status: PaymentProvider.PaymentStatus = invoice.status === 'paid' ? 'paid' : 'pending'
        if (latest && invoice.status !== 'paid') {
          const provider = yield* PaymentProvider.current
          if (provider.name === latest.provider) {
            status = yield* provider.status(latest.external_id).pipe(
              Effect.mapError(
                () =>
                  new ApiError({
                    code: 'unavailable',
                    message: 'billing.provider',
                    headers: { 'Retry-After': '5' },
                  }),
              ),
            )
            if (status !== 'pending') yield* settlePayment(latest.provider, latest.external_id, status)
          }
        }
        const fresh = (yield* Billing.invoiceByNumber(workspace.id, invoice.number))!
        const w = (yield* Billing.workspaceOf(workspace.id))!
        return ok({
          status: fresh.status === 'paid' ? 'paid' : status,
          invoice: yield* detail(fresh),
          plan: planOf(w),
        })
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/payments/{provider}/callback',
    access: 'P',
    tag: 'Billing',
    summary: "The payment provider's notification about a checkout (verified by the provider adapter)",
    params: Schema.Struct({ provider: Schema.String.pipe(Schema.pattern(/^[a-z0-9_-]{1,40}$/)) }),
    body: Schema.Unknown,
    handler: ({ params, body, header }) =>
      Effect.gen(function* () {
        const provider = yield* PaymentProvider.current
        if (provider.name !== params.provider) return yield* Effect.fail(notFound())
        const verified = yield* provider
          .verifyCallback({ header, body })
          .pipe(
            Effect.mapError(() => new ApiError({ code: 'unauthorized', message: 'unauthorized_callback' })),
          )
        const outcome = yield* settlePayment(provider.name, verified.externalId, verified.status)
        if (outcome._tag === 'Unknown') return yield* Effect.fail(notFound())
        return ok({ received: true, invoice: outcome.number, result: outcome._tag.toLowerCase() })
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/payments/local/{id}',
    access: 'P',
    tag: 'Billing',
    summary: "The local payment provider's checkout page (says how the operator confirms the payment)",
    params: Schema.Struct({ id: Schema.String.pipe(Schema.pattern(/^loc_[A-Za-z0-9_-]{8,40}$/)) }),
    handler: ({ params }) =>
      Effect.gen(function* () {
        const c = yield* PaymentProviderLocal.checkout(params.id)
        if (!c) return yield* Effect.fail(notFound())
        const attempt = yield* Billing.attemptByExternal(PaymentProviderLocal.NAME, c.external_id)
        const invoice = attempt?.number ?? c.reference
        const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)
        const html = `<!doctype html><html><head><meta charset="utf-8"><title>Kotak payment</title></head><body>
<h1>Payment ${esc(invoice)}</h1>
<p>${esc(c.description)}: ${c.amount.toLocaleString('en')} ${esc(c.currency)}. Status: <strong>${esc(c.status)}</strong>.</p>
<p>This server uses the local payment provider: nothing is charged here. The operator confirms the payment with
<code>npm run kotak -- billing confirm --invoice ${esc(invoice)}</code>, or the payment system sends a signed callback.</p>
</body></html>`
        return raw(200, 'text/html; charset=utf-8', html)
      }),
  }),
]
