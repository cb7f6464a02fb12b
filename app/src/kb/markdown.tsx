import { Lexer, type Token, type Tokens } from 'marked'
import { type ComponentChildren, createElement } from 'preact'

/**
 * An article's body (spec 2 §2: simple Markdown) as Preact elements, never as an HTML string:
 * marked only cuts the text into tokens, and each token becomes an element built here, so no
 * markup the author typed reaches the page as markup. Raw HTML (`<script>`, `<img onerror>`) is
 * shown as the text it is; links keep only http(s), mailto and tel addresses and app paths;
 * images become links to their address (no request leaves the page by itself).
 */

const SAFE = /^(https?:|mailto:|tel:)/i

/** The address a link may lead to, or null when it may not (`javascript:`, `data:`, …). */
export const safeHref = (href: string): string | null => {
  const h = href.trim()
  if (h.startsWith('#')) return h
  try {
    // A path of the app's own is read as the browser will read it: to it `/\host` and
    // `/<tab>/host` are other sites, links that would look internal and leave in the same tab.
    if (h.startsWith('/')) {
      const u = new URL(h, location.origin)
      return u.origin === location.origin ? `${u.pathname}${u.search}${u.hash}` : null
    }
    const u = new URL(h)
    return SAFE.test(u.protocol) ? u.href : null
  } catch {
    return null
  }
}

const link = (href: string, children: ComponentChildren, key: number) => {
  const to = safeHref(href)
  if (to === null) return <span key={key}>{children}</span>
  const outside = !to.startsWith('/') && !to.startsWith('#')
  return (
    <a key={key} href={to} {...(outside ? { target: '_blank', rel: 'noopener noreferrer nofollow' } : {})}>
      {children}
    </a>
  )
}

const inline = (tokens: readonly Token[] | undefined): ComponentChildren =>
  (tokens ?? []).map((t, i) => {
    switch (t.type) {
      case 'strong':
        return <strong key={i}>{inline((t as Tokens.Strong).tokens)}</strong>
      case 'em':
        return <em key={i}>{inline((t as Tokens.Em).tokens)}</em>
      case 'del':
        return <del key={i}>{inline((t as Tokens.Del).tokens)}</del>
      case 'codespan':
        return <code key={i}>{(t as Tokens.Codespan).text}</code>
      case 'br':
        return <br key={i} />
      case 'link':
        return link((t as Tokens.Link).href, inline((t as Tokens.Link).tokens), i)
      case 'image': {
        const img = t as Tokens.Image
        return link(img.href, img.text || img.href, i)
      }
      case 'text': {
        const x = t as Tokens.Text
        return x.tokens ? <span key={i}>{inline(x.tokens)}</span> : x.text
      }
      default:
        // `escape`, `html` (shown as typed) and anything newer: their text, as text.
        return 'text' in t && typeof t.text === 'string' ? t.text : t.raw
    }
  })

const heading = (depth: number, children: ComponentChildren, key: number) => {
  // The page's own title is the h1: the article's headings start one level below.
  return createElement(`h${Math.min(6, depth + 1)}`, { key }, children)
}

const blocks = (tokens: readonly Token[]): ComponentChildren =>
  tokens.map((t, i) => {
    switch (t.type) {
      case 'space':
      case 'def':
        return null
      case 'heading':
        return heading((t as Tokens.Heading).depth, inline((t as Tokens.Heading).tokens), i)
      case 'paragraph':
        return <p key={i}>{inline((t as Tokens.Paragraph).tokens)}</p>
      case 'text': {
        const x = t as Tokens.Text
        return <span key={i}>{x.tokens ? inline(x.tokens) : x.text}</span>
      }
      case 'blockquote':
        return <blockquote key={i}>{blocks((t as Tokens.Blockquote).tokens)}</blockquote>
      case 'code':
        return (
          <pre key={i}>
            <code>{(t as Tokens.Code).text}</code>
          </pre>
        )
      case 'hr':
        return <hr key={i} />
      case 'list': {
        const l = t as Tokens.List
        const items = l.items.map((it, j) => <li key={j}>{blocks(it.tokens)}</li>)
        return l.ordered ? (
          <ol key={i} start={typeof l.start === 'number' && l.start !== 1 ? l.start : undefined}>
            {items}
          </ol>
        ) : (
          <ul key={i}>{items}</ul>
        )
      }
      case 'table': {
        const tb = t as Tokens.Table
        return (
          <div key={i} class="kb-table">
            <table>
              <thead>
                <tr>
                  {tb.header.map((c, j) => (
                    <th key={j} scope="col">
                      {inline(c.tokens)}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {tb.rows.map((r, j) => (
                  <tr key={j}>
                    {r.map((c, k) => (
                      <td key={k}>{inline(c.tokens)}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      }
      default:
        // `html` blocks and anything the renderer does not know: the source, as text.
        return <p key={i}>{t.raw}</p>
    }
  })

const lex = (source: string) => Lexer.lex(source, { gfm: true })

/** The body as elements, inside `<div class="kb-md">`. */
export const Markdown = (props: { source: string; testId?: string }) => (
  <div class="kb-md" data-testid={props.testId}>
    {blocks(lex(props.source))}
  </div>
)

const plainInline = (tokens: readonly Token[] | undefined): string =>
  (tokens ?? [])
    .map((t) => {
      if (t.type === 'link') {
        const l = t as Tokens.Link
        const label = plainInline(l.tokens)
        const to = safeHref(l.href)
        return to && to !== label ? `${label} (${to})` : label
      }
      if (t.type === 'image') return (t as Tokens.Image).text
      if (t.type === 'br') return '\n'
      if ('tokens' in t && t.tokens) return plainInline(t.tokens)
      return 'text' in t && typeof t.text === 'string' ? t.text : t.raw
    })
    .join('')

const plainBlocks = (tokens: readonly Token[], indent = ''): string[] =>
  tokens.flatMap((t): string[] => {
    switch (t.type) {
      case 'space':
      case 'def':
      case 'hr':
        return []
      case 'list': {
        const l = t as Tokens.List
        return [
          l.items
            .map((it, j) => {
              const mark = l.ordered ? `${(typeof l.start === 'number' ? l.start : 1) + j}. ` : '- '
              return `${indent}${mark}${plainBlocks(it.tokens, `${indent}  `).join('\n')}`
            })
            .join('\n'),
        ]
      }
      case 'blockquote':
        return plainBlocks((t as Tokens.Blockquote).tokens, indent)
      case 'code':
        return [(t as Tokens.Code).text]
      case 'table': {
        const tb = t as Tokens.Table
        return [tb.rows.map((r) => r.map((c) => plainInline(c.tokens)).join(' | ')).join('\n')]
      }
      default:
        return ['tokens' in t && t.tokens ? plainInline(t.tokens) : 'text' in t ? String(t.text) : t.raw]
    }
  })

/**
 * The body as plain text for a reply (customers' apps show no Markdown): marks dropped, lists as
 * `- ` lines, a link as `label (address)`.
 */
export const plainText = (source: string) =>
  plainBlocks(lex(source))
    .filter((b) => b.trim() !== '')
    .join('\n\n')

/**
 * A search snippet: HTML-escaped text whose only markup is `<mark>` (decisions: "Snippet"), shown
 * as text with the marked words in `<mark>` elements; nothing in it is parsed as HTML.
 */
export const Snippet = (props: { html: string }) => {
  const parts = props.html.split(/(<\/?mark>)/)
  const out: ComponentChildren[] = []
  let on = false
  parts.forEach((p, i) => {
    if (p === '<mark>') on = true
    else if (p === '</mark>') on = false
    else if (p !== '') {
      const text = p.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
      out.push(on ? <mark key={i}>{text}</mark> : text)
    }
  })
  return <p class="kb-snippet">{out}</p>
}
