import { Effect } from 'effect'
import { currentTime } from '../../engine/clock'
import * as Livechat from '../../store/livechat'
import type { WorkspaceRow } from '../../store/workspaces'
import type { Caller } from '../admin/caller'
import { invalid, notFound } from '../errors'
import { humanSize, requireFile, type UploadedFile } from '../fields'
import { addMessages } from '../i18n'
import { checkIcon, MAX_ICON_BYTES } from '../image'
import { accessibleOr404, changed, channelOr404, updateCommon } from './channels'

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
export const ICON_UPLOADS = { maxBytes: 2 * 1024 * 1024, maxFiles: 1, maxFileBytes: 2 * 1024 * 1024 }

/** Stores the `icon` file of an upload as the channel's icon; its upload time versions the URL. */
export const upload = (workspace: WorkspaceRow, id: number, files: readonly UploadedFile[]) =>
  Effect.gen(function* () {
    const c = yield* channelOr404(workspace.id, id)
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
    const row = yield* updateCommon(c, {}, { icon: (yield* currentTime).toISOString() })
    if (!row) return yield* Effect.fail(notFound())
    yield* changed(row)
    return {
      id: c.id,
      icon_url: `/v1/channels/${c.id}/icon?v=${encodeURIComponent(String(row.settings.icon))}`,
      mime: verdict.info.mime,
      width: verdict.info.width,
      height: verdict.info.height,
      size: file.bytes.byteLength,
    }
  })

/** Back to the type's default icon. */
export const remove = (workspace: WorkspaceRow, id: number) =>
  Effect.gen(function* () {
    const c = yield* channelOr404(workspace.id, id)
    yield* Livechat.removeIcon(c.id)
    const row = yield* updateCommon(c, {}, { icon: null })
    if (row) yield* changed(row)
    return { id: c.id, icon_url: null }
  })

/** The uploaded icon of a channel the caller may access; 404 for the default icon. */
export const iconOf = (workspace: WorkspaceRow, caller: Caller, id: number) =>
  Effect.gen(function* () {
    const c = yield* accessibleOr404(workspace.id, caller, id)
    const icon = yield* Livechat.iconOf(c.id)
    return icon ?? (yield* Effect.fail(notFound()))
  })
