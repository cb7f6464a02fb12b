import { Effect } from 'effect'
import { ChannelParams } from '../../actors/channels/channels'
import * as Icons from '../../actors/channels/icons'
import { iconReply } from '../files'
import { ok, type Route, route } from '../route'

/**
 * Channel icons (spec 1 §4.4, §8): a square PNG, JPG or WebP up to 512 KB, checked by its bytes
 * (actors/channels/icons.ts). For live chat it is also the widget's logo.
 */
export const routes: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/channels/{id}/icon',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Upload the icon (multipart `icon`): square PNG, JPG or WebP up to 512 KB, checked by content',
    params: ChannelParams,
    multipart: Icons.ICON_UPLOADS,
    handler: ({ workspace, params, files }) =>
      Effect.map(Icons.upload(workspace, params.id, files), (r) => ok(r)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/channels/{id}/icon',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: "Back to the type's default icon",
    params: ChannelParams,
    handler: ({ workspace, params }) => Effect.map(Icons.remove(workspace, params.id), (r) => ok(r)),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}/icon',
    access: 'K',
    tag: 'Channels',
    summary:
      'The uploaded icon; channel managers or members with access to that channel; 404 for the default icon',
    params: ChannelParams,
    handler: ({ workspace, caller, params }) =>
      Effect.map(Icons.iconOf(workspace, caller, params.id), (icon) =>
        iconReply(icon, 'private, max-age=300'),
      ),
  }),
]
