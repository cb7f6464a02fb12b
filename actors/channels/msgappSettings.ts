import { Schema } from 'effect'
import type { ChannelRow } from '../../store/channels'
import { Text } from '../fields'

/**
 * The messaging-app settings of `PATCH /channels/{id}` (spec 1 §4.4): `groups` (group chats come
 * into the inbox), `reject_calls` with `call_reply` (the text sent to a rejected caller) and
 * `agent_initial` (agents' initials appended to replies). Kept in the channel's `settings`.
 */
export const MsgappFields = {
  groups: Schema.optional(Schema.Boolean),
  reject_calls: Schema.optional(Schema.Boolean),
  call_reply: Schema.optional(Text(0, 1000)),
  agent_initial: Schema.optional(Schema.Boolean),
}

type Body = { readonly [K in keyof typeof MsgappFields]?: Schema.Schema.Type<(typeof MsgappFields)[K]> }

export const MSGAPP_KEYS = ['groups', 'reject_calls', 'call_reply', 'agent_initial'] as const

/** The fields given for another channel type (422 `field.channel_type`). */
export const misplaced = (body: Body, c: ChannelRow) =>
  c.type === 'msgapp' ? [] : MSGAPP_KEYS.filter((k) => body[k] !== undefined)

export const msgappSettings = (body: Body): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const k of MSGAPP_KEYS)
    if (body[k] !== undefined) out[k] = k === 'call_reply' ? String(body[k]).trim() : body[k]
  return out
}

export const presentMsgappSettings = (c: ChannelRow) => {
  const s = c.settings
  return {
    groups: s.groups !== false,
    reject_calls: s.reject_calls === true,
    call_reply: typeof s.call_reply === 'string' ? s.call_reply : '',
    agent_initial: s.agent_initial !== false,
  }
}
