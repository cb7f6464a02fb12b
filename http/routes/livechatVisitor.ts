import { Clock, Effect, Schema } from 'effect'
import { topics } from '../../actors/events'
import { BigIdFromString } from '../../actors/fields'
import * as Visitors from '../../actors/livechat/visitors'
import * as LivechatInbound from '../../connectors/livechat/inbound'
import { Config } from '../../engine/config'
import { iso } from '../../engine/time'
import { SigningKey } from '../../engine/tokens'
import { DownloadQuery, fileReply, iconReply, wantsDownload } from '../files'
import { REALTIME_PATH } from '../realtime/gateway'
import { sign, TOKEN_TTL_SECONDS } from '../realtime/token'
import { created, ok, type Reply, type Route, route } from '../route'

/**
 * Spec 1 §4.6, the live chat widget's endpoints (actors/livechat/visitors.ts; the visitor's
 * messages come in through connectors/livechat/inbound.ts). `config` and `logo` are public (P),
 * and `config` alone answers any origin (CORS, §5 rule 6): the loader on the customer's page
 * reads it. The rest are called by the widget's own page, served by Kotak in an iframe (same
 * origin), with the visitor token (V, checked in http/visitorAuth.ts).
 */
const Key = Schema.Struct({ key: Schema.String.pipe(Schema.maxLength(100)) })
const KeyAndId = Schema.Struct({
  key: Schema.String.pipe(Schema.maxLength(100)),
  id: BigIdFromString,
})

const withCors = (reply: Reply): Reply => ({
  ...reply,
  headers: { ...(reply.headers ?? {}), 'Access-Control-Allow-Origin': '*', Vary: 'Origin' },
})

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/livechat/{key}/config',
    access: 'P',
    tag: 'Live chat widget',
    summary:
      'Widget look and texts (`default_texts.id`: the Indonesian of texts the owner left at their default), the pre-chat fields, business-hours status, whether the page may show the widget, and a form token; any origin (CORS)',
    params: Key,
    query: Schema.Struct({ page: Schema.optional(Schema.String.pipe(Schema.maxLength(2000))) }),
    handler: ({ params, query, header }) =>
      Effect.map(
        Visitors.config(params.key, {
          page: query.page,
          origin: header('origin'),
          referer: header('referer'),
        }),
        (c) => withCors(ok(c)),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/livechat/{key}/logo',
    access: 'P',
    tag: 'Live chat widget',
    summary: "The widget logo (the channel's icon); 404 when none was uploaded",
    params: Key,
    handler: ({ params }) =>
      Effect.map(Visitors.logo(params.key), (icon) => iconReply(icon, 'public, max-age=300')),
  }),
  route({
    method: 'POST',
    path: '/v1/livechat/{key}/visitors',
    access: 'P',
    tag: 'Live chat widget',
    summary:
      "Start a chat: name, e-mail and phone (all required unless the channel's `prechat` makes one optional or hidden), the page, the locale and the form token; answers the visitor token",
    params: Key,
    body: Visitors.StartBody,
    handler: ({ params, body, header, ip, locale }) =>
      Effect.map(
        Visitors.start(params.key, body, {
          origin: header('origin'),
          referer: header('referer'),
          ip,
          locale,
        }),
        (s) => created(s),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/livechat/{key}/conversation',
    access: 'V',
    tag: 'Live chat widget',
    summary: 'The visitor’s conversation: messages after `after` (message id), queue position and agent',
    params: Key,
    query: Schema.Struct({
      after: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative())),
    }),
    handler: ({ params, query, visitor }) =>
      Effect.map(Visitors.conversation(visitor, params.key, query.after), (c) => ok(c)),
  }),
  route({
    method: 'POST',
    path: '/v1/livechat/{key}/messages',
    access: 'V',
    tag: 'Live chat widget',
    summary: 'Send `text` with a `client_id` (a resend is not stored twice), optionally a multipart `file`',
    params: Key,
    multipart: {
      maxBytes: Visitors.MAX_VISITOR_FILE_BYTES + 64 * 1024,
      maxFiles: 1,
      maxFileBytes: Visitors.MAX_VISITOR_FILE_BYTES,
    },
    body: Schema.Struct({
      text: Schema.optional(Schema.String.pipe(Schema.maxLength(5000))),
      client_id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
    }),
    handler: ({ params, body, files, visitor, channel, widget }) =>
      Effect.map(LivechatInbound.receive(params.key, { visitor, channel, widget }, body, files), (r) =>
        r.duplicate ? ok(r.message) : created(r.message),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/livechat/{key}/files/{id}',
    access: 'V',
    tag: 'Live chat widget',
    summary: "An attachment of the visitor's own conversation (any other file is 404); supports Range",
    params: KeyAndId,
    query: DownloadQuery,
    handler: ({ params, query, visitor, header }) =>
      Effect.gen(function* () {
        const file = yield* Visitors.file(visitor, params.id)
        const reply = yield* fileReply(file, header('range'), wantsDownload(query))
        return { ...reply, headers: { ...(reply.headers ?? {}), 'Cache-Control': 'private, max-age=3600' } }
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/livechat/{key}/realtime',
    access: 'V',
    tag: 'Live chat widget',
    summary:
      'A WebSocket token (60 seconds) for the channel `visitor:{session}` (events message, queue, typing, read)',
    params: Key,
    handler: ({ visitor }) =>
      Effect.gen(function* () {
        const cfg = yield* Config
        const key = yield* SigningKey
        // Verified on the process clock (realtime/token), which Effect's Clock reads.
        const exp = Math.floor((yield* Clock.currentTimeMillis) / 1000) + TOKEN_TTL_SECONDS
        const channel = topics.visitor(visitor.session)
        const token = sign(key, { u: 0, w: visitor.workspace_id, exp, ch: [channel], v: visitor.session })
        return ok({
          token,
          channel,
          expires_at: iso(new Date(exp * 1000)),
          url: `${cfg.publicUrl.replace(/^http/, 'ws')}${REALTIME_PATH}?token=${token}`,
        })
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/livechat/{key}/typing',
    access: 'V',
    tag: 'Live chat widget',
    summary: 'The visitor is typing (`typing: false` when they stopped)',
    params: Key,
    body: Schema.Struct({ typing: Schema.optional(Schema.Boolean) }),
    handler: ({ body, visitor }) => Effect.map(Visitors.typing(visitor, body.typing ?? true), (t) => ok(t)),
  }),
  route({
    method: 'POST',
    path: '/v1/livechat/{key}/seen',
    access: 'V',
    tag: 'Live chat widget',
    summary:
      'The widget is open (sent every 30 seconds; agents get `visitor.online`) and messages up to `message_id` were seen',
    params: Key,
    body: Schema.Struct({
      message_id: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.nonNegative())),
    }),
    handler: ({ body, visitor, channel }) =>
      Effect.map(Visitors.seen(visitor, channel, body.message_id ?? 0), (s) => ok(s)),
  }),
]
