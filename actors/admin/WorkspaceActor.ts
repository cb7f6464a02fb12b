import { Data, Effect } from 'effect'
import * as Actor from '../../engine/actor/Actor'
import { currentTime } from '../../engine/clock'
import { iso, type PeriodKind, periodOf } from '../../engine/time'
import { limitsOf } from '../../store/plans'
import * as Usage from '../../store/usage'
import * as Workspaces from '../../store/workspaces'
import { ApiError, apiAnswer, notFound } from '../errors'

/**
 * WorkspaceActor: workspace-wide counters and invariants. Holds the quota counters with their
 * reset times (local day or month of the workspace zone); the database's conditional update
 * stays the final guard, so a brief double owner cannot overshoot a quota.
 */
export const counters = {
  replies_per_day: { period: 'day', limit: 'replies_per_day' },
  tickets_per_month: { period: 'month', limit: 'tickets_per_month' },
  ai_per_month: { period: 'month', limit: 'ai_per_month' },
  leads_per_month: { period: 'month', limit: 'leads_per_month' },
} as const satisfies Record<string, { period: PeriodKind; limit: string | null }>

export type Counter = keyof typeof counters

/** The message of each counter's 402 (registered by the area that uses the counter). */
const quotaMessages = {
  replies_per_day: 'messages.replies_quota',
  tickets_per_month: 'tickets.quota',
  ai_per_month: 'ai.quota',
  leads_per_month: 'leads.quota',
} as const satisfies Record<Counter, string>

export class QuotaExceeded extends Data.TaggedError('QuotaExceeded')<{
  readonly counter: Counter
  readonly used: number
  readonly limit: number
  readonly resetAt: Date
}> {
  [apiAnswer]() {
    return new ApiError({
      code: 'plan_required',
      message: quotaMessages[this.counter],
      params: { limit: this.limit, reset: iso(this.resetAt)! },
    })
  }
}

export class WorkspaceNotFound extends Data.TaggedError('WorkspaceNotFound')<{ readonly id: number }> {
  [apiAnswer]() {
    return notFound()
  }
}

export interface CounterState {
  readonly period: string
  readonly endsAt: Date
  readonly used: number
  readonly limit: number
}

export interface WorkspaceState {
  readonly workspace: Workspaces.WorkspaceRow | null
  readonly counters: Readonly<Partial<Record<Counter, CounterState>>>
}

const limitOf = (w: Workspaces.WorkspaceRow, c: Counter): number => {
  const key = counters[c].limit
  return key === null ? 0 : limitsOf(w)[key]
}

/** The counter for the period `now` falls in, read from the database when the period turned. */
const current = (state: WorkspaceState, w: Workspaces.WorkspaceRow, c: Counter, now: Date) =>
  Effect.gen(function* () {
    const p = periodOf(counters[c].period, now, w.timezone)
    const held = state.counters[c]
    if (held && held.period === p.key) return { ...held, limit: limitOf(w, c) }
    const used = yield* Usage.used(w.id, c, p.key)
    return { period: p.key, endsAt: p.endsAt, used, limit: limitOf(w, c) } satisfies CounterState
  })

const existing = (state: WorkspaceState, id: number) =>
  state.workspace ? Effect.succeed(state.workspace) : Effect.fail(new WorkspaceNotFound({ id }))

export const definition = Actor.define({
  name: 'workspace',
  load: (id: number) =>
    Effect.map(Workspaces.byId(id), (workspace): WorkspaceState => ({ workspace, counters: {} })),
  idleMs: 10 * 60_000,
  handlers: {
    /** Uses `n` of a counter; fails with QuotaExceeded (nothing used) past the plan's limit. */
    Consume: (
      state: WorkspaceState,
      m: { readonly counter: Counter; readonly n?: number; readonly now?: Date },
      ctx,
    ) =>
      Effect.gen(function* () {
        const w = yield* existing(state, ctx.id)
        const n = m.n ?? 1
        const c = yield* current(state, w, m.counter, m.now ?? (yield* currentTime))
        const refuse = (used: number) =>
          Effect.fail(new QuotaExceeded({ counter: m.counter, used, limit: c.limit, resetAt: c.endsAt }))
        if (c.limit !== 0 && c.used + n > c.limit) return yield* refuse(c.used)
        const used = yield* Usage.consume(w.id, m.counter, c.period, n, c.limit)
        if (used === null) return yield* refuse(c.limit)
        const next: CounterState = { ...c, used }
        return [next, { ...state, counters: { ...state.counters, [m.counter]: next } }] as const
      }),
    /**
     * Gives back `n` of a counter that a Consume of the same period reserved and the caller did
     * not use (a lead import reserves before its transaction and returns what it did not create).
     */
    Release: (
      state: WorkspaceState,
      m: { readonly counter: Counter; readonly n: number; readonly now: Date },
      ctx,
    ) =>
      Effect.gen(function* () {
        const w = yield* existing(state, ctx.id)
        const c = yield* current(state, w, m.counter, m.now)
        const used = yield* Usage.release(w.id, m.counter, c.period, m.n)
        const next: CounterState = { ...c, used }
        return [next, { ...state, counters: { ...state.counters, [m.counter]: next } }] as const
      }),
    /** Every counter of the current periods, with limits and reset times. */
    Usage: (state: WorkspaceState, m: { readonly now?: Date }, ctx) =>
      Effect.gen(function* () {
        const w = yield* existing(state, ctx.id)
        const all: Partial<Record<Counter, CounterState>> = {}
        for (const c of Object.keys(counters) as Counter[])
          all[c] = yield* current(state, w, c, m.now ?? (yield* currentTime))
        return [all as Record<Counter, CounterState>, { ...state, counters: all }] as const
      }),
    /** Re-reads the workspace (plan, zone or limits changed). */
    Reload: (state: WorkspaceState, _: unknown, ctx) =>
      Effect.map(Workspaces.byId(ctx.id), (workspace) => [workspace, { ...state, workspace }] as const),
  },
})

export class WorkspaceActor extends Actor.Tag('kotak/WorkspaceActor')<WorkspaceActor, typeof definition>() {}

export const layer = Actor.layer(WorkspaceActor, definition)
