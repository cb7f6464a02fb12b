import { Effect, Schema } from 'effect'
import * as Billing from '../../actors/admin/billing'
import * as Invoices from '../../actors/admin/invoices'
import { notFound } from '../../actors/errors'
import { Id } from '../../actors/fields'
import * as PaymentProviderLocal from '../../connectors/payments/PaymentProviderLocal'
import * as BillingStore from '../../store/billing'
import { ok, type Route, raw, route } from '../route'

/**
 * Spec 1 §4.3 billing; the rules are in actors/admin/billing.ts (plan, usage, profile, the Free
 * choice, settling) and actors/admin/invoices.ts (invoices, checkouts, the provider's answers).
 * Every route works while the workspace is frozen.
 */

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
    handler: ({ workspace }) => Effect.map(Billing.overview(workspace.id), (b) => ok(b)),
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
      months: Schema.optionalWith(Schema.Literal(...BillingStore.MONTH_CHOICES), {
        default: () => 1 as const,
      }),
    }),
    handler: (req) => Effect.map(Invoices.upgrade(req, req.body.months), (r) => ok(r)),
  }),
  route({
    method: 'GET',
    path: '/v1/billing/invoices/{number}',
    access: 'A',
    permission: 'settings.billing',
    tag: 'Billing',
    summary: 'An invoice with its payment attempts',
    params: NumberParam,
    response: Billing.InvoiceDetailSchema,
    handler: ({ workspace, params }) => Effect.map(Invoices.get(workspace.id, params.number), (i) => ok(i)),
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
    handler: (req) => Effect.map(Invoices.pay(req, req.params.number), (r) => ok(r)),
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
    handler: (req) => Effect.map(Billing.updateProfile(req, req.body), (profile) => ok(profile)),
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
    handler: (req) => Effect.map(Billing.chooseDowngrade(req, req.body), (r) => ok(r)),
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
      Effect.map(Invoices.afterReturn(workspace.id, query.invoice), (r) => ok(r)),
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
      Effect.map(Invoices.hearCallback(params.provider, header, body), (r) => ok(r)),
  }),
  route({
    method: 'GET',
    path: '/v1/payments/local/{id}',
    access: 'P',
    tag: 'Billing',
    summary: "The local payment provider's checkout page (says how the operator confirms the payment)",
    params: Schema.Struct({ id: Schema.String.pipe(Schema.pattern(/^loc_[A-Za-z0-9_-]{8,40}$/)) }),
    handler: ({ params }) =>
      Effect.flatMap(PaymentProviderLocal.checkoutPage(params.id), (html) =>
        html === null ? Effect.fail(notFound()) : Effect.succeed(raw(200, 'text/html; charset=utf-8', html)),
      ),
  }),
]
