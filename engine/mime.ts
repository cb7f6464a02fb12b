/**
 * A file's media type as the service stores and serves it: `type/subtype`, lower case, without
 * parameters; anything else (empty, malformed, with control characters) is
 * `application/octet-stream`. Types come from strangers (a messaging-app sender's `mimetype`, an
 * API channel's attachment) and end up in a `Content-Type` header: a CR or LF there would add
 * headers of the sender's choosing to the agents' responses, and a leading space would slip past
 * the rule that sends active types as downloads.
 */
const TOKEN = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/

/**
 * A media type as a client may write one: `type/subtype`, optional parameters, printable ASCII
 * only (what an API refuses with 422 rather than store).
 */
export const MEDIA_TYPE = /^ *[A-Za-z0-9][\w!#$&^.+-]*\/[A-Za-z0-9][\w!#$&^.+-]*( *;[ -~]*)?$/

export const OCTET_STREAM = 'application/octet-stream'

export const cleanMime = (raw: string | null | undefined): string => {
  if (!raw) return OCTET_STREAM
  const semi = raw.indexOf(';')
  const bare = (semi === -1 ? raw : raw.slice(0, semi)).trim().toLowerCase()
  return TOKEN.test(bare) ? bare : OCTET_STREAM
}
