import { randomBytes } from 'node:crypto'
import { isJidGroup, jidDecode } from 'baileys/lib/WABinary/jid-utils.js'

/**
 * Chat addresses (JIDs) without the rest of Baileys: its `jid-utils` module imports nothing, so
 * the outbound adapter and the channel operations use it while Baileys itself (sockets, Signal
 * crypto, protocol buffers) loads only with the first number's session (docs/decisions.md,
 * "Production start and footprint").
 */
export { isJidGroup }

/** `+digits` of a phone-number JID (`628…@s.whatsapp.net`), else null (LID or group). */
export const phoneOf = (...jids: ReadonlyArray<string | null | undefined>) => {
  for (const j of jids) {
    if (!j?.endsWith('@s.whatsapp.net')) continue
    const user = jidDecode(j)?.user
    if (user && /^\d{5,20}$/.test(user)) return `+${user}`
  }
  return null
}

export const jidOfPhone = (phone: string) => `${phone.replace(/\D/g, '')}@s.whatsapp.net`

/**
 * An id of ours for a message the number sends (Baileys' `messageId` option), in the form its web
 * clients use: known before the send, so the service's echo of it can be recognised.
 */
export const ownMessageId = () => `3EB0${randomBytes(9).toString('hex').toUpperCase()}`
