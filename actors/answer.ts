/**
 * What a domain operation answers a caller: the resource (`data`) and what the envelope's `meta`
 * carries beside it (page figures, counts, quotas). http/route.ts turns it into the response, so
 * the domain never builds HTTP replies and the transport never decides what to answer.
 */
export interface Answer<D = unknown> {
  readonly data: D
  readonly meta?: Readonly<Record<string, unknown>> | undefined
  /** A new resource was made (201); otherwise 200. */
  readonly created?: boolean
}

export const reply = <D>(data: D, meta?: Readonly<Record<string, unknown>>): Answer<D> => ({ data, meta })

export const createdReply = <D>(data: D, meta?: Readonly<Record<string, unknown>>): Answer<D> => ({
  data,
  meta,
  created: true,
})
