import { Effect } from 'effect'
import { invalid, notFound } from '../../actors/errors'
import { humanSize, requireFile } from '../../actors/fields'
import { addMessages } from '../../actors/i18n'
import { checkIcon, MAX_ICON_BYTES } from '../../connectors/livechat/image'
import * as Channels from '../../store/channels'
import * as Livechat from '../../store/livechat'
import { iconReply } from '../files'
import { ok, type Route, route } from '../route'
import { accessibleIds, changed, channelOr404, Id } from './channels'

/**
 * Channel icons (spec 1 §4.4, §8): a square PNG, JPG or WebP up to 512 KB, recognised by its
 * bytes (the header's signature and its width and height), never by its name or claimed type.
 * Kept in the database (at most 512 KB a channel), so every node serves it. For live chat it is
 * also the widget's logo (`GET /livechat/{key}/logo`).
 */
addMessages({
  'field.icon_type': {
    en: 'must be a PNG, JPG or WebP image',
    id: 'harus gambar PNG, JPG, atau WebP',
  },
  'field.icon_square': {
    en: 'must be square (as wide as it is high)',
    id: 'harus persegi (lebar sama dengan tinggi)',
  },
})

/** The transport reads up to 2 MB so a too-large icon is a 422 on its field, not a bare 413. */
const uploads = { maxBytes: 2 * 1024 * 1024, maxFiles: 1, maxFileBytes: 2 * 1024 * 1024 }

export const routes: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/channels/{id}/icon',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Upload the icon (multipart `icon`): square PNG, JPG or WebP up to 512 KB, checked by content',
    params: Id,
    multipart: uploads,
    handler: ({ workspace, params, files }) =>
      Effect.gen(function* () {
        const c = yield* channelOr404(workspace.id, params.id)
        const file = yield* requireFile(files, 'icon')
        const verdict = checkIcon(file.bytes)
        if (!verdict.ok) {
          return yield* Effect.fail(
            invalid({
              icon:
                verdict.reason === 'too_large'
                  ? { key: 'field.file_too_large', params: { size: humanSize(MAX_ICON_BYTES) } }
                  : { key: verdict.reason === 'not_square' ? 'field.icon_square' : 'field.icon_type' },
            }),
          )
        }
        yield* Livechat.setIcon(c.id, verdict.info.mime, file.bytes)
        const row = yield* Channels.updateCommon(c.id, { settings: { icon: new Date().toISOString() } })
        if (!row) return yield* Effect.fail(notFound())
        yield* changed(row)
        return ok({
          id: c.id,
          icon_url: `/v1/channels/${c.id}/icon?v=${encodeURIComponent(String(row.settings.icon))}`,
          mime: verdict.info.mime,
          width: verdict.info.width,
          height: verdict.info.height,
          size: file.bytes.byteLength,
        })
      }),
  }),
  route({
    method: 'DELETE',
    path: '/v1/channels/{id}/icon',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: "Back to the type's default icon",
    params: Id,
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        const c = yield* channelOr404(workspace.id, params.id)
        yield* Livechat.removeIcon(c.id)
        const row = yield* Channels.updateCommon(c.id, { settings: { icon: null } })
        if (row) yield* changed(row)
        return ok({ id: c.id, icon_url: null })
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}/icon',
    access: 'K',
    tag: 'Channels',
    summary:
      'The uploaded icon; channel managers or members with access to that channel; 404 for the default icon',
    params: Id,
    handler: ({ workspace, caller, params }) =>
      Effect.gen(function* () {
        const c = yield* channelOr404(workspace.id, params.id)
        const ids = accessibleIds(caller)
        if (ids !== null && !ids.includes(c.id)) return yield* Effect.fail(notFound())
        const icon = yield* Livechat.iconOf(c.id)
        if (!icon) return yield* Effect.fail(notFound())
        return iconReply(icon, 'private, max-age=300')
      }),
  }),
]
