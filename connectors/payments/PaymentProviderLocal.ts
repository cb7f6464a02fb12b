import { SqlClient } from '@effect/sql'
import { Effect, Layer } from 'effect'
import * as Invoices from '../../actors/admin/invoices'
import {
  type CallbackInput,
  PaymentError,
  PaymentProvider,
  type PaymentProviderShape,
  type PaymentStatus,
} from '../../actors/admin/PaymentProvider'
import { systemTime } from '../../engine/clock'
import { Config } from '../../engine/config'
import { verify } from '../../engine/net/signature'
import { randomToken } from '../../engine/tokens'
import * as Billing from '../../store/billing'

/**
 * A payment provider that needs no outside service: it keeps its checkouts in its own table
 * (`payment_local_checkouts`, what a real provider keeps on its side) and learns of payments from
 * the operator (`kotak billing confirm --invoice …`, which calls `confirm`) or from a signed
 * callback: `POST /v1/payments/local/callback` with body `{"id": "<checkout id>", "status":
 * "paid" | "failed"}` and headers `X-Kotak-Timestamp` (Unix seconds) and `X-Kotak-Signature`
 * (`sha256=` + hex HMAC-SHA256 of `<timestamp>.<id>.<status>` with `PAYMENT_CALLBACK_SECRET`;
 * callbacks are refused while that is unset). Its checkout page only says how to confirm.
 */
export const NAME = 'local'

const storedStatus = (row: { status: string; expires_at: Date }, now: Date): PaymentStatus =>
  row.status === 'pending' && row.expires_at.getTime() <= now.getTime()
    ? 'expired'
    : (row.status as PaymentStatus)

const refuse = (reason: string) => Effect.fail(new PaymentError({ reason }))

/** Marks a checkout of the local book paid or failed; false when it is unknown or already decided. */
export const confirm = (externalId: string, status: 'paid' | 'failed') =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      UPDATE payment_local_checkouts SET status = ${status}, paid_at = CASE WHEN ${status === 'paid'} THEN now() END
      WHERE external_id = ${externalId} AND status = 'pending' RETURNING external_id`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )

/**
 * The operator's confirmation of an invoice paid outside the server (`kotak billing confirm`):
 * marks its newest pending local checkout paid (or failed) and settles it like a provider
 * callback; null when the invoice has no local checkout.
 */
export const confirmInvoice = (invoiceNumber: string, status: 'paid' | 'failed') =>
  Effect.gen(function* () {
    const attempt = yield* Billing.latestAttemptByNumber(invoiceNumber, NAME)
    if (!attempt) return null
    yield* confirm(attempt.external_id, status)
    return yield* Invoices.settlePayment(NAME, attempt.external_id, status)
  })

export const checkout = (externalId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      external_id: string
      reference: string
      amount: number
      currency: string
      description: string
      status: string
      expires_at: Date
    }>`SELECT * FROM payment_local_checkouts WHERE external_id = ${externalId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** The checkout's page (the local provider's stand-in for a hosted one): how the operator confirms it. */
export const checkoutPage = (externalId: string) =>
  Effect.gen(function* () {
    const c = yield* checkout(externalId)
    if (!c) return null
    const attempt = yield* Billing.attemptByExternal(NAME, c.external_id)
    const invoice = attempt?.number ?? c.reference
    const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)
    return `<!doctype html><html><head><meta charset="utf-8"><title>Kotak payment</title></head><body>
<h1>Payment ${esc(invoice)}</h1>
<p>${esc(c.description)}: ${c.amount.toLocaleString('en')} ${esc(c.currency)}. Status: <strong>${esc(c.status)}</strong>.</p>
<p>This server uses the local payment provider: nothing is charged here. The operator confirms the payment with
<code>npm run kotak -- billing confirm --invoice ${esc(invoice)}</code>, or the payment system sends a signed callback.</p>
</body></html>`
  })

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const cfg = yield* Config
  const run = <A, E>(e: Effect.Effect<A, E, SqlClient.SqlClient>) =>
    Effect.provideService(e, SqlClient.SqlClient, sql).pipe(
      Effect.catchAll((err) => refuse(err instanceof PaymentError ? err.reason : 'local book unavailable')),
    )
  const shape: PaymentProviderShape = {
    name: NAME,
    createCheckout: (req) =>
      run(
        Effect.gen(function* () {
          const externalId = `loc_${randomToken(12)}`
          yield* sql`
            INSERT INTO payment_local_checkouts (external_id, reference, amount, currency, description, expires_at)
            VALUES (${externalId}, ${req.reference}, ${req.amount}, ${req.currency}, ${req.description}, ${req.expiresAt})`
          return {
            externalId,
            checkoutUrl: `${cfg.publicUrl}/v1/payments/local/${externalId}`,
            expiresAt: req.expiresAt,
          }
        }),
      ),
    status: (externalId) =>
      run(
        Effect.flatMap(Effect.zip(checkout(externalId), systemTime), ([row, now]) =>
          row ? Effect.succeed(storedStatus(row, now)) : refuse('unknown checkout'),
        ),
      ),
    verifyCallback: (input: CallbackInput) =>
      Effect.gen(function* () {
        const secret = cfg.paymentCallbackSecret
        if (!secret) return yield* refuse('callbacks are off (PAYMENT_CALLBACK_SECRET unset)')
        const body = (input.body ?? {}) as { id?: unknown; status?: unknown }
        const id = typeof body.id === 'string' ? body.id : ''
        const status = body.status === 'paid' || body.status === 'failed' ? body.status : null
        const timestamp = Number(input.header('x-kotak-timestamp'))
        const signature = input.header('x-kotak-signature') ?? ''
        if (
          !id ||
          !status ||
          !Number.isInteger(timestamp) ||
          !verify(secret, timestamp, `${id}.${status}`, signature)
        )
          return yield* refuse('bad signature')
        yield* run(confirm(id, status))
        const row = yield* run(checkout(id))
        if (!row) return yield* refuse('unknown checkout')
        return { externalId: id, status: storedStatus(row, yield* systemTime) }
      }),
  }
  return shape
})

export const layer = Layer.effect(PaymentProvider, make)
