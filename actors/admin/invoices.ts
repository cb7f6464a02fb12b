import { Effect } from 'effect'
import { currentTime } from '../../engine/clock'
import { Config } from '../../engine/config'
import { iso } from '../../engine/time'
import * as Billing from '../../store/billing'
import { ApiError, conflict, notFound } from '../errors'
import { audited } from './audit'
import { billingUpdated, notifyOwner, planOf, presentAttempt, presentInvoice } from './billing'
import type { Caller, InWorkspace } from './caller'
import * as PaymentProvider from './PaymentProvider'

/**
 * Spec 1 §4.3 invoices and their payment: the upgrade invoice (issued once, reused) paid through
 * the payment-provider port, its attempts, and the provider's way back (the return page asks the
 * provider; its callback tells us). Billing's messages are in billing.ts.
 */

const detail = (i: Billing.InvoiceRow) =>
  Effect.map(Effect.zip(Billing.attemptsOf(i.id), currentTime), ([attempts, now]) => {
    return { ...presentInvoice(i), attempts: attempts.map((a) => presentAttempt(a, now)) }
  })

/**
 * Records what the provider said about one of its checkouts and, after the commit, tells everyone
 * concerned: events, cached credentials, the quota actor, the Owner's notification. Used by the
 * return page, the provider's callback and the operator CLI.
 */
export const settlePayment = (provider: string, externalId: string, status: Billing.AttemptStatus) =>
  Effect.gen(function* () {
    const outcome = yield* Billing.recordPayment(provider, externalId, status, yield* currentTime)
    if (outcome._tag === 'Paid') {
      const w = (yield* Billing.workspaceOf(outcome.workspaceId))!
      yield* billingUpdated(w, 'paid')
      yield* notifyOwner(w, 'billing.paid', 'billing.paid.title', {
        date: iso(outcome.proUntil)!.slice(0, 10),
      })
    }
    return outcome
  })

/** The provider cannot be reached: the invoice stays open and the user may retry shortly. */
const unreachable = () =>
  new ApiError({ code: 'unavailable', message: 'billing.provider', headers: { 'Retry-After': '5' } })

/** The checkout of an open invoice: a still-valid attempt is reused, else the provider makes one. */
const checkoutFor = (caller: Caller, invoice: Billing.InvoiceRow) =>
  Billing.withInvoiceLock(
    invoice.id,
    Effect.gen(function* () {
      const now = yield* currentTime
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
          returnUrl: `${cfg.publicUrl}/app/settings/billing?invoice=${encodeURIComponent(invoice.number)}`,
          expiresAt,
        })
        .pipe(Effect.mapError(unreachable))
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

export const get = (workspaceId: number, number: string) =>
  Effect.flatMap(invoiceOr404(workspaceId, number), detail)

/** Issues (or reuses) the Pro upgrade invoice and opens a checkout (not on a running Custom contract). */
export const upgrade = (ctx: InWorkspace, months: number) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    if (workspace.plan === 'custom' && workspace.frozen_at === null)
      return yield* Effect.fail(conflict('billing.custom'))
    const { invoice, reused } = yield* Billing.openUpgrade(
      workspace.id,
      months,
      caller.user.id,
      yield* currentTime,
      ctx.ip(),
    )
    const { attempt } = yield* checkoutFor(caller, invoice)
    return { invoice: yield* detail(invoice), checkout_url: attempt.checkout_url, reused_invoice: reused }
  })

/** A checkout for an open invoice; a new payment attempt is a change worth an entry, a reused one is not. */
export const pay = (ctx: InWorkspace, number: string) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const invoice = yield* invoiceOr404(workspace.id, number)
    if (invoice.status !== 'open') return yield* Effect.fail(conflict('billing.not_open'))
    const { attempt, reused } = yield* audited(ctx, checkoutFor(caller, invoice), (r) =>
      r.reused
        ? null
        : {
            action: 'billing.checkout_started',
            workspaceId: workspace.id,
            target: invoice.number,
            details: `${r.attempt.provider}, ${invoice.total} ${invoice.currency}`,
          },
    )
    return {
      checkout_url: attempt.checkout_url,
      attempt: presentAttempt(attempt, yield* currentTime),
      reused,
    }
  })

/**
 * The payment's status after the checkout, asked of the provider by the server (never trusting the
 * browser's return); a decided payment is settled on the way.
 */
export const afterReturn = (workspaceId: number, number: string) =>
  Effect.gen(function* () {
    const invoice = yield* invoiceOr404(workspaceId, number)
    const [latest] = yield* Billing.attemptsOf(invoice.id)
    let status: PaymentProvider.PaymentStatus = invoice.status === 'paid' ? 'paid' : 'pending'
    if (latest && invoice.status !== 'paid') {
      const provider = yield* PaymentProvider.current
      if (provider.name === latest.provider) {
        status = yield* provider.status(latest.external_id).pipe(Effect.mapError(unreachable))
        if (status !== 'pending') yield* settlePayment(latest.provider, latest.external_id, status)
      }
    }
    const fresh = (yield* Billing.invoiceByNumber(workspaceId, invoice.number))!
    const w = (yield* Billing.workspaceOf(workspaceId))!
    return {
      status: fresh.status === 'paid' ? 'paid' : status,
      invoice: yield* detail(fresh),
      plan: planOf(w, yield* currentTime),
    }
  })

/** The provider's notification, verified by its adapter (else 401), then settled (404 if unknown). */
export const hearCallback = (
  providerName: string,
  header: (name: string) => string | undefined,
  body: unknown,
) =>
  Effect.gen(function* () {
    const provider = yield* PaymentProvider.current
    if (provider.name !== providerName) return yield* Effect.fail(notFound())
    const verified = yield* provider
      .verifyCallback({ header, body })
      .pipe(Effect.mapError(() => new ApiError({ code: 'unauthorized', message: 'unauthorized_callback' })))
    const outcome = yield* settlePayment(provider.name, verified.externalId, verified.status)
    if (outcome._tag === 'Unknown') return yield* Effect.fail(notFound())
    return { received: true, invoice: outcome.number, result: outcome._tag.toLowerCase() }
  })
