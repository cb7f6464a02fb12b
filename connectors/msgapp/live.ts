import type { MsgappSocket } from './Transport'

/**
 * This process's open number sockets, shared by the session supervisor (above the actors, which
 * opens them) and the outbound adapter (below the actors, which sends through them), plus a
 * local nudge so a request made here is carried out at once instead of at the next poll. Only a
 * hint: the database is the truth, and other nodes see requests at their next poll.
 */
const sockets = new Map<number, MsgappSocket>()
const listeners = new Set<() => void>()
const troubles = new Set<(channelId: number, reason: string | null) => void>()

export const openSocket = (channelId: number) => sockets.get(channelId) ?? null
export const setOpen = (channelId: number, s: MsgappSocket) => sockets.set(channelId, s)
export const clearOpen = (channelId: number, s?: MsgappSocket) => {
  if (!s || sockets.get(channelId) === s) sockets.delete(channelId)
}

export const nudge = () => {
  for (const l of listeners) l()
}
export const onNudge = (l: () => void) => {
  listeners.add(l)
  return () => {
    listeners.delete(l)
  }
}

/**
 * The adapter saw the service refuse the number (restriction, `reason`) or, for a number marked
 * restricted, a send go through again (`reason` null): the supervisor surfaces it.
 */
export const reportTrouble = (channelId: number, reason: string | null) => {
  for (const t of troubles) t(channelId, reason)
}
export const onTrouble = (t: (channelId: number, reason: string | null) => void) => {
  troubles.add(t)
  return () => {
    troubles.delete(t)
  }
}
