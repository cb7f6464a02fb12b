import { Effect, Schema } from 'effect'
import * as Livechat from '../../actors/channels/livechat'
import { WIDGET_SCRIPT_PATH } from '../../actors/channels/livechatEmbed'
import { type Asset, assets, framePage } from '../../connectors/livechat/assets'
import type { Reply, Route } from '../route'
import { route } from '../route'

/**
 * The widget's browser side (spec 1 §4.6 leaves its shape to us): the loader script the
 * customer's page includes, and the chat page it frames, with its script and styles. Public and
 * cacheable; the frame page says, through `frame-ancestors`, which sites may embed it
 * (`allowed_domains`), so a browser refuses to show it anywhere else.
 */
const ASSET_CACHE = 'public, max-age=300'

const asset = (a: Asset): Reply => ({
  _tag: 'Raw',
  status: 200,
  contentType: a.contentType,
  body: a.body,
  headers: { 'Cache-Control': ASSET_CACHE, 'X-Content-Type-Options': 'nosniff' },
})

const notFoundPage: Reply = {
  _tag: 'Raw',
  status: 404,
  contentType: 'text/html; charset=utf-8',
  body: '<!doctype html><title>Not found</title><p>This chat is not available.</p>',
  headers: { 'Content-Security-Policy': "default-src 'none'" },
}

const framePageReply = (key: string, ancestors: string): Reply => ({
  _tag: 'Raw',
  status: 200,
  contentType: 'text/html; charset=utf-8',
  body: framePage(key),
  headers: {
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Content-Security-Policy': [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' blob: data:",
      "connect-src 'self' ws: wss:",
      "base-uri 'none'",
      "form-action 'none'",
      `frame-ancestors ${ancestors}`,
    ].join('; '),
  },
})

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: WIDGET_SCRIPT_PATH,
    access: 'P',
    // Static files: the customer's visitors behind one address (a company's NAT) share nothing else.
    unlimited: true,
    tag: 'Live chat widget',
    summary: "The widget loader for the customer's page (JavaScript)",
    handler: () => Effect.succeed(asset(assets.loader)),
  }),
  route({
    method: 'GET',
    path: '/livechat/assets/frame.js',
    access: 'P',
    unlimited: true,
    tag: 'Live chat widget',
    summary: "The chat page's script",
    handler: () => Effect.succeed(asset(assets.frameJs)),
  }),
  route({
    method: 'GET',
    path: '/livechat/assets/frame.css',
    access: 'P',
    unlimited: true,
    tag: 'Live chat widget',
    summary: "The chat page's styles",
    handler: () => Effect.succeed(asset(assets.frameCss)),
  }),
  route({
    method: 'GET',
    path: '/livechat/{key}/frame',
    access: 'P',
    tag: 'Live chat widget',
    summary: 'The chat page the loader frames; only the allowed domains may embed it',
    params: Schema.Struct({ key: Schema.String.pipe(Schema.maxLength(100)) }),
    handler: ({ params }) =>
      Effect.map(Livechat.frameAncestorsOf(params.key), (ancestors) =>
        ancestors === null ? notFoundPage : framePageReply(params.key, ancestors),
      ),
  }),
]
