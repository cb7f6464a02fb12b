/**
 * A conversation's state as a pure fold over its timeline (docs/decisions-social.md, "States").
 * The store keeps the result on the conversation row and recomputes it whenever a message or a
 * status change arrives, in any order: the state depends on the set of events only.
 *
 * - A conversation starts `open`.
 * - An incoming message reopens a `solved` or `closed` conversation (`open`, reopened + 1,
 *   solved/closed times cleared) and turns `replied` back into `open`.
 * - A published outgoing message turns `open` into `replied`; the first one is the first response.
 *   Pending and failed messages change nothing.
 * - An explicit change to `solved` stamps `solved_at` (clears `closed_at`); to `closed` stamps
 *   `closed_at` (keeps `solved_at` when it was solved); to `open`/`replied` from solved or closed
 *   counts as a reopening. A change to the current status is a no-op.
 */
export type ConversationStatus = 'open' | 'replied' | 'solved' | 'closed'
export const conversationStatuses: readonly ConversationStatus[] = ['open', 'replied', 'solved', 'closed']

export type TimelineEvent =
  | { readonly kind: 'in'; readonly at: Date }
  | { readonly kind: 'out'; readonly at: Date; readonly published: boolean }
  | { readonly kind: 'status'; readonly at: Date; readonly to: ConversationStatus }

export interface ConversationState {
  readonly status: ConversationStatus
  readonly firstResponseAt: Date | null
  readonly lastMessageAt: Date
  readonly solvedAt: Date | null
  readonly closedAt: Date | null
  readonly reopenedCount: number
}

const resolved = (s: ConversationStatus) => s === 'solved' || s === 'closed'

/** Same instant: messages before status changes (a reply then "solved" in the same second). */
const rank = (e: TimelineEvent) => (e.kind === 'status' ? 1 : 0)

export const fold = (createdAt: Date, events: readonly TimelineEvent[]): ConversationState => {
  const ordered = events
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.at.getTime() - b.e.at.getTime() || rank(a.e) - rank(b.e) || a.i - b.i)
  let status: ConversationStatus = 'open'
  let firstResponseAt: Date | null = null
  let lastMessageAt = createdAt
  let solvedAt: Date | null = null
  let closedAt: Date | null = null
  let reopenedCount = 0
  const reopen = (to: ConversationStatus) => {
    if (resolved(status)) {
      reopenedCount++
      solvedAt = null
      closedAt = null
    }
    status = to
  }
  for (const { e } of ordered) {
    if (e.kind !== 'status' && e.at > lastMessageAt) lastMessageAt = e.at
    switch (e.kind) {
      case 'in':
        if (status !== 'open') reopen('open')
        break
      case 'out':
        if (!e.published) break
        if (firstResponseAt === null) firstResponseAt = e.at
        if (status === 'open') status = 'replied'
        break
      case 'status':
        if (e.to === status) break
        if (e.to === 'solved') {
          status = 'solved'
          solvedAt = e.at
          closedAt = null
        } else if (e.to === 'closed') {
          if (status !== 'solved') solvedAt = null
          status = 'closed'
          closedAt = e.at
        } else {
          reopen(e.to)
        }
        break
    }
  }
  return { status, firstResponseAt, lastMessageAt, solvedAt, closedAt, reopenedCount }
}
