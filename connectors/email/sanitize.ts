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
