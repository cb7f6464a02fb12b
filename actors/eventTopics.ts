/**
 * The topics of the real-time channels, spelled in one place (spec 1 §6). Apart from the event
 * catalogue (actors/eventCatalogue.ts) so the agent app, which spells topics at run time, does not
 * carry the catalogue's documentation text in its bundle; the catalogue checks that its channel
 * kinds are exactly these.
 */

export type TopicKind = 'ws' | 'user' | 'conv' | 'ticket' | 'visitor'

/** A topic of one channel kind: `conv:12`. */
export type Topic<K extends TopicKind = TopicKind> = `${K}:${string}`

export const topics = {
  workspace: (id: number): Topic<'ws'> => `ws:${id}`,
  user: (id: number): Topic<'user'> => `user:${id}`,
  conversation: (id: number): Topic<'conv'> => `conv:${id}`,
  ticket: (id: number): Topic<'ticket'> => `ticket:${id}`,
  visitor: (session: string): Topic<'visitor'> => `visitor:${session}`,
}
