import { Effect } from 'effect'
import { currentTime } from '../../engine/clock'
import { Log } from '../../engine/log'
import { isPaidActive, limitsOf } from '../../store/plans'
import type { WorkspaceRow } from '../../store/workspaces'
import { QuotaExceeded, WorkspaceActor } from '../admin/WorkspaceActor'
import { ApiError } from '../errors'
import { addMessages } from '../i18n'
import { type AiError, AiProvider, type AiUnavailable } from './AiProvider'

/**
 * One AI request of a workspace (spec 1 §2 `ai_per_month`, §7): Pro or Custom only (402), a
 * provider set up on the server (else 503 `ai_unavailable`), a request left this month (else 402
 * with the reset time), then the provider's answer; the quota is taken only once the provider
 * answered well (its failures are 502 `ai_error` and use nothing). The WorkspaceActor's counter is
 * the one of replies and tickets: local month of the workspace zone, guarded by the database.
 */

addMessages({
  'ai.quota': {
    en: "This month's {limit} AI requests are used; the quota resets at {reset}.",
    id: 'Kuota {limit} permintaan AI bulan ini sudah habis; direset pada {reset}.',
  },
})

export interface AiUsage {
  readonly used: number
  readonly limit: number
}

const usageNow = (workspace: WorkspaceRow) =>
  Effect.gen(function* () {
    const now = yield* currentTime
    const all = yield* Effect.flatMap(WorkspaceActor, (a) => a.ask(workspace.id, { _tag: 'Usage', now }))
    return all.ai_per_month
  })

/** This month's AI usage (`meta.ai`). */
export const aiUsage = (workspace: WorkspaceRow) =>
  Effect.map(usageNow(workspace), (c): AiUsage => ({ used: c.used, limit: c.limit }))

/** The workspace may use AI now and the server has a provider (background work asks this). */
export const aiReady = (workspace: WorkspaceRow) =>
  Effect.gen(function* () {
    const provider = yield* AiProvider
    return provider.configured && isPaidActive(workspace, yield* currentTime) && limitsOf(workspace).ai
  })

/** Pro or Custom (with AI in its limits) and a provider set up; else 402 or 503. */
export const aiAllowed = (workspace: WorkspaceRow) =>
  Effect.gen(function* () {
    if (!isPaidActive(workspace, yield* currentTime) || !limitsOf(workspace).ai)
      return yield* Effect.fail(new ApiError({ code: 'plan_required' }))
    if (!(yield* AiProvider).configured) return yield* Effect.fail(new ApiError({ code: 'ai_unavailable' }))
  })

/** The provider's failures as the API answers them; the reason goes to the log only. */
export const asApiError = (workspace: WorkspaceRow, what: string) => (e: AiError | AiUnavailable) =>
  e._tag === 'AiUnavailable'
    ? Effect.fail(new ApiError({ code: 'ai_unavailable' }))
    : Effect.flatMap(Log, (log) =>
        Effect.sync(() =>
          log.warn('ai request failed', { workspace_id: workspace.id, what, reason: e.reason }),
        ),
      ).pipe(Effect.zipRight(Effect.fail(new ApiError({ code: 'ai_error' }))))

/**
 * Runs `call` as one of the workspace's AI requests of this month; answers its result and the
 * usage after it.
 */
export const aiRequest = <A, R>(
  workspace: WorkspaceRow,
  what: string,
  call: Effect.Effect<A, AiError | AiUnavailable, R>,
) =>
  Effect.gen(function* () {
    yield* aiAllowed(workspace)
    const before = yield* usageNow(workspace)
    if (before.limit !== 0 && before.used >= before.limit)
      return yield* Effect.fail(
        new QuotaExceeded({
          counter: 'ai_per_month',
          used: before.used,
          limit: before.limit,
          resetAt: before.endsAt,
        }),
      )
    const value = yield* Effect.catchAll(call, asApiError(workspace, what))
    const now = yield* currentTime
    // Another request of the same workspace may have taken the last one meanwhile: the counter
    // stays within the limit, and this answer is refused like any over the quota.
    const after = yield* Effect.flatMap(WorkspaceActor, (a) =>
      a.ask(workspace.id, { _tag: 'Consume', counter: 'ai_per_month', now }),
    )
    return { value, ai: { used: after.used, limit: after.limit } satisfies AiUsage }
  })
