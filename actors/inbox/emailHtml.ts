/**
 * E-mail HTML: what an agent may write (bold, italic, underline, lists, links, paragraphs and
 * line breaks) and the plain text generated from it. An allow-list rewriter, not a parser of all
 * HTML: every tag is rebuilt from its name and the few attributes kept, everything else becomes
 * text, so no script, style, event handler or `javascript:` link survives.
 */
const ALLOWED = new Set(['b', 'strong', 'i', 'em', 'u', 'ul', 'ol', 'li', 'a', 'p', 'br', 'div', 'span'])
const VOID = new Set(['br'])
/** Tags whose content is dropped with them. */
const DROP_CONTENT = new Set([
  'script',
  'style',
  'iframe',
  'object',
  'embed',
  'head',
  'title',
  'template',
  'noscript',
  'svg',
  'math',
  'textarea',
  'select',
])

const escapeText = (s: string) =>
  s
    .replace(/&(?!#?\w+;)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
const escapeAttr = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
}

export const decodeEntities = (s: string): string =>
  s.replace(/&(#x[0-9a-f]+|#\d+|\w+);?/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1))
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ''
    }
    return ENTITIES[e.toLowerCase()] ?? m
  })

const safeHref = (raw: string): string | null => {
  // Decode and drop whitespace and control characters first: `jav&#x61;script:` and `java\tscript:`
  // must not slip through.
  const url = [...decodeEntities(raw)].filter((ch) => ch.charCodeAt(0) > 0x20 && ch !== '\x7f').join('')
  return /^(https?:\/\/|mailto:)/i.test(url) ? url : null
}

const TOKEN = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g
const HREF = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i

/** Keeps the allowed formatting; everything else is dropped or turned into text. */
export const sanitize = (html: string): string => {
  let out = ''
  let last = 0
  const open: string[] = []
  let dropping: string | null = null
  let dropDepth = 0
  for (const m of html.matchAll(TOKEN)) {
    const index = m.index ?? 0
    if (dropping === null) out += escapeText(html.slice(last, index))
    last = index + m[0].length
    if (m[2] === undefined) continue // a comment
    const closing = m[1] === '/'
    const tag = m[2].toLowerCase()
    if (dropping !== null) {
      if (tag === dropping) dropDepth += closing ? -1 : 1
      if (dropDepth === 0) dropping = null
      continue
    }
    if (DROP_CONTENT.has(tag)) {
      if (!closing && !/\/\s*$/.test(m[3] ?? '')) {
        dropping = tag
        dropDepth = 1
      }
      continue
    }
    if (!ALLOWED.has(tag)) continue
    if (closing) {
      const at = open.lastIndexOf(tag)
      if (at < 0) continue
      // Close whatever was left open inside, so the output stays well nested.
      while (open.length > at) out += `</${open.pop()}>`
      continue
    }
    if (VOID.has(tag)) {
      out += `<${tag}>`
      continue
    }
    if (tag === 'a') {
      const h = HREF.exec(m[3] ?? '')
      const href = h ? safeHref(h[1] ?? h[2] ?? h[3] ?? '') : null
      out += href ? `<a href="${escapeAttr(href)}" target="_blank" rel="noopener noreferrer">` : '<a>'
    } else {
      out += `<${tag}>`
    }
    open.push(tag)
  }
  if (dropping === null) out += escapeText(html.slice(last))
  while (open.length > 0) out += `</${open.pop()}>`
  return out
}

/** Plain text of (sanitized) HTML: line breaks for blocks, `- ` for list items, entities decoded. */
export const toText = (html: string): string =>
  decodeEntities(
    html
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<li\b[^>]*>/gi, '\n- ')
      .replace(/<\/li>/gi, '')
      .replace(/<\/(p|div|ul|ol)>/gi, '\n')
      .replace(/<a\b[^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, (_, href: string, text: string) =>
        text.trim() === '' || text === href ? href : `${text} (${href})`,
      )
      .replace(/<[^>]*>/g, ''),
  )
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
