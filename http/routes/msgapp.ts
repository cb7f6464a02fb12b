import { Effect, Schema } from 'effect'
import { ChannelParams } from '../../actors/channels/channels'
import * as Msgapp from '../../actors/channels/msgapp'
import { created, ok, type Route, route } from '../route'

/**
 * Spec 1 §4.4, messaging-app numbers: add a number, link it (QR or pairing code), status, logout,
 * reconnect, history import, business labels (actors/channels/msgapp.ts). Any node answers: the
 * number's socket runs wherever its lock is held, and these endpoints write requests and read state.
 */
export const routes: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/channels',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary:
      'Add a messaging-app number (channel quota checked); link it next with the QR code or a pairing code',
    body: Msgapp.CreateBody,
    handler: ({ workspace, body }) =>
      Effect.map(Msgapp.add(workspace, body), ({ channel, quota }) => created(channel, { quota })),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}/qr',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'The current QR code as a PNG data URL, with its lifetime in seconds (null while none is ready)',
    params: ChannelParams,
    handler: ({ workspace, params }) => Effect.map(Msgapp.qr(workspace, params.id), (q) => ok(q)),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/pair',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Link by phone number instead of QR: answers the pairing code to type on the phone',
    params: ChannelParams,
    body: Schema.Struct({ phone: Schema.String.pipe(Schema.maxLength(40)) }),
    handler: ({ workspace, params, body }) =>
      Effect.map(Msgapp.pair(workspace, params.id, body.phone), (p) => ok(p)),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}/status',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary:
      'Latest status of the number (link, connection, history import) and its health: send log, 24-hour counts, warm-up allowance',
    params: ChannelParams,
    handler: ({ workspace, params }) => Effect.map(Msgapp.status(workspace, params.id), (s) => ok(s)),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/logout',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Log the number out of the messaging service (its link and auth state are removed)',
    params: ChannelParams,
    handler: ({ workspace, params }) => Effect.map(Msgapp.logout(workspace, params.id), (s) => ok(s)),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/reconnect',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Reconnect the number now (after a logout: start linking again)',
    params: ChannelParams,
    handler: ({ workspace, params }) => Effect.map(Msgapp.reconnect(workspace, params.id), (s) => ok(s)),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/history',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Import chat history of the last 7, 30 or 90 days; progress arrives as channel.updated',
    params: ChannelParams,
    body: Schema.Struct({ days: Schema.Number }),
    handler: ({ workspace, params, body }) =>
      Effect.map(Msgapp.importHistory(workspace, params.id, body.days), (s) => ok(s)),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}/labels',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Business labels read from the phone',
    params: ChannelParams,
    handler: ({ workspace, params }) => Effect.map(Msgapp.labels(workspace, params.id), (l) => ok(l)),
  }),
]
