import { Effect, Schema } from 'effect'
import { BigIdFromString } from '../../actors/fields'
import { linkedFile } from '../../connectors/api/files'
import * as ApiInbound from '../../connectors/api/inbound'
import { andThen } from '../../engine/step'
import { DownloadQuery, fileReply, wantsDownload } from '../files'
import { created, ok, type Route, route } from '../route'

/**
 * Spec 1 §4.7, channel-key (C) endpoints: the customer's system posts its contacts' messages in
 * and reports what happened to the agents' replies (which reach it by webhook).
 */
export const routes: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/channel-api/messages',
    access: 'C',
    tag: 'Channel API',
    summary: "An inbound message from the customer's system; a resent `message.id` is not stored twice",
    body: ApiInbound.InboundMessage,
    // A step (engine/step.ts): the usual message is answered from its actor's reply, no fiber.
    handler: ({ channel, body }) =>
      andThen(ApiInbound.receive(channel, body), (r) =>
        Effect.succeed(r.duplicate ? ok(r.data) : created(r.data)),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/channel-api/messages/{id}/status',
    access: 'C',
    tag: 'Channel API',
    summary: 'Mark an agent reply `delivered` or `read`',
    params: Schema.Struct({ id: BigIdFromString }),
    body: Schema.Struct({ status: Schema.Literal('delivered', 'read') }),
    handler: ({ channel, params, body }) =>
      Effect.map(ApiInbound.receipt(channel, params.id, body.status), (r) => ok(r)),
  }),
  route({
    method: 'GET',
    path: '/v1/channel-api/files/{token}',
    access: 'C',
    tag: 'Channel API',
    summary: "An agent reply's attachment by the signed link its webhook carried (7 days); supports Range",
    params: Schema.Struct({ token: Schema.String.pipe(Schema.maxLength(1000)) }),
    query: DownloadQuery,
    handler: (req) =>
      Effect.flatMap(linkedFile(req.channel, req.params.token), (file) =>
        fileReply(file, req.header('range'), wantsDownload(req.query)),
      ),
  }),
]
