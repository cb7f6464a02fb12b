import { Effect, Schema } from 'effect'
import * as ApiChannel from '../../actors/channels/apiChannel'
import * as Channels from '../../actors/channels/channels'
import { ChannelParams, Common } from '../../actors/channels/channels'
import { MsgappFields } from '../../actors/channels/msgappSettings'
import { Text } from '../../actors/fields'
import * as ApiInbound from '../../connectors/api/inbound'
import * as Webhooks from '../../connectors/api/webhooks'
import { currentMillis } from '../../engine/clock'
import { created, ok, type Route, route } from '../route'

/**
 * Spec 1 §4.4: channel management common to every type, and the `api` type's own endpoints.
 * Keys and secrets never appear in the list or the detail; the key only in the creation and
 * replacement answers, the webhook secret in creation and `GET …/api/secret`.
 */
export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/channels',
    access: 'K',
    tag: 'Channels',
    summary: 'Channels the caller can access, with the channel quota; never a key or secret',
    handler: ({ workspace, caller }) =>
      Effect.map(Channels.list(workspace, caller), ({ channels, quota }) => ok(channels, { quota })),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Channel details',
    params: ChannelParams,
    handler: ({ workspace, params }) => Effect.map(Channels.detail(workspace.id, params.id), (d) => ok(d)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/channels/{id}',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary:
      'Name, business hours (null = follow the workspace) and automatic replies; messaging-app numbers also groups, reject_calls, call_reply, agent_initial',
    params: ChannelParams,
    body: Schema.Struct({ ...Common, ...MsgappFields }),
    handler: ({ workspace, params, body }) =>
      Effect.map(Channels.update(workspace, params.id, body), (d) => ok(d)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/channels/{id}',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Delete a channel; one with conversations is archived instead',
    params: ChannelParams,
    handler: ({ workspace, params }) => Effect.map(Channels.remove(workspace, params.id), (r) => ok(r)),
  }),

  // ---- API channel ----
  route({
    method: 'POST',
    path: '/v1/channels/api',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Create an API channel (Pro or Custom, one slot); the key is shown in this answer only',
    body: ApiChannel.CreateBody,
    handler: ({ workspace, body }) =>
      Effect.map(ApiChannel.create(workspace, body), ({ channel, quota }) => created(channel, { quota })),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}/api',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Settings, inbound endpoint, active key (prefix, last use) and the 50 latest deliveries',
    params: ChannelParams,
    handler: ({ workspace, params }) => Effect.map(ApiChannel.get(workspace, params.id), (d) => ok(d)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/channels/{id}/api',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Webhook URL, events, retries; also name, hours and automatic replies',
    params: ChannelParams,
    body: ApiChannel.PatchBody,
    handler: ({ workspace, params, body }) =>
      Effect.map(ApiChannel.update(workspace, params.id, body), (d) => ok(d)),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/api/key',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Replace the channel key; the old one is refused with 401 at once',
    params: ChannelParams,
    handler: ({ workspace, params }) => Effect.map(ApiChannel.replaceKey(workspace, params.id), (k) => ok(k)),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}/api/secret',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Show the webhook secret',
    params: ChannelParams,
    handler: ({ workspace, params }) => Effect.map(ApiChannel.secret(workspace, params.id), (s) => ok(s)),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/api/secret',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Replace the webhook secret',
    params: ChannelParams,
    handler: ({ workspace, params }) =>
      Effect.map(ApiChannel.replaceSecret(workspace, params.id), (s) => ok(s)),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/api/test-webhook',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Send a `ping` event now; answers {status, http_status, duration_ms, error}',
    params: ChannelParams,
    handler: ({ workspace, params }) =>
      Effect.flatMap(ApiChannel.apiChannelOr404(workspace.id, params.id), ({ channel, api }) =>
        Effect.map(Webhooks.ping(channel, api), (r) => ok(r)),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/api/test-message',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: "Simulate an inbound message from the customer's system",
    params: ChannelParams,
    body: Schema.Struct({ text: Schema.optional(Text(1, 4000)) }),
    handler: ({ workspace, params, body }) =>
      Effect.flatMap(ApiChannel.apiChannelOr404(workspace.id, params.id), ({ channel }) =>
        Effect.map(
          Effect.flatMap(currentMillis, (now) =>
            ApiInbound.receive(channel, ApiChannel.testMessage(body.text, now)),
          ),
          (r) => created(r.data),
        ),
      ),
  }),
]
