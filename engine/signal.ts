/**
 * A local signal: listeners told, inside one node, that something happened (a local nudge: a change
 * made here is looked at at once instead of at the next poll). Made when the node's layer is built
 * (each use under its own tag), so two nodes in one process never hear each other's.
 */
export interface Signal<A extends readonly unknown[] = []> {
  readonly fire: (...args: A) => void
  /** Listens until the returned function is called. */
  readonly on: (listener: (...args: A) => void) => () => void
}

export const make = <A extends readonly unknown[] = []>(): Signal<A> => {
  const listeners = new Set<(...args: A) => void>()
  return {
    fire: (...args) => {
      for (const l of listeners) l(...args)
    },
    on: (listener) => {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
  }
}
