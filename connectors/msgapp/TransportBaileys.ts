import makeWASocket, { Browsers } from 'baileys'
import type { MsgappSocket, TransportShape } from './Transport'
import { quietLogger } from './Transport'

/** The real service: one Baileys socket per number. */
export const make = (): TransportShape => ({
  connect: async (_channelId, auth) => {
    const sock = makeWASocket({
      auth,
      logger: quietLogger,
      browser: Browsers.ubuntu('Kotak'),
      markOnlineOnConnect: false,
      syncFullHistory: false,
    })
    return {
      ev: sock.ev,
      get user() {
        return sock.user
      },
      sendMessage: (jid, content, options) => sock.sendMessage(jid, content, options),
      requestPairingCode: (phone) => sock.requestPairingCode(phone),
      logout: () => sock.logout(),
      end: (error) => {
        void sock.end(error).catch(() => {})
      },
      fetchMessageHistory: (count, oldest, ts) => sock.fetchMessageHistory(count, oldest, ts),
      groupMetadata: (jid) => sock.groupMetadata(jid),
      profilePictureUrl: (jid) => sock.profilePictureUrl(jid, 'image'),
      readMessages: (keys) => sock.readMessages(keys),
      sendPresenceUpdate: (type, jid) => sock.sendPresenceUpdate(type, jid),
      rejectCall: (id, from) => sock.rejectCall(id, from),
      updateMediaMessage: (m) => sock.updateMediaMessage(m),
    } satisfies MsgappSocket
  },
})
