/**
 * Plans and their limits (spec 1 §2 Workspace `limits`; 0 = unlimited). Prices are in IDR per
 * month; the figures are ours (the spec leaves them open; see docs/decisions.md).
 */
export type Plan = 'free' | 'pro' | 'custom'
export const plans: readonly Plan[] = ['free', 'pro', 'custom']

export interface Limits {
  readonly channels: number
  readonly users: number
  readonly tickets_per_month: number
  readonly leads_per_month: number
  readonly replies_per_day: number
  readonly ai_per_month: number
  readonly ai: boolean
  readonly api: boolean
}

export const planLimits: Readonly<Record<Plan, Limits>> = {
  free: {
    channels: 1,
    users: 3,
    tickets_per_month: 100,
    leads_per_month: 100,
    replies_per_day: 200,
    ai_per_month: 0,
    ai: false,
    api: false,
  },
  pro: {
    channels: 10,
    users: 25,
    tickets_per_month: 5000,
    leads_per_month: 5000,
    replies_per_day: 0,
    ai_per_month: 2000,
    ai: true,
    api: true,
  },
  custom: {
    channels: 0,
    users: 0,
    tickets_per_month: 0,
    leads_per_month: 0,
    replies_per_day: 0,
    ai_per_month: 0,
    ai: true,
    api: true,
  },
}

export const planPrices: Readonly<Record<Plan, number | null>> = { free: 0, pro: 299_000, custom: null }

/** Days a lapsed Pro plan keeps working before the workspace falls back to Free limits. */
export const GRACE_DAYS = 7

export interface PlanState {
  readonly plan: Plan
  readonly pro_until: Date | null
  readonly limits: Partial<Limits>
}

export const limitsOf = (w: PlanState): Limits => ({
  ...planLimits[w.plan],
  ...(w.plan === 'custom' ? w.limits : {}),
})

/** Paid and not lapsed; a plan without `pro_until` (set by the operator) has no end. */
export const isPaidActive = (w: PlanState, now: Date): boolean =>
  w.plan !== 'free' &&
  (w.pro_until === null || w.pro_until.getTime() + GRACE_DAYS * 86_400_000 > now.getTime())

export const inGrace = (w: PlanState, now: Date): boolean =>
  w.plan !== 'free' &&
  w.pro_until !== null &&
  w.pro_until.getTime() <= now.getTime() &&
  w.pro_until.getTime() + GRACE_DAYS * 86_400_000 > now.getTime()
