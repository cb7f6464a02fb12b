import { Effect } from 'effect'

/**
 * A local nudge for this node's broadcast senders: a change made here (schedule, pause, resume,
 * cancel, retry) is looked at at once instead of at the next poll. Only a hint: the database is
 * the truth, and other nodes see the change at their next look.
 */
const listeners = new Set<() => void>()

export const nudge = Effect.sync(() => {
  for (const l of listeners) l()
})

export const onNudge = (l: () => void) => {
  listeners.add(l)
  return () => {
    listeners.delete(l)
  }
}
