import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { pgArray } from './arrays'
import * as Audit from './audit'
import { GRACE_DAYS, type Plan, planLimits, planPrices } from './plans'
import type { WorkspaceRow } from './workspaces'

/**
 * Billing (spec 1 §4.3): upgrade invoices with their payment attempts, the billing profile, the
 * choice of what stays active on Free, and the plan's life after its paid-until date:
 *
 *   pro, paid ──(pro_until passes)──▶ pro, in grace (7 days) ──▶ free (choice applied)
 *   custom ────(pro_until passes)──▶ custom, in grace ──────────▶ frozen (423) until it pays for
 *                                                                 Pro or chooses Free
 *
 * Payment moves any of them to Pro for the invoice's months (from the later of now and the
 * current paid-until date). Amounts are whole rupiah.
 */
export const TAX_PERCENT = 11
export const MONTH_CHOICES = [1, 3, 6, 12] as const
/** An unpaid invoice is due this many days after it was issued; a checkout lives one day. */
export const DUE_DAYS = 7
export const CHECKOUT_HOURS = 24
const DAY = 86_400_000

export interface Profile {
  readonly name?: string
  readonly email?: string
  readonly company?: string
  readonly address?: string
  readonly tax_id?: string
  readonly phone?: string
}

export interface InvoiceRow {
  readonly id: number
  readonly workspace_id: number
  readonly number: string
  readonly kind: 'upgrade'
  readonly plan: 'pro'
  readonly months: number
  readonly currency: string
  readonly subtotal: number
  readonly tax: number
  readonly total: number
  readonly status: 'open' | 'paid' | 'void'
  readonly profile: Profile
  readonly created_by: number | null
  readonly created_at: Date
  readonly due_at: Date
  readonly paid_at: Date | null
  readonly period_start: Date | null
  readonly period_end: Date | null
}

export type AttemptStatus = 'pending' | 'paid' | 'failed' | 'expired'

export interface AttemptRow {
  readonly id: number
  readonly invoice_id: number
  readonly provider: string
  readonly external_id: string
  readonly checkout_url: string
  readonly amount: number
  readonly status: AttemptStatus
  readonly expires_at: Date
  readonly created_at: Date
  readonly updated_at: Date
}

/** The workspace row with the billing columns the kernel's row type leaves out. */
export interface BillingRow extends WorkspaceRow {
  readonly billing_profile: Profile
  readonly downgrade_choice: DowngradeChoice | null
}

export interface DowngradeChoice {
  readonly channel_ids: readonly number[]
  readonly member_ids: readonly number[]
  readonly chosen_at: string
  readonly chosen_by: number | null
}

export const priceOf = (months: number) => {
  const subtotal = (planPrices.pro ?? 0) * months
  const tax = Math.round((subtotal * TAX_PERCENT) / 100)
  return { subtotal, tax, total: subtotal + tax }
}

export const workspaceOf = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<BillingRow>`SELECT * FROM workspaces WHERE id = ${workspaceId}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

export const setProfile = (workspaceId: number, profile: Profile) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<BillingRow>`
      UPDATE workspaces SET billing_profile = ${JSON.stringify(profile)}::jsonb WHERE id = ${workspaceId}
      RETURNING *`.pipe(Effect.map((r) => r[0]!)),
  )

export const invoices = (workspaceId: number, limit = 24) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<InvoiceRow>`
      SELECT * FROM invoices WHERE workspace_id = ${workspaceId} ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
  )

export const invoiceByNumber = (workspaceId: number, number: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<InvoiceRow>`SELECT * FROM invoices WHERE workspace_id = ${workspaceId} AND number = ${number}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const attemptsOf = (invoiceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<AttemptRow>`SELECT * FROM payment_attempts WHERE invoice_id = ${invoiceId} ORDER BY id DESC`,
  )

/** A pending checkout that has not expired at `now`: paying again reuses it. */
export const validAttempt = (invoiceId: number, now: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<AttemptRow>`
      SELECT * FROM payment_attempts WHERE invoice_id = ${invoiceId} AND status = 'pending' AND expires_at > ${now}
      ORDER BY id DESC LIMIT 1`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/**
 * Runs `effect` in a transaction holding the invoice's row lock, so that callers asking for a
 * checkout of the same invoice at the same moment take turns: the second one finds and reuses the
 * attempt the first one made instead of opening another checkout (which could be paid twice).
 */
export const withInvoiceLock = <A, E, R>(invoiceId: number, effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.zipRight(sql`SELECT id FROM invoices WHERE id = ${invoiceId} FOR UPDATE`, effect),
    ),
  )

export const addAttempt = (a: {
  readonly invoiceId: number
  readonly provider: string
  readonly externalId: string
  readonly checkoutUrl: string
  readonly amount: number
  readonly expiresAt: Date
}) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<AttemptRow>`
      INSERT INTO payment_attempts (invoice_id, provider, external_id, checkout_url, amount, expires_at)
      VALUES (${a.invoiceId}, ${a.provider}, ${a.externalId}, ${a.checkoutUrl}, ${a.amount}, ${a.expiresAt})
      RETURNING *`.pipe(Effect.map((r) => r[0]!)),
  )

export const attemptByExternal = (provider: string, externalId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<AttemptRow & { workspace_id: number; number: string }>`
      SELECT a.*, i.workspace_id, i.number FROM payment_attempts a JOIN invoices i ON i.id = a.invoice_id
      WHERE a.provider = ${provider} AND a.external_id = ${externalId}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/** The newest pending attempt at `provider` for an invoice number (invoice numbers are unique). */
export const latestAttemptByNumber = (number: string, provider: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<AttemptRow>`
      SELECT a.* FROM payment_attempts a JOIN invoices i ON i.id = a.invoice_id
      WHERE i.number = ${number} AND a.provider = ${provider} AND a.status = 'pending'
      ORDER BY a.id DESC LIMIT 1`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/**
 * The open upgrade invoice for `months`: the one already open is reused when it asks for the same
 * months (otherwise it is voided and replaced). The profile is copied onto a new invoice.
 */
export const openUpgrade = (workspaceId: number, months: number, userId: number, now: Date, ip = '') =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [ws] = yield* sql<BillingRow>`SELECT * FROM workspaces WHERE id = ${workspaceId} FOR UPDATE`
        const [open] = yield* sql<InvoiceRow>`
          SELECT * FROM invoices WHERE workspace_id = ${workspaceId} AND status = 'open' AND kind = 'upgrade'`
        if (open && open.months === months) return { invoice: open, reused: true }
        if (open) yield* sql`UPDATE invoices SET status = 'void' WHERE id = ${open.id}`
        const price = priceOf(months)
        const [row] = yield* sql<{ id: number }>`
          INSERT INTO invoices (workspace_id, number, plan, months, subtotal, tax, total, profile, created_by,
                                created_at, due_at)
          VALUES (${workspaceId}, ${`pending-${workspaceId}-${now.getTime()}`}, 'pro', ${months}, ${price.subtotal},
                  ${price.tax}, ${price.total}, ${JSON.stringify(ws!.billing_profile ?? {})}::jsonb, ${userId},
                  ${now}, ${new Date(now.getTime() + DUE_DAYS * DAY)})
          RETURNING id`
        const stamp = now.toISOString().slice(0, 7).replace('-', '')
        const [invoice] = yield* sql<InvoiceRow>`
          UPDATE invoices SET number = ${`INV-${stamp}-${String(row!.id).padStart(6, '0')}`}
          WHERE id = ${row!.id} RETURNING *`
        yield* Audit.record({
          workspaceId,
          userId,
          ip,
          action: 'billing.upgrade_started',
          target: invoice!.number,
          details: `pro × ${months} month(s), ${invoice!.total} ${invoice!.currency}`,
        })
        return { invoice: invoice!, reused: false }
      }),
    ),
  )

/** Re-enables members disabled for the plan's limit and resumes suspended channels, within limits. */
const restoreWithin = (sql: SqlClient.SqlClient, workspaceId: number, users: number, channels: number) =>
  Effect.gen(function* () {
    const [{ n }] = (yield* sql<{ n: number }>`
      SELECT count(*) AS n FROM members WHERE workspace_id = ${workspaceId} AND status = 'active'`) as [
      { n: number },
    ]
    const room = users === 0 ? 1_000_000 : Math.max(0, users - n)
    const back = yield* sql<{ user_id: number }>`
      UPDATE members SET status = 'active', disabled_reason = NULL
      WHERE id IN (SELECT id FROM members WHERE workspace_id = ${workspaceId} AND status = 'disabled'
                     AND disabled_reason = 'plan_limit' ORDER BY joined_at, id LIMIT ${room})
      RETURNING user_id`
    const [{ c }] = (yield* sql<{ c: number }>`
      SELECT count(*) AS c FROM channels
      WHERE workspace_id = ${workspaceId} AND archived_at IS NULL AND suspended_at IS NULL`) as [
      { c: number },
    ]
    const channelRoom = channels === 0 ? 1_000_000 : Math.max(0, channels - c)
    yield* sql`
      UPDATE channels SET suspended_at = NULL
      WHERE id IN (SELECT id FROM channels WHERE workspace_id = ${workspaceId} AND archived_at IS NULL
                     AND suspended_at IS NOT NULL ORDER BY id LIMIT ${channelRoom})`
    return back.map((r) => r.user_id)
  })

export type PaymentOutcome =
  | { readonly _tag: 'Unknown' }
  | { readonly _tag: 'Unchanged'; readonly workspaceId: number; readonly number: string }
  | {
      readonly _tag: 'Paid'
      readonly workspaceId: number
      readonly number: string
      readonly proUntil: Date
      readonly ownerId: number | null
    }
  | { readonly _tag: 'Failed'; readonly workspaceId: number; readonly number: string }

/**
 * What the payment provider reported for one of its checkouts. `paid` pays the invoice once
 * (later reports of the same payment change nothing): the workspace is on Pro until the end of the
 * paid period, unfrozen, and what the Free plan had set aside comes back within Pro's limits.
 */
export const recordPayment = (provider: string, externalId: string, status: AttemptStatus, now: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [a] = yield* sql<AttemptRow & { workspace_id: number }>`
          SELECT a.*, i.workspace_id FROM payment_attempts a JOIN invoices i ON i.id = a.invoice_id
          WHERE a.provider = ${provider} AND a.external_id = ${externalId} FOR UPDATE OF a`
        if (!a) return { _tag: 'Unknown' } satisfies PaymentOutcome as PaymentOutcome
        const [invoice] = yield* sql<InvoiceRow>`SELECT * FROM invoices WHERE id = ${a.invoice_id} FOR UPDATE`
        const unchanged: PaymentOutcome = {
          _tag: 'Unchanged',
          workspaceId: a.workspace_id,
          number: invoice!.number,
        }
        if (a.status === 'paid' || a.status === status || status === 'pending') return unchanged
        yield* sql`UPDATE payment_attempts SET status = ${status}, updated_at = ${now} WHERE id = ${a.id}`
        if (status !== 'paid') {
          return { _tag: 'Failed', workspaceId: a.workspace_id, number: invoice!.number } as PaymentOutcome
        }
        if (invoice!.status === 'paid') return unchanged
        const [ws] = yield* sql<BillingRow>`SELECT * FROM workspaces WHERE id = ${a.workspace_id} FOR UPDATE`
        const start = new Date(
          Math.max(now.getTime(), ws!.plan === 'pro' ? (ws!.pro_until?.getTime() ?? 0) : 0),
        )
        const end = new Date(start)
        end.setUTCMonth(end.getUTCMonth() + invoice!.months)
        yield* sql`
          UPDATE invoices SET status = 'paid', paid_at = ${now}, period_start = ${start}, period_end = ${end}
          WHERE id = ${invoice!.id}`
        yield* sql`
          UPDATE workspaces SET plan = 'pro', pro_until = ${end}, frozen_at = NULL, downgrade_choice = NULL
          WHERE id = ${a.workspace_id}`
        yield* restoreWithin(sql, a.workspace_id, planLimits.pro.users, planLimits.pro.channels)
        yield* Audit.record({
          workspaceId: a.workspace_id,
          userId: null,
          action: 'billing.paid',
          target: invoice!.number,
          details: `pro until ${end.toISOString().slice(0, 10)} (${provider})`,
        })
        return {
          _tag: 'Paid',
          workspaceId: a.workspace_id,
          number: invoice!.number,
          proUntil: end,
          ownerId: ws!.owner_user_id,
        } satisfies PaymentOutcome as PaymentOutcome
      }),
    ),
  )

/** Members and channels a workspace could keep on Free, in the order they are kept by default. */
const candidates = (sql: SqlClient.SqlClient, workspaceId: number) =>
  Effect.all({
    members: sql<{ id: number; user_id: number; is_owner: boolean }>`
      SELECT m.id, m.user_id, (w.owner_user_id = m.user_id) AS is_owner
      FROM members m JOIN workspaces w ON w.id = m.workspace_id
      WHERE m.workspace_id = ${workspaceId} AND (m.status = 'active' OR m.disabled_reason = 'plan_limit')
      ORDER BY (w.owner_user_id = m.user_id) DESC, m.joined_at, m.id`,
    channels: sql<{ id: number }>`
      SELECT id FROM channels WHERE workspace_id = ${workspaceId} AND archived_at IS NULL ORDER BY id`,
  })

/**
 * Puts a workspace within the Free plan's limits: the Owner and the chosen members (else the
 * earliest to join) stay active, the others are disabled with reason `plan_limit`; the chosen
 * channels (else the oldest) stay, the others are suspended. Returns the users who lost access.
 */
export const applyFreeLimits = (workspaceId: number, choice: DowngradeChoice | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const free = planLimits.free
      const { members, channels } = yield* candidates(sql, workspaceId)
      const chosenMembers = new Set(choice?.member_ids ?? [])
      const orderedMembers = [
        ...members.filter((m) => m.is_owner),
        ...members.filter((m) => !m.is_owner && chosenMembers.has(m.id)),
        ...(choice ? [] : members.filter((m) => !m.is_owner)),
      ]
      const keepMembers = [...new Set(orderedMembers.map((m) => m.id))].slice(0, free.users)
      const chosenChannels = new Set(choice?.channel_ids ?? [])
      const orderedChannels = choice ? channels.filter((c) => chosenChannels.has(c.id)) : channels
      const keepChannels = orderedChannels.map((c) => c.id).slice(0, free.channels)
      const dropped = yield* sql<{ user_id: number }>`
        UPDATE members SET status = 'disabled', disabled_reason = 'plan_limit'
        WHERE workspace_id = ${workspaceId} AND status = 'active' AND NOT (id = ANY(${pgArray(keepMembers)}::int[]))
        RETURNING user_id`
      yield* sql`
        UPDATE members SET status = 'active', disabled_reason = NULL
        WHERE workspace_id = ${workspaceId} AND disabled_reason = 'plan_limit' AND id = ANY(${pgArray(keepMembers)}::int[])`
      yield* sql`
        UPDATE channels SET suspended_at = CASE WHEN id = ANY(${pgArray(keepChannels)}::int[]) THEN NULL
                                                ELSE COALESCE(suspended_at, now()) END
        WHERE workspace_id = ${workspaceId} AND archived_at IS NULL`
      return dropped.map((d) => d.user_id)
    }),
  )

/** Stores which channels and members stay on Free; on a Free or frozen workspace it applies now. */
export const chooseDowngrade = (
  workspaceId: number,
  choice: { readonly channelIds: readonly number[]; readonly memberIds: readonly number[] },
  userId: number,
  now: Date,
  ip = '',
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [ws] = yield* sql<BillingRow>`SELECT * FROM workspaces WHERE id = ${workspaceId} FOR UPDATE`
        const stored: DowngradeChoice = {
          channel_ids: choice.channelIds,
          member_ids: choice.memberIds,
          chosen_at: now.toISOString(),
          chosen_by: userId,
        }
        const applyNow = ws!.plan === 'free' || ws!.frozen_at !== null
        yield* sql`UPDATE workspaces SET downgrade_choice = ${JSON.stringify(stored)}::jsonb WHERE id = ${workspaceId}`
        yield* Audit.record({
          workspaceId,
          userId,
          ip,
          action: 'billing.downgrade_chosen',
          details: `channels: ${choice.channelIds.join(', ') || '-'}; members: ${choice.memberIds.join(', ') || '-'}`,
        })
        if (!applyNow) return { applied: false, dropped: [] as number[], plan: ws!.plan as Plan }
        yield* sql`UPDATE workspaces SET plan = 'free', pro_until = NULL, frozen_at = NULL WHERE id = ${workspaceId}`
        const dropped = yield* applyFreeLimits(workspaceId, stored)
        if (ws!.plan !== 'free' || ws!.frozen_at !== null)
          yield* Audit.record({
            workspaceId,
            userId,
            ip,
            action: 'billing.downgraded',
            details: `${ws!.plan} → free`,
          })
        return { applied: true, dropped, plan: 'free' as Plan }
      }),
    ),
  )

export interface Settled {
  readonly workspaceId: number
  readonly change: 'downgraded' | 'frozen'
  readonly ownerId: number | null
  readonly dropped: readonly number[]
}

/**
 * Moves every workspace whose paid period and grace have ended at `now`: Pro to Free (with the
 * downgrade choice), Custom to frozen. Idempotent; run by the server's timer and by
 * `kotak billing settle`. Each workspace changes in its own transaction.
 */
export const settle = (now: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const cutoff = new Date(now.getTime() - GRACE_DAYS * DAY)
      const due = yield* sql<{ id: number }>`
        SELECT id FROM workspaces
        WHERE pro_until IS NOT NULL AND pro_until <= ${cutoff}
          AND (plan = 'pro' OR (plan = 'custom' AND frozen_at IS NULL))`
      const out: Settled[] = []
      for (const { id } of due) {
        const one = yield* sql.withTransaction(
          Effect.gen(function* () {
            const [ws] = yield* sql<BillingRow>`
              SELECT * FROM workspaces WHERE id = ${id} AND pro_until IS NOT NULL AND pro_until <= ${cutoff}
                AND (plan = 'pro' OR (plan = 'custom' AND frozen_at IS NULL)) FOR UPDATE`
            if (!ws) return null
            if (ws.plan === 'custom') {
              yield* sql`UPDATE workspaces SET frozen_at = ${now} WHERE id = ${id}`
              yield* Audit.record({
                workspaceId: id,
                userId: null,
                action: 'billing.frozen',
                details: `contract ended ${ws.pro_until!.toISOString().slice(0, 10)}`,
              })
              return { workspaceId: id, change: 'frozen', ownerId: ws.owner_user_id, dropped: [] } as Settled
            }
            yield* sql`UPDATE workspaces SET plan = 'free' WHERE id = ${id}`
            const dropped = yield* applyFreeLimits(id, ws.downgrade_choice)
            yield* Audit.record({
              workspaceId: id,
              userId: null,
              action: 'billing.downgraded',
              details: `pro → free (paid until ${ws.pro_until!.toISOString().slice(0, 10)})`,
            })
            return { workspaceId: id, change: 'downgraded', ownerId: ws.owner_user_id, dropped } as Settled
          }),
        )
        if (one) out.push(one)
      }
      return out
    }),
  )

/** Live channels, and how many of them are suspended (left out on Free). */
export const channelUsage = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ used: number; suspended: number }>`
      SELECT count(*) FILTER (WHERE suspended_at IS NULL) AS used, count(*) FILTER (WHERE suspended_at IS NOT NULL) AS suspended
      FROM channels WHERE workspace_id = ${workspaceId} AND archived_at IS NULL`.pipe(
      Effect.map((r) => r[0]!),
    ),
  )

/** The workspace's live channels (ids and names), for choices. */
export const liveChannels = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ id: number; name: string; type: string; suspended: boolean }>`
      SELECT id, name, type, suspended_at IS NOT NULL AS suspended FROM channels
      WHERE workspace_id = ${workspaceId} AND archived_at IS NULL ORDER BY id`,
  )
