/**
 * The client ids of a conversation's latest messages, compact: a bounded ring of (53-bit hash of
 * the client id, message id) pairs in one array of numbers, about 16 bytes a message instead of a
 * `Map` entry and the id's string (60–100 bytes). A hash says "maybe": the caller checks the
 * candidate message's own client id before treating a message as a resend. Older ids than the ring
 * holds are still caught by the database's unique index (conversation, client id).
 */
export interface RecentClientIds {
  /** `[hash, id, hash, id, …]`, at most `2 × RECENT_CLIENT_IDS` numbers. */
  slots: number[]
  /** The pair to overwrite next once the ring is full. */
  next: number
}

/** How many recent client ids a conversation keeps in memory. */
export const RECENT_CLIENT_IDS = 100

/** cyrb53 (public domain): a fast 53-bit string hash, exact in a double. */
export const hash53 = (s: string): number => {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4294967296 * (2097151 & h2) + (h1 >>> 0)
}

export const empty = (): RecentClientIds => ({ slots: [], next: 0 })

export const of = (pairs: Iterable<readonly [string, number]>): RecentClientIds => {
  const recent = empty()
  for (const [clientId, id] of pairs) add(recent, clientId, id)
  return recent
}

/** Remembers a stored message's client id, in place, forgetting the oldest beyond the bound. */
export const add = (recent: RecentClientIds, clientId: string, id: number): void => {
  const h = hash53(clientId)
  // The first pair in an array of its own size (a push would make room for 16 numbers).
  if (recent.slots.length === 0) {
    recent.slots = [h, id]
    return
  }
  if (recent.slots.length < 2 * RECENT_CLIENT_IDS) {
    recent.slots.push(h, id)
    return
  }
  recent.slots[2 * recent.next] = h
  recent.slots[2 * recent.next + 1] = id
  recent.next = (recent.next + 1) % RECENT_CLIENT_IDS
}

/**
 * The message that may carry this client id (same hash); undefined when none of the recent ones
 * does. A candidate is a resend only if the message's own client id is the same.
 */
export const candidate = (recent: RecentClientIds, clientId: string): number | undefined => {
  const h = hash53(clientId)
  const slots = recent.slots
  for (let i = 0; i < slots.length; i += 2) if (slots[i] === h) return slots[i + 1]
  return undefined
}
