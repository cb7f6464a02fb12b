import { Effect } from 'effect'
import { ChannelParams } from '../../actors/channels/channels'
import * as Livechat from '../../actors/channels/livechat'
import { created, ok, type Route, route } from '../route'

/**
 * Spec 1 §4.4, the `livechat` type: create (all plans, one slot of the shared quota), every
 * widget setting, and replacing the public key (old embeds stop at once).
 */
export const routes: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/channels/livechat',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Create a live chat widget (all plans, one channel slot); answers its public key and embed code',
    body: Livechat.CreateBody,
    handler: ({ workspace, body }) =>
      Effect.map(Livechat.create(workspace, body), ({ channel, quota }) => created(channel, { quota })),
  }),
  route({
    method: 'PATCH',
    path: '/v1/channels/{id}/livechat',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary:
      'Widget look and texts, attachments (`off`, `images`, `files`), e-mail fallback and allowed domains; also name, hours and automatic replies',
    params: ChannelParams,
    body: Livechat.PatchBody,
    handler: ({ workspace, params, body }) =>
      Effect.map(Livechat.update(workspace, params.id, body), (d) => ok(d)),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/livechat/key',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Replace the public key; the old embed code stops working at once',
    params: ChannelParams,
    handler: ({ workspace, params }) => Effect.map(Livechat.replaceKey(workspace, params.id), (b) => ok(b)),
  }),
]
