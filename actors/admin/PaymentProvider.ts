import { Context, Data, type Effect } from 'effect'

/**
 * A payment provider: creates hosted checkouts for invoices, tells a checkout's status, and
 * verifies the notifications it sends back. Billing (store/billing.ts, actors/admin/invoices.ts)
 * only talks to this interface.
 *
 * Guarantees every adapter keeps:
 * - `createCheckout` is called once per attempt with a unique `reference`; the checkout it answers
 *   is valid until `expiresAt` (it may shorten the requested lifetime, never lengthen it).
 * - `status` asks the provider itself (never trusts the browser's return URL); it may be called
 *   any number of times.
 * - `verifyCallback` fails with `PaymentError` unless the notification is authentic; an authentic
 *   one may arrive more than once or out of order, and billing records each payment once.
 * - Failures to reach the provider are `PaymentError`s; the caller answers 502-free: the invoice
 *   stays open and the user may retry.
 *
 * Adapters: `PaymentProviderLocal` (no outside service: the operator CLI or a signed callback
 * confirms). Another provider plugs in as a layer of this tag passed as `paymentProvider` in the
 * options of `servicesLayer`/`start` (http/app.ts), where it replaces `PaymentProviderLocal.layer`.
 */
export class PaymentError extends Data.TaggedError('PaymentError')<{ readonly reason: string }> {}

export type PaymentStatus = 'pending' | 'paid' | 'failed' | 'expired'

export interface CheckoutRequest {
  /** Unique per attempt; the provider echoes it in its notifications. */
  readonly reference: string
  readonly invoiceNumber: string
  readonly amount: number
  readonly currency: string
  readonly description: string
  readonly customer: { readonly name: string; readonly email: string }
  /** Where the provider sends the browser back (the app calls `GET /v1/billing/return` from there). */
  readonly returnUrl: string
  readonly expiresAt: Date
}

export interface Checkout {
  /** The provider's id of the checkout. */
  readonly externalId: string
  readonly checkoutUrl: string
  readonly expiresAt: Date
}

export interface CallbackInput {
  readonly header: (name: string) => string | undefined
  /** The notification's JSON body. */
  readonly body: unknown
}

export interface PaymentProviderShape {
  /** Stored with each attempt; names the adapter in `/v1/payments/{provider}/callback`. */
  readonly name: string
  readonly createCheckout: (req: CheckoutRequest) => Effect.Effect<Checkout, PaymentError>
  readonly status: (externalId: string) => Effect.Effect<PaymentStatus, PaymentError>
  readonly verifyCallback: (
    input: CallbackInput,
  ) => Effect.Effect<{ readonly externalId: string; readonly status: PaymentStatus }, PaymentError>
}

export class PaymentProvider extends Context.Tag('kotak/PaymentProvider')<
  PaymentProvider,
  PaymentProviderShape
>() {}

/** The node's payment provider. */
export const current = PaymentProvider
