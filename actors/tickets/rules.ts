import { addBusinessMinutes, businessMs, type SlaPolicy, slaOf } from '../../store/sla'
import { customValue } from '../customValues'

/**
 * The rules of a ticket as pure functions of plain values (spec 2 §2, §3, §8): the one state
 * table of statuses and transitions, priorities and their SLA targets, the update-request window,
 * `@Name` mentions and the change log of a patch. The TicketActor loads, decides here, writes and
 * publishes; these are tested with plain values (docs/decisions.md, Tickets).
 */

export const STATUSES = ['open', 'in_progress', 'waiting', 'resolved', 'closed'] as const
export type Status = (typeof STATUSES)[number]

/** `active` (spec 2 §3) is a group, not a status: work not done yet. */
export const ACTIVE: readonly Status[] = ['open', 'in_progress', 'waiting']
export const isActive = (s: Status): boolean => ACTIVE.includes(s)

/**
 * The one state table: from each status, the statuses `PATCH /tickets/{id}` may move it to.
 * Active tickets move anywhere; a resolved ticket is reopened (back to work) or closed; a closed
 * ticket is only reopened. `POST /tickets/{id}/conclusion` with `resolve` moves active → resolved.
 */
export const TRANSITIONS: Readonly<Record<Status, readonly Status[]>> = {
  open: ['in_progress', 'waiting', 'resolved', 'closed'],
  in_progress: ['open', 'waiting', 'resolved', 'closed'],
  waiting: ['open', 'in_progress', 'resolved', 'closed'],
  resolved: ['open', 'in_progress', 'closed'],
  closed: ['open'],
}

export const canMove = (from: Status, to: Status): boolean => from === to || TRANSITIONS[from].includes(to)

export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const
export type Priority = (typeof PRIORITIES)[number]

/** Resolution targets per priority, in business minutes (Pro and Custom `sla`). */
export const PRIORITY_TARGET_MINUTES: Readonly<Record<Priority, number>> = {
  urgent: 4 * 60,
  high: 8 * 60,
  normal: 24 * 60,
  low: 72 * 60,
}

export interface TicketSla {
  /** `warn` past the workspace's warning share of the target, `breach` past the target; else null. */
  readonly level: 'warn' | 'breach' | null
  readonly target_minutes: number
  /** Business minutes since the ticket was raised. */
  readonly minutes: number
  readonly due_at: Date | null
}

/**
 * The SLA of an active ticket raised at `createdAt`: the conversations' arithmetic (store/sla.ts)
 * over the workspace's business hours, with the priority's target. Null for finished tickets.
 */
export const ticketSla = (
  t: { readonly status: Status; readonly priority: Priority; readonly created_at: Date },
  now: Date,
  base: Omit<SlaPolicy, 'targetMinutes'>,
): TicketSla | null => {
  if (!isActive(t.status)) return null
  const policy: SlaPolicy = { ...base, targetMinutes: PRIORITY_TARGET_MINUTES[t.priority] }
  const flag = slaOf(t.created_at, now, policy)
  return {
    level: flag?.level ?? null,
    target_minutes: policy.targetMinutes,
    minutes: flag?.minutes ?? Math.floor(businessMs(t.created_at, now, policy) / 60_000),
    due_at: flag?.due_at ?? addBusinessMinutes(t.created_at, policy.targetMinutes, policy),
  }
}

/** Spec 2 §8: one update request per ticket per 15 minutes. */
export const UPDATE_REQUEST_WINDOW_MS = 15 * 60_000

/** When the next update request may be made, or null when one may be made now. */
export const nextUpdateRequestAt = (last: Date | null, nowMs: number): number | null => {
  if (last === null) return null
  const at = last.getTime() + UPDATE_REQUEST_WINDOW_MS
  return at > nowMs ? at : null
}

/** Spec 2 §8: attachments per discussion message. */
export const MAX_FILES = 5

/**
 * People named `@Name` in a text: each candidate whose whole name follows an `@` (any case), not
 * followed by a letter or digit. Longer names win where one name starts another.
 */
export const mentionedIn = (
  text: string,
  people: ReadonlyArray<{ readonly id: number; readonly name: string }>,
): number[] => {
  const lower = text.toLowerCase()
  const found = new Set<number>()
  const byLength = [...people]
    .filter((p) => p.name.trim() !== '')
    .sort((a, b) => b.name.length - a.name.length)
  const taken: Array<readonly [number, number]> = []
  for (const p of byLength) {
    const needle = `@${p.name.trim().toLowerCase()}`
    let from = 0
    for (;;) {
      const i = lower.indexOf(needle, from)
      if (i < 0) break
      from = i + 1
      const end = i + needle.length
      const next = lower.charAt(end)
      if (next !== '' && /[\p{L}\p{N}_]/u.test(next)) continue
      if (taken.some(([a, b]) => i < b && end > a)) continue
      taken.push([i, end])
      found.add(p.id)
    }
  }
  return [...found]
}

/** A field change of `PATCH /tickets/{id}`, as the log records it. */
export interface FieldChange {
  readonly field: string
  readonly old: unknown
  readonly new: unknown
}

export interface Editable {
  readonly subject: string
  readonly description: string
  readonly status: Status
  readonly priority: Priority
  readonly due_date: string | null
  readonly team_id: number
  readonly custom: Readonly<Record<string, unknown>>
}

export interface Patch {
  readonly subject?: string
  readonly description?: string
  readonly status?: Status
  readonly priority?: Priority
  readonly due_date?: string | null
  readonly team_id?: number
  /** Custom values to set and keys to clear (checked against the definitions already). */
  readonly customSet?: Readonly<Record<string, unknown>>
  readonly customClear?: readonly string[]
}

export type Decision =
  | { readonly _tag: 'Changes'; readonly changes: readonly FieldChange[]; readonly next: Editable }
  | { readonly _tag: 'BadTransition'; readonly from: Status; readonly to: Status }

/** What a patch changes (one entry per field, custom values one per key) and the resulting fields. */
export const decidePatch = (t: Editable, p: Patch): Decision => {
  if (p.status !== undefined && !canMove(t.status, p.status))
    return { _tag: 'BadTransition', from: t.status, to: p.status }
  const changes: FieldChange[] = []
  const next: { -readonly [K in keyof Editable]: Editable[K] } = { ...t }
  const plain = ['subject', 'description', 'status', 'priority', 'due_date', 'team_id'] as const
  for (const f of plain) {
    const v = p[f]
    if (v === undefined || v === t[f]) continue
    changes.push({ field: f, old: t[f], new: v })
    ;(next as Record<string, unknown>)[f] = v
  }
  const custom: Record<string, unknown> = { ...t.custom }
  for (const [k, v] of Object.entries(p.customSet ?? {})) {
    const old = customValue(custom, k)
    if (old === v) continue
    changes.push({ field: `custom.${k}`, old: old ?? null, new: v })
    custom[k] = v
  }
  for (const k of p.customClear ?? []) {
    const old = customValue(custom, k)
    if (old === undefined) continue
    changes.push({ field: `custom.${k}`, old, new: null })
    delete custom[k]
  }
  next.custom = custom
  return { _tag: 'Changes', changes, next }
}
