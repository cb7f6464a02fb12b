import { useEffect, useState } from 'preact/hooks'

/** A value that components follow: `use(store)` re-renders when `set` changes it. */
export interface Store<T> {
  get(): T
  set(v: T): void
  update(f: (v: T) => T): void
  subscribe(f: (v: T) => void): () => void
}

export const store = <T>(initial: T): Store<T> => {
  let value = initial
  const listeners = new Set<(v: T) => void>()
  const set = (v: T) => {
    if (Object.is(v, value)) return
    value = v
    for (const f of listeners) f(v)
  }
  return {
    get: () => value,
    set,
    update: (f) => set(f(value)),
    subscribe: (f) => {
      listeners.add(f)
      return () => listeners.delete(f)
    },
  }
}

export const use = <T>(s: Store<T>): T => {
  const [, force] = useState(0)
  useEffect(() => s.subscribe(() => force((n) => n + 1)), [s])
  return s.get()
}
