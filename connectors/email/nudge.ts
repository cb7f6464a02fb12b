/**
 * A hint, inside one process, that e-mail channel settings changed or a sync was asked for, so this
 * node's session supervisor looks at once instead of at its next poll. Only a hint: the database
 * is the truth, and other nodes see the change at their next poll.
 */
const listeners = new Set<() => void>()

export const nudge = () => {
  for (const l of listeners) l()
}

export const onNudge = (listener: () => void) => {
  listeners.add(listener)
  return () => {
    listeners.delete(listener)
  }
}
