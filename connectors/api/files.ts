import { Effect } from 'effect'
import { notFound } from '../../actors/errors'
import { currentMillis } from '../../engine/clock'
import { Config } from '../../engine/config'
import { iso } from '../../engine/time'
import { SigningKey, signJson, verifyJson } from '../../engine/tokens'
import * as Files from '../../store/files'

/**
 * Attachments of agent replies reach the customer's system as signed links (spec 1 §4.7, §8:
 * valid 7 days): `GET /v1/channel-api/files/{token}`, called with the channel's key. The token
 * names the file and the channel and carries its expiry, so any node verifies it without a lookup.
 * It is signed with the deployment's token key; the `t` field keeps it from passing for any other
 * kind of token signed with that key.
 */
export const LINK_TTL_SECONDS = 7 * 24 * 60 * 60

interface FileLink {
  readonly t: 'channel-file'
  /** File id. */
  readonly f: number
  /** API channel id. */
  readonly c: number
  /** Expiry, epoch seconds. */
  readonly exp: number
}

export const readLink = (key: Buffer, token: string, nowMs: number) => {
  const l = verifyJson(key, token) as Partial<FileLink> | null
  if (l?.t !== 'channel-file' || typeof l.f !== 'number' || typeof l.c !== 'number') return null
  return typeof l.exp === 'number' && l.exp * 1000 > nowMs ? { fileId: l.f, channelId: l.c } : null
}

/** The `attachments` of an agent reply as the webhook carries them: `[]` when it has no file. */
export const attachmentsOf = (workspaceId: number, channelId: number, fileId: number | null | undefined) =>
  Effect.gen(function* () {
    if (fileId === null || fileId === undefined) return []
    const file = yield* Files.byId(workspaceId, fileId)
    if (!file) return []
    const key = yield* SigningKey
    const { publicUrl } = yield* Config
    const exp = Math.floor((yield* currentMillis) / 1000) + LINK_TTL_SECONDS
    const link: FileLink = { t: 'channel-file', f: file.id, c: channelId, exp }
    return [
      {
        url: `${publicUrl}/v1/channel-api/files/${signJson(key, link)}`,
        name: file.name,
        mime: file.mime,
        size: file.size,
        expires_at: iso(new Date(exp * 1000)),
      },
    ]
  })

/** The file a signed link names, for the channel that calls with it; another channel's, an expired or forged link: all 404. */
export const linkedFile = (channel: { readonly id: number; readonly workspace_id: number }, token: string) =>
  Effect.gen(function* () {
    const link = readLink(yield* SigningKey, token, yield* currentMillis)
    const file =
      link && link.channelId === channel.id ? yield* Files.byId(channel.workspace_id, link.fileId) : null
    return file ?? (yield* Effect.fail(notFound()))
  })
