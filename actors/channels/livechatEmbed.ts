import { type Widget, widgetOf } from './livechatSettings'

/**
 * What a live chat channel shows its managers (spec 1 §4.4): the public key, the snippet to paste
 * into a site, and the widget settings. The key is public by design (it is in every page that
 * embeds the widget); replacing it stops old embeds.
 */
export const WIDGET_SCRIPT_PATH = '/widget.js'

export const embedCode = (publicUrl: string, key: string) =>
  `<script src="${publicUrl}${WIDGET_SCRIPT_PATH}" data-kotak-key="${key}" async></script>`

export const livechatBlock = (
  row: { readonly public_key: string; readonly widget: Readonly<Record<string, unknown>> },
  publicUrl: string,
): { readonly key: string; readonly embed_code: string } & Widget => ({
  key: row.public_key,
  embed_code: embedCode(publicUrl, row.public_key),
  ...widgetOf(row.widget),
})
