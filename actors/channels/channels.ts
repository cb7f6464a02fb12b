import { Effect, Schema } from 'effect'
import { Config } from '../../engine/config'
import { invalidateCredentials } from '../../engine/events'
import * as ChannelApi from '../../store/channelApi'
import * as Channels from '../../store/channels'
import * as Email from '../../store/email'
import * as Livechat from '../../store/livechat'
import type { WorkspaceRow } from '../../store/workspaces'
import type { Caller } from '../admin/caller'
import { BusinessHoursSchema } from '../admin/settings'
import { ApiError, invalid, notFound } from '../errors'
import { publish, topics } from '../events'
import { IdFromString, Text } from '../fields'
import { addMessages } from '../i18n'
import { ChannelActor } from './ChannelActor'
import { grantSelectedMembers } from './grants'
import { livechatBlock } from './livechatEmbed'
import { type MsgappFields, misplaced, msgappSettings } from './msgappSettings'
import { presentChannel, presentEmail, quotaOf } from './presenters'

/**
 * The channel resource of spec 1 §4.4 common to every type: who may see which channel, the
 * settings every type shares (name, business hours, automatic replies), what a change does after
 * commit, the list and the detail, and deleting (archiving one with conversations). Each type's
 * own operations are beside this module (apiChannel, email, livechat, msgapp).
 */
addMessages({
  'channels.quota': {
    en: 'The channel quota of your plan is used up; remove a channel or upgrade.',
    id: 'Kuota kanal paket Anda sudah habis; hapus kanal atau tingkatkan paket.',
  },
})

// ---- Request fields every type shares ---------------------------------------------------------

// A channel's own hours follow the workspace's rules exactly (24:00 closes at midnight).
export const Hours = BusinessHoursSchema

export const AutoReply = Schema.Struct({
  greeting_on: Schema.optional(Schema.Boolean),
  greeting: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))),
  away_on: Schema.optional(Schema.Boolean),
  away: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))),
})

export const Common = {
  name: Schema.optional(Text(1, 100)),
  hours: Schema.optional(Schema.NullOr(Hours)),
  auto_reply: Schema.optional(AutoReply),
}

export type CommonBody = {
  readonly [K in keyof typeof Common]?: Schema.Schema.Type<(typeof Common)[K]>
}

/** `/channels/{id}/…` */
export const ChannelParams = Schema.Struct({ id: IdFromString })

// ---- Rules -----------------------------------------------------------------------------------

/** No slot left in the plan's channel quota, whichever type was asked for. */
export const quotaFull = () => new ApiError({ code: 'plan_required', message: 'channels.quota' })

/** The `settings` keys a body replaces (`auto_reply` is merged by the store, key by key). */
export const commonSettings = (body: CommonBody) => {
  const settings: Record<string, unknown> = {}
  if (body.hours !== undefined) settings.hours = body.hours
  return settings
}

/**
 * The name and common settings of a body written to the channel row (null: it is gone). The
 * automatic replies' keys the body names are merged over the stored ones in the statement itself,
 * not over the row read before: two managers changing different keys at once both keep theirs.
 */
export const updateCommon = (
  channel: Channels.ChannelRow,
  body: CommonBody,
  extra: Record<string, unknown> = {},
) =>
  Channels.updateCommon(channel.id, {
    ...(body.name !== undefined ? { name: body.name.trim() } : {}),
    settings: { ...commonSettings(body), ...extra },
    ...(body.auto_reply !== undefined ? { autoReply: body.auto_reply } : {}),
  })

/**
 * What every change of a channel does after commit: credentials of the workspace are re-read,
 * the channel's actor re-reads its row (its connector acts on the new settings, best effort),
 * and agents hear `channel.updated`.
 */
export const changed = (c: Channels.ChannelRow) =>
  Effect.all([
    invalidateCredentials({ workspaceId: c.workspace_id }),
    Effect.flatMap(ChannelActor, (a) => a.ask(c.id, { _tag: 'Reload' })).pipe(Effect.ignore),
    publish(topics.workspace(c.workspace_id), 'channel.updated', { channel_id: c.id, status: c.status }),
  ])

/** A new channel of any type: `changed`, then `grant_selected_members` honoured. */
export const created = (c: Channels.ChannelRow, grantSelected: boolean | undefined) =>
  Effect.zipRight(changed(c), grantSelectedMembers(grantSelected, c))

export const channelOr404 = (workspaceId: number, id: number) =>
  Effect.flatMap(Channels.liveInWorkspace(workspaceId, id), (c) =>
    c ? Effect.succeed(c) : Effect.fail(notFound()),
  )

/** Channels a caller may access: keys, channel managers and members with all-channel access see all. */
export const accessibleIds = (caller: Caller): readonly number[] | null =>
  caller.via === 'key' ||
  caller.permissions.has('channels.manage') ||
  !caller.member ||
  caller.member.channel_access === 'all'
    ? null
    : caller.member.channel_ids

/** A channel the caller may access, else 404 (as if it did not exist). */
export const accessibleOr404 = (workspaceId: number, caller: Caller, id: number) =>
  Effect.flatMap(channelOr404(workspaceId, id), (c) => {
    const ids = accessibleIds(caller)
    return ids !== null && !ids.includes(c.id) ? Effect.fail(notFound()) : Effect.succeed(c)
  })

// ---- Operations ------------------------------------------------------------------------------

const present = (c: Channels.ChannelRow, publicUrl: string) =>
  Effect.gen(function* () {
    const api = c.type === 'api' ? yield* ChannelApi.byChannel(c.id) : null
    const lc = c.type === 'livechat' ? yield* Livechat.byChannel(c.id) : null
    return presentChannel(c, api, lc ? livechatBlock(lc, publicUrl) : null)
  })

export const detail = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const c = yield* channelOr404(workspaceId, id)
    if (c.type === 'email') {
      const mailbox = yield* Email.byChannel(c.id)
      if (mailbox) return presentEmail(c, mailbox)
    }
    return yield* present(c, (yield* Config).publicUrl)
  })

/** The channels a caller can access, never with a key or secret, and the channel quota. */
export const list = (workspace: WorkspaceRow, caller: Caller) =>
  Effect.gen(function* () {
    const { publicUrl } = yield* Config
    const rows = yield* Channels.listLive(workspace.id, accessibleIds(caller))
    const channels = yield* Effect.forEach(rows, (c) => present(c, publicUrl))
    return { channels, quota: yield* quotaOf(workspace) }
  })

type PatchBody = CommonBody & {
  readonly [K in keyof typeof MsgappFields]?: Schema.Schema.Type<(typeof MsgappFields)[K]>
}

/** `PATCH /channels/{id}`: the common settings, and a number's own (422 on another type). */
export const update = (workspace: WorkspaceRow, id: number, body: PatchBody) =>
  Effect.gen(function* () {
    const c = yield* channelOr404(workspace.id, id)
    const wrong = misplaced(body, c)
    if (wrong.length > 0)
      return yield* Effect.fail(
        invalid(Object.fromEntries(wrong.map((k) => [k, { key: 'field.channel_type' }]))),
      )
    const row = yield* updateCommon(c, body, msgappSettings(body))
    if (!row) return yield* Effect.fail(notFound())
    yield* changed(row)
    return yield* detail(workspace.id, row.id)
  })

/** Deletes a channel, or archives it when conversations refer to it. */
export const remove = (workspace: WorkspaceRow, id: number) =>
  Effect.gen(function* () {
    const outcome = yield* Channels.deleteOrArchive(workspace.id, id)
    if (!outcome) return yield* Effect.fail(notFound())
    yield* invalidateCredentials({ workspaceId: workspace.id })
    yield* publish(topics.workspace(workspace.id), 'channel.updated', { channel_id: id, status: outcome })
    return { id, deleted: outcome === 'deleted', archived: outcome === 'archived' }
  })
