import sanitizeHtml from 'sanitize-html'

/**
 * Received mail as HTML the inbox can show: an allow-list of layout and text tags, links and
 * images, no script, style sheet, form, frame or event handler. Inline styles keep only plain
 * properties whose values cannot load anything (no `url(`). Remote images stay in the stored HTML
 * and are blocked when shown (`blockRemoteImages`, remoteImages.ts) unless the reader asks for them.
 */
const SAFE_VALUE = /^(?!.*(url\s*\(|expression\s*\(|javascript:|@import))[^;{}<>]{0,200}$/i
const STYLE_PROPS = [
  'color',
  'background-color',
  'font-family',
  'font-size',
  'font-weight',
  'font-style',
  'text-align',
  'text-decoration',
  'line-height',
  'padding',
  'margin',
  'border',
  'width',
  'height',
  'vertical-align',
  'white-space',
]

export const sanitizeMail = (html: string): string =>
  sanitizeHtml(html, {
    allowedTags: [
      ...sanitizeHtml.defaults.allowedTags.filter((t) => t !== 'style'),
      'img',
      'font',
      'center',
      'span',
      'u',
      's',
    ],
    allowedAttributes: {
      a: ['href', 'title', 'target', 'rel'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      font: ['color', 'size', 'face'],
      td: ['colspan', 'rowspan', 'align', 'valign', 'width'],
      th: ['colspan', 'rowspan', 'align', 'valign', 'width'],
      table: ['width', 'align', 'border', 'cellpadding', 'cellspacing'],
      '*': ['style', 'dir', 'lang'],
    },
    allowedStyles: { '*': Object.fromEntries(STYLE_PROPS.map((p) => [p, [SAFE_VALUE]])) },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https', 'cid', 'data'] },
    allowProtocolRelative: false,
    transformTags: {
      a: (tagName, attribs) => ({
        tagName,
        attribs: { ...attribs, target: '_blank', rel: 'noopener noreferrer nofollow' },
      }),
    },
  })

/**
 * The most of a received mail's HTML the message keeps (UTF-8 bytes, sanitised): the message
 * resource, every page of messages and the `message.created` event to each agent's socket carry
 * it, and a socket more than 1 MiB behind is closed as a slow consumer (http/realtime/protocol.ts);
 * Gmail clips at about 100 kB. Sanitising costs CPU in proportion (20 MB took 13 s of the event
 * loop here), so no more than this is ever sanitised either.
 */
export const MAX_MAIL_HTML_BYTES = 256 * 1024

/**
 * The first `bytes` UTF-8 bytes of `s`, without a character the cut splits or a tag it leaves
 * half written (from its last `<` not yet closed by a `>`).
 */
const htmlHead = (s: string, bytes: number): string => {
  const buf = Buffer.from(s.slice(0, bytes), 'utf8')
  let end = Math.min(bytes, buf.length)
  // Back to the start of a character the cut falls in (continuation bytes are 10xxxxxx).
  while (end > 0 && end < buf.length && (buf[end]! & 0xc0) === 0x80) end -= 1
  const head = buf.subarray(0, end).toString('utf8')
  const open = head.lastIndexOf('<')
  return open > head.lastIndexOf('>') ? head.slice(0, open) : head
}

/**
 * A received mail's HTML as the message keeps it: sanitised and at most `max` bytes. A longer
 * mail is clipped (as a mail program clips one) before sanitising, and again after when
 * sanitising made it longer (it adds attributes to links), each clip sanitised again so no tag is
 * left open; `cut` says whether anything was left out.
 */
export const sanitizeMailBounded = (
  html: string,
  max = MAX_MAIL_HTML_BYTES,
): { readonly html: string; readonly cut: boolean } => {
  const cut = Buffer.byteLength(html) > max
  const clean = sanitizeMail(cut ? htmlHead(html, max) : html)
  if (Buffer.byteLength(clean) <= max) return { html: clean, cut }
  // Sanitised text is sanitised again unchanged but for the closing tags a clip needs.
  let room = max
  for (;;) {
    const out = sanitizeMail(htmlHead(clean, Math.max(0, room)))
    const over = Buffer.byteLength(out) - max
    if (over <= 0) return { html: out, cut: true }
    room -= over + 64
  }
}
