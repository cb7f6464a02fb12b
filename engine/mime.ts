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

/**
 * File name extensions of the types a file may be stored under and that a browser shows inline or
 * a desktop opens by its extension; the first is the one added to a name that lacks them.
 */
const EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg', 'jpe', 'jfif'],
  'image/gif': ['gif'],
  'image/webp': ['webp'],
  'image/avif': ['avif'],
  'image/bmp': ['bmp'],
  'application/pdf': ['pdf'],
  'text/plain': ['txt', 'text', 'log', 'csv', 'tsv', 'md'],
  'text/csv': ['csv'],
  'text/html': ['html', 'htm'],
  'audio/mpeg': ['mp3', 'mpga'],
  'audio/mp4': ['m4a', 'mp4'],
  'audio/aac': ['aac'],
  'audio/ogg': ['ogg', 'oga', 'opus'],
  'audio/amr': ['amr'],
  'audio/wav': ['wav'],
  'audio/webm': ['weba', 'webm'],
  'video/mp4': ['mp4', 'm4v'],
  'video/3gpp': ['3gp', '3gpp'],
  'video/webm': ['webm'],
  'video/quicktime': ['mov', 'qt'],
  'application/msword': ['doc'],
  'application/vnd.ms-excel': ['xls'],
  'application/vnd.ms-powerpoint': ['ppt'],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['docx'],
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': ['xlsx'],
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': ['pptx'],
}

/**
 * A stranger's file name as it is stored beside its type: when the type is one of `EXTENSIONS`
 * and the name does not end in one of its extensions, the type's extension is added (`invoice.html`
 * stored as a PNG is `invoice.html.png`, `photo` is `photo.jpg`), so the name a download is saved
 * under opens as what the file is stored and served as, never as a page or a program. A name
 * already right is kept as sent (`Shot.JPEG`); other types keep the name (nothing vouches for it).
 */
export const nameForType = (name: string, mime: string): string => {
  const known = EXTENSIONS[cleanMime(mime)]
  if (!known) return name
  const ext = /\.([^./\\]+)$/.exec(name)?.[1]?.toLowerCase()
  if (ext !== undefined && known.includes(ext)) return name
  return `${name.replace(/\.+$/, '')}.${known[0]}`
}
