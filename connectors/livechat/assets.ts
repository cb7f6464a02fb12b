import * as fs from 'node:fs'
import * as path from 'node:path'
import { sourcePath } from '../../engine/sourceTree'

/**
 * The widget's static files (`connectors/livechat/widget/`), read once at start. Plain browser
 * JavaScript and CSS: no build step, nothing to install.
 */
const dir = sourcePath('connectors', 'livechat', 'widget')
const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8')

export interface Asset {
  readonly body: string
  readonly contentType: string
}

export const assets = {
  loader: { body: read('loader.js'), contentType: 'text/javascript; charset=utf-8' },
  frameJs: { body: read('frame.js'), contentType: 'text/javascript; charset=utf-8' },
  frameCss: { body: read('frame.css'), contentType: 'text/css; charset=utf-8' },
} as const satisfies Record<string, Asset>

const frameTemplate = read('frame.html')

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

/** The chat page for one public key. */
export const framePage = (key: string) => frameTemplate.replace('{{KEY}}', escapeHtml(key))
