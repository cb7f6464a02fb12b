import {
  type AuthenticationCreds,
  type AuthenticationState,
  BufferJSON,
  initAuthCreds,
  proto,
  type SignalDataSet,
  type SignalDataTypeMap,
} from 'baileys'
import { Effect } from 'effect'
import { decryptText, encrypt } from '../../engine/secrets'
import * as Msgapp from '../../store/msgapp'
import type { Run } from './run'

/**
 * Baileys' `AuthenticationState` kept in PostgreSQL: the creds and every signal key are JSON
 * (with `BufferJSON` for the binary parts), sealed with AES-256-GCM (engine/secrets) one row each,
 * so the link survives restarts and moves with the number to whichever node runs it. A key set
 * is written in one transaction; `null` deletes.
 */
const CREDS = 'creds'

const seal = (value: unknown) => encrypt(JSON.stringify(value, BufferJSON.replacer))
const open = (sealed: string) =>
  Effect.map(decryptText(sealed), (text) => JSON.parse(text, BufferJSON.reviver) as unknown)

export const load = async (channelId: number, run: Run) => {
  const [stored] = await run(Msgapp.readAuth(channelId, CREDS, [CREDS]))
  const creds: AuthenticationCreds = stored
    ? ((await run(open(stored.sealed))) as AuthenticationCreds)
    : initAuthCreds()
  const state: AuthenticationState = {
    creds,
    keys: {
      get: async <T extends keyof SignalDataTypeMap>(type: T, ids: string[]) => {
        const rows = await run(Msgapp.readAuth(channelId, type, ids))
        const out: { [id: string]: SignalDataTypeMap[T] } = {}
        for (const r of rows) {
          let value = await run(open(r.sealed))
          if (type === 'app-state-sync-key' && value) {
            value = proto.Message.AppStateSyncKeyData.fromObject(value as Record<string, unknown>)
          }
          out[r.key_id] = value as SignalDataTypeMap[T]
        }
        return out
      },
      set: async (data: SignalDataSet) => {
        const entries: Array<{ kind: string; id: string; sealed: string | null }> = []
        for (const kind of Object.keys(data) as Array<keyof SignalDataTypeMap>) {
          for (const [id, value] of Object.entries(data[kind] ?? {})) {
            entries.push({ kind, id, sealed: value ? await run(seal(value)) : null })
          }
        }
        await run(Msgapp.writeAuth(channelId, entries))
      },
    },
  }
  const saveCreds = async () => {
    await run(Msgapp.writeAuth(channelId, [{ kind: CREDS, id: CREDS, sealed: await run(seal(state.creds)) }]))
  }
  return { state, saveCreds, fresh: !stored }
}
