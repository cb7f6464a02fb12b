import { Effect, Schema } from 'effect'
import * as Profile from '../../actors/admin/profile'
import { IdFromString } from '../../actors/fields'
import { iconReply } from '../files'
import { ok, type Route, route } from '../route'

/**
 * A person's own profile besides `PATCH /v1/me` (http/routes/identity.ts): their photo and their
 * sessions. The rules are in actors/admin/profile.ts.
 */

const IdParam = Schema.Struct({ id: IdFromString })

export const routes: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/me/avatar',
    access: 'A',
    workspace: 'optional',
    // The caller's own account: a frozen active workspace blocks none of it.
    whileFrozen: true,
    tag: 'Identity',
    summary: 'Upload your photo (multipart `avatar`): PNG, JPG or WebP up to 1 MB, checked by content',
    multipart: Profile.AVATAR_UPLOADS,
    response: Profile.AvatarSchema,
    handler: ({ caller, files }) => Effect.map(Profile.uploadAvatar(caller, files), (r) => ok(r)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/me/avatar',
    access: 'A',
    workspace: 'optional',
    whileFrozen: true,
    tag: 'Identity',
    summary: 'Remove your photo (the app shows your initials)',
    response: Profile.AvatarSchema,
    handler: ({ caller }) => Effect.map(Profile.removeAvatar(caller), (r) => ok(r)),
  }),
  route({
    method: 'GET',
    path: '/v1/users/{id}/avatar',
    access: 'K',
    workspace: 'optional',
    tag: 'Identity',
    summary: "A person's photo: your own, or a member's of your active workspace; 404 when there is none",
    params: IdParam,
    handler: ({ workspace, caller, params }) =>
      Effect.map(Profile.avatarOf(workspace, caller, params.id), (a) => iconReply(a, 'private, max-age=300')),
  }),
  route({
    method: 'GET',
    path: '/v1/me/sessions',
    access: 'A',
    workspace: 'optional',
    tag: 'Identity',
    summary: 'Your sessions still going, newest first, `current` for this one (never their tokens)',
    response: Schema.Array(Profile.SessionSchema),
    handler: ({ caller }) => Effect.map(Profile.sessions(caller), (rows) => ok(rows)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/me/sessions/{id}',
    access: 'A',
    workspace: 'optional',
    whileFrozen: true,
    tag: 'Identity',
    summary: 'End one of your sessions: it is signed out and its sockets close; the others stay',
    params: IdParam,
    handler: ({ caller, params }) =>
      Effect.as(Profile.endSession(caller, params.id), ok({ id: params.id, deleted: true })),
  }),
]
