import { Effect, Schema } from 'effect'
import { ChannelParams } from '../../actors/channels/channels'
import * as Email from '../../actors/channels/email'
import { created, ok, type Route, route } from '../route'

/**
 * Spec 1 §4.4, the `email` channel type: detect the provider, test a sign-in, connect, change
 * (re-tested), list folders, sync now (actors/channels/email.ts, reaching the servers through
 * connectors/email/servers.ts). Passwords are never answered.
 */
export const routes: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/channels/email/detect',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary:
      'Provider of an address, suggested IMAP/SMTP servers and a hint (app password, unsupported suite)',
    body: Schema.Struct({ address: Email.Address }),
    handler: ({ body, locale }) => Effect.map(Email.detect(body.address, locale), (d) => ok(d)),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/email/test',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'IMAP and SMTP sign-in without sending; selectable folders and the Sent folder; per-field 422',
    body: Email.TestBody,
    handler: ({ body }) => Effect.map(Email.test(body), (r) => ok(r)),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/email',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Connect a mailbox (quota; an address lives in one workspace only, else 409)',
    body: Email.CreateBody,
    handler: ({ workspace, body }) =>
      Effect.map(Email.connect(workspace, body), ({ channel, quota }) => created(channel, { quota })),
  }),
  route({
    method: 'PATCH',
    path: '/v1/channels/{id}/email',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Change the mailbox; server, username, password or folder changes are re-tested first',
    params: ChannelParams,
    body: Email.PatchBody,
    handler: ({ workspace, params, body }) =>
      Effect.map(Email.update(workspace, params.id, body), (c) => ok(c)),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}/email/folders',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Folders (signs in again) with a `selected` flag, plus the Sent folder',
    params: ChannelParams,
    handler: ({ workspace, params }) => Effect.map(Email.folders(workspace, params.id), (f) => ok(f)),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/sync',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Check the mailbox now, skipping the pause after failed sign-ins; answers {sync, channel}',
    params: ChannelParams,
    handler: ({ workspace, params }) => Effect.map(Email.sync(workspace, params.id), (s) => ok(s)),
  }),
]
