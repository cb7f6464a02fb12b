import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import { iso } from '../../engine/time'
import * as Members from '../../store/members'
import * as Sessions from '../../store/sessions'
import * as Users from '../../store/users'
import type { WorkspaceRow } from '../../store/workspaces'
import { invalid, notFound } from '../errors'
import { humanSize, requireFile, Text, type UploadedFile } from '../fields'
import { addMessages } from '../i18n'
import { sniffImage } from '../image'
import type { Caller } from './caller'
import { Timestamp } from './presenters'

/**
 * A person's own profile beyond `PATCH /v1/me`'s language and zone: their name, their photo
 * (PNG, JPG or WebP up to 1 MB, recognised by its bytes, kept in the database like channel
 * icons), and their sessions (listed without tokens; one ends with its sockets, the others stay).
 * None of it belongs to a workspace, so none of it writes a workspace's audit log (as passkeys
 * and signing out of every device).
 */
addMessages({
  'field.person_name': {
    en: 'must be 1 to 100 characters',
    id: 'harus 1 sampai 100 karakter',
  },
  'field.avatar_type': {
    en: 'must be a PNG, JPG or WebP image',
    id: 'harus gambar PNG, JPG, atau WebP',
  },
})

/** A person's name: 1 to 100 characters once trimmed. */
export const PersonName = Text(1, 100).annotations({ message: () => 'field.person_name' })

/** Photos: up to 1 MB, any shape (the app shows them cropped to a circle). */
export const MAX_AVATAR_BYTES = 1024 * 1024

/** The transport reads up to 2 MB so a too-large photo is a 422 on its field, not a bare 413. */
export const AVATAR_UPLOADS = { maxBytes: 2 * 1024 * 1024, maxFiles: 1, maxFileBytes: 2 * 1024 * 1024 }

export const AvatarSchema = Schema.Struct({
  avatar_url: Schema.NullOr(Schema.String),
  mime: Schema.optional(Schema.String),
  width: Schema.optional(Schema.Number),
  height: Schema.optional(Schema.Number),
  size: Schema.optional(Schema.Number),
})

/** Where the app loads a person's photo; its upload time versions it, so a new one is not cached over. */
const avatarUrl = (userId: number, at: Date) =>
  `/v1/users/${userId}/avatar?v=${encodeURIComponent(at.toISOString())}`

/** Stores the `avatar` file of an upload as the caller's photo. */
export const uploadAvatar = (caller: Caller, files: readonly UploadedFile[]) =>
  Effect.gen(function* () {
    const file = yield* requireFile(files, 'avatar')
    if (file.bytes.byteLength > MAX_AVATAR_BYTES) {
      return yield* Effect.fail(
        invalid({ avatar: { key: 'field.file_too_large', params: { size: humanSize(MAX_AVATAR_BYTES) } } }),
      )
    }
    const info = sniffImage(file.bytes)
    if (!info || info.mime === 'image/gif' || info.width === 0 || info.height === 0) {
      return yield* Effect.fail(invalid({ avatar: { key: 'field.avatar_type' } }))
    }
    const url = avatarUrl(caller.user.id, yield* currentTime)
    const user = yield* Users.setAvatar(caller.user.id, info.mime, file.bytes, url)
    return {
      avatar_url: user.avatar_url,
      mime: info.mime,
      width: info.width,
      height: info.height,
      size: file.bytes.byteLength,
    }
  })

/** Back to no photo (the app shows initials). */
export const removeAvatar = (caller: Caller) =>
  Effect.map(Users.removeAvatar(caller.user.id), (user) => ({ avatar_url: user.avatar_url }))

/**
 * A person's photo, for themselves or anyone in the caller's active workspace (an active or
 * disabled member: the audit log still names the disabled); 404 otherwise and for no photo.
 */
export const avatarOf = (workspace: WorkspaceRow | null, caller: Caller, userId: number) =>
  Effect.gen(function* () {
    const visible =
      userId === caller.user.id ||
      (workspace !== null && (yield* Members.viewByUser(workspace.id, userId)) !== null)
    const avatar = visible ? yield* Users.avatarOf(userId) : null
    return avatar ?? (yield* Effect.fail(notFound()))
  })

export const SessionSchema = Schema.Struct({
  id: Schema.Number,
  /** How it began: the identity provider, a one-time link, or a passkey. */
  via: Schema.Literal('oidc', 'link', 'passkey'),
  created_at: Timestamp,
  expires_at: Timestamp,
  /** The browser it began in, as the browser names itself; null if not recorded. */
  user_agent: Schema.NullOr(Schema.String),
  /** The address it began from; null if not recorded. */
  ip: Schema.NullOr(Schema.String),
  /** The session of this request. */
  current: Schema.Boolean,
})

const currentSession = (caller: Caller) => (caller.via === 'session' ? caller.session.id : null)

/** The caller's sessions still going, newest first. */
export const sessions = (caller: Caller) =>
  Effect.map(Sessions.activeOf(caller.user.id), (rows) =>
    rows.map((r): typeof SessionSchema.Type => ({
      id: r.id,
      via: r.via,
      created_at: iso(r.created_at)!,
      expires_at: iso(r.expires_at)!,
      user_agent: r.user_agent,
      ip: r.ip,
      current: r.id === currentSession(caller),
    })),
  )

/**
 * Ends one of the caller's sessions (404 for one that is not theirs or has ended): the next
 * request with it is a 401, and the sockets it opened close on every node, as when signing out of
 * every device; the person's other sessions and their sockets stay.
 */
export const endSession = (caller: Caller, id: number) =>
  Effect.gen(function* () {
    if (!(yield* Sessions.endOf(caller.user.id, id))) return yield* Effect.fail(notFound())
  })
