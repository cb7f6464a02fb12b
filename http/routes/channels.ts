import { Effect, Schema } from 'effect'
import type { Caller } from '../../actors/admin/caller'
import { ChannelActor } from '../../actors/channels/ChannelActor'
import { grantSelectedMembers } from '../../actors/channels/grants'
import { livechatBlock } from '../../actors/channels/livechatEmbed'
import { MsgappFields, misplaced, msgappSettings } from '../../actors/channels/msgappSettings'
import {
  defaultAutoReply,
  presentApi,
  presentChannel,
  presentEmail,
  quotaOf,
} from '../../actors/channels/presenters'
import { ApiError, invalid, notFound } from '../../actors/errors'
import { IdFromString, Text } from '../../actors/fields'
import { addMessages } from '../../actors/i18n'
import * as Webhooks from '../../connectors/api/webhooks'
import { Config } from '../../engine/config'
import { invalidateCredentials, publishEvent } from '../../engine/events'
import { checkUrl, OutboundRefused } from '../../engine/net/outbound'
import * as ChannelApi from '../../store/channelApi'
import * as Channels from '../../store/channels'
import * as Email from '../../store/email'
import * as Livechat from '../../store/livechat'
import { limitsOf } from '../../store/plans'
import { AutoReply, Hours } from '../channelSettings'
import { created, ok, type Route, route } from '../route'
import { simulateInbound } from './channelApi'

/**
 * Spec 1 §4.4: channel management common to every type, and the `api` type's own endpoints.
 * Keys and secrets never appear in the list or the detail; the key only in the creation and
 * replacement answers, the webhook secret in creation and `GET …/api/secret`.
 */
addMessages({
  'channels.quota': {
    en: 'The channel quota of your plan is used up; remove a channel or upgrade.',
    id: 'Kuota kanal paket Anda sudah habis; hapus kanal atau tingkatkan paket.',
  },
  'field.webhook_url': {
    en: 'Must be an https URL on a public host.',
    id: 'Harus URL https pada host publik.',
  },
})

// ---- Request fields --------------------------------------------------------------------------

export { AutoReply, Hours }

const Common = {
  name: Schema.optional(Text(1, 100)),
  hours: Schema.optional(Schema.NullOr(Hours)),
  auto_reply: Schema.optional(AutoReply),
}
const Events = Schema.Array(Schema.Literal(...ChannelApi.WEBHOOK_EVENTS))
const Retries = Schema.Number.pipe(Schema.int(), Schema.between(0, 5))
const Url = Schema.String.pipe(Schema.maxLength(2000))

const Id = Schema.Struct({ id: IdFromString })

/** `message.created` is always on (spec 1 §4.4). */
const normalizeEvents = (events: readonly string[] | undefined) => [
  'message.created',
  ...(events ?? []).filter((e) => e !== 'message.created' && ChannelApi.WEBHOOK_EVENTS.includes(e as never)),
]

/** Refuses a webhook URL the outbound guard would refuse (https, public host after DNS). */
const checkWebhookUrl = (url: string | null | undefined) =>
  Effect.gen(function* () {
    if (url === null || url === undefined) return
    const cfg = yield* Config
    const refused = yield* Effect.promise(() =>
      checkUrl(url, Webhooks.policyOf(cfg)).then(
        () => null,
        (e: unknown) => (e instanceof OutboundRefused ? e : new OutboundRefused('invalid_url', String(e))),
      ),
    )
    if (refused) return yield* Effect.fail(invalid({ webhook_url: { key: 'field.webhook_url' } }))
  })

export const commonSettings = (
  body: {
    readonly hours?: typeof Hours.Type | null | undefined
    readonly auto_reply?: typeof AutoReply.Type | undefined
  },
  current: Channels.ChannelRow,
) => {
  const settings: Record<string, unknown> = {}
  if (body.hours !== undefined) settings.hours = body.hours
  if (body.auto_reply !== undefined) {
    const was = (current.settings as { auto_reply?: Record<string, unknown> }).auto_reply ?? {}
    settings.auto_reply = { ...defaultAutoReply, ...was, ...body.auto_reply }
  }
  return settings
}

/** A channel changed: its resolved key (channel-key access) is dropped on every node, then the event. */
/**
 * What every change of a channel does after commit: credentials of the workspace are re-read,
 * the channel's actor re-reads its row (its connector acts on the new settings, best effort),
 * and agents hear `channel.updated`.
 */
export const changed = (c: Channels.ChannelRow) =>
  Effect.all([
    invalidateCredentials({ workspaceId: c.workspace_id }),
    Effect.flatMap(ChannelActor, (a) => a.ask(c.id, { _tag: 'Reload' })).pipe(Effect.ignore),
    publishEvent(`ws:${c.workspace_id}`, 'channel.updated', { channel_id: c.id, status: c.status }),
  ])

export const channelOr404 = (workspaceId: number, id: number) =>
  Effect.flatMap(Channels.liveInWorkspace(workspaceId, id), (c) =>
    c ? Effect.succeed(c) : Effect.fail(notFound()),
  )

const apiChannelOr404 = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const c = yield* channelOr404(workspaceId, id)
    const api = c.type === 'api' ? yield* ChannelApi.byChannel(c.id) : null
    if (!api) return yield* Effect.fail(notFound())
    return { channel: c, api }
  })

/** Channels a caller may access: keys, channel managers and members with all-channel access see all. */
export const accessibleIds = (caller: Caller): readonly number[] | null =>
  caller.via === 'key' ||
  caller.permissions.has('channels.manage') ||
  !caller.member ||
  caller.member.channel_access === 'all'
    ? null
    : caller.member.channel_ids

export const detail = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const c = yield* channelOr404(workspaceId, id)
    if (c.type === 'email') {
      const mailbox = yield* Email.byChannel(c.id)
      if (mailbox) return presentEmail(c, mailbox)
    }
    const api = c.type === 'api' ? yield* ChannelApi.byChannel(c.id) : null
    const lc = c.type === 'livechat' ? yield* Livechat.byChannel(c.id) : null
    return presentChannel(c, api, lc ? livechatBlock(lc, (yield* Config).publicUrl) : null)
  })

export { Common, Id }

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/channels',
    access: 'K',
    tag: 'Channels',
    summary: 'Channels the caller can access, with the channel quota; never a key or secret',
    handler: ({ workspace, caller }) =>
      Effect.gen(function* () {
        const rows = yield* Channels.listLive(workspace.id, accessibleIds(caller))
        const list = []
        const { publicUrl } = yield* Config
        for (const c of rows) {
          const lc = c.type === 'livechat' ? yield* Livechat.byChannel(c.id) : null
          list.push(
            presentChannel(
              c,
              c.type === 'api' ? yield* ChannelApi.byChannel(c.id) : null,
              lc ? livechatBlock(lc, publicUrl) : null,
            ),
          )
        }
        return ok(list, { quota: yield* quotaOf(workspace) })
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Channel details',
    params: Id,
    handler: ({ workspace, params }) => Effect.map(detail(workspace.id, params.id), (d) => ok(d)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/channels/{id}',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary:
      'Name, business hours (null = follow the workspace) and automatic replies; messaging-app numbers also groups, reject_calls, call_reply, agent_initial',
    params: Id,
    body: Schema.Struct({ ...Common, ...MsgappFields }),
    handler: ({ workspace, params, body }) =>
      Effect.gen(function* () {
        const c = yield* channelOr404(workspace.id, params.id)
        const wrong = misplaced(body, c)
        if (wrong.length > 0)
          return yield* Effect.fail(
            invalid(Object.fromEntries(wrong.map((k) => [k, { key: 'field.channel_type' }]))),
          )
        const row = yield* Channels.updateCommon(c.id, {
          ...(body.name !== undefined ? { name: body.name.trim() } : {}),
          settings: { ...commonSettings(body, c), ...msgappSettings(body) },
        })
        if (!row) return yield* Effect.fail(notFound())
        yield* changed(row)
        return ok(yield* detail(workspace.id, row.id))
      }),
  }),
  route({
    method: 'DELETE',
    path: '/v1/channels/{id}',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Delete a channel; one with conversations is archived instead',
    params: Id,
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        const outcome = yield* Channels.deleteOrArchive(workspace.id, params.id)
        if (!outcome) return yield* Effect.fail(notFound())
        yield* invalidateCredentials({ workspaceId: workspace.id })
        yield* publishEvent(`ws:${workspace.id}`, 'channel.updated', {
          channel_id: params.id,
          status: outcome,
        })
        return ok({ id: params.id, deleted: outcome === 'deleted', archived: outcome === 'archived' })
      }),
  }),

  // ---- API channel ----
  route({
    method: 'POST',
    path: '/v1/channels/api',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Create an API channel (Pro or Custom, one slot); the key is shown in this answer only',
    body: Schema.Struct({
      name: Text(1, 100),
      webhook_url: Schema.optional(Schema.NullOr(Url)),
      events: Schema.optional(Events),
      retries: Schema.optional(Retries),
      grant_selected_members: Schema.optional(Schema.Boolean),
    }),
    handler: ({ workspace, body }) =>
      Effect.gen(function* () {
        const limits = limitsOf(workspace)
        if (!limits.api || workspace.plan === 'free')
          return yield* Effect.fail(new ApiError({ code: 'plan_required' }))
        yield* checkWebhookUrl(body.webhook_url)
        const made = yield* ChannelApi.createWithinQuota(workspace.id, limits.channels, {
          name: body.name.trim(),
          webhookUrl: body.webhook_url ?? null,
          events: normalizeEvents(body.events),
          retries: body.retries ?? 3,
        })
        if (!made)
          return yield* Effect.fail(new ApiError({ code: 'plan_required', message: 'channels.quota' }))
        yield* changed(made.channel)
        yield* grantSelectedMembers(body.grant_selected_members, made.channel)
        const cfg = yield* Config
        return created(
          {
            ...presentApi(made.channel, made.api, [], cfg.publicUrl),
            credentials: { key: made.key, webhook_secret: made.api.webhook_secret },
          },
          { quota: yield* quotaOf(workspace) },
        )
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}/api',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Settings, inbound endpoint, active key (prefix, last use) and the 50 latest deliveries',
    params: Id,
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        const { channel, api } = yield* apiChannelOr404(workspace.id, params.id)
        const deliveries = yield* ChannelApi.latestDeliveries(channel.id)
        return ok(presentApi(channel, api, deliveries, (yield* Config).publicUrl))
      }),
  }),
  route({
    method: 'PATCH',
    path: '/v1/channels/{id}/api',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Webhook URL, events, retries; also name, hours and automatic replies',
    params: Id,
    body: Schema.Struct({
      ...Common,
      webhook_url: Schema.optional(Schema.NullOr(Url)),
      events: Schema.optional(Events),
      retries: Schema.optional(Retries),
    }),
    handler: ({ workspace, params, body }) =>
      Effect.gen(function* () {
        const { channel } = yield* apiChannelOr404(workspace.id, params.id)
        yield* checkWebhookUrl(body.webhook_url)
        const row = yield* Channels.updateCommon(channel.id, {
          ...(body.name !== undefined ? { name: body.name.trim() } : {}),
          settings: commonSettings(body, channel),
        })
        const before = yield* ChannelApi.byChannel(channel.id)
        const api = yield* ChannelApi.update(channel.id, {
          ...(body.webhook_url !== undefined ? { webhookUrl: body.webhook_url } : {}),
          ...(body.events !== undefined ? { events: normalizeEvents(body.events) } : {}),
          ...(body.retries !== undefined ? { retries: body.retries } : {}),
        })
        // Replies sent while there was no URL are not replayed to a newly set one.
        if (before && !before.webhook_url && api?.webhook_url) yield* ChannelApi.resetCursorToNow(channel.id)
        if (!row || !api) return yield* Effect.fail(notFound())
        yield* changed(row)
        return ok(presentApi(row, api, yield* ChannelApi.latestDeliveries(row.id), (yield* Config).publicUrl))
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/api/key',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Replace the channel key; the old one is refused with 401 at once',
    params: Id,
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        const { channel } = yield* apiChannelOr404(workspace.id, params.id)
        const made = yield* ChannelApi.replaceKey(channel.id)
        if (!made) return yield* Effect.fail(notFound())
        yield* invalidateCredentials({ workspaceId: workspace.id })
        return ok({ key: made.key, prefix: made.api.key_prefix })
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}/api/secret',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Show the webhook secret',
    params: Id,
    handler: ({ workspace, params }) =>
      Effect.map(apiChannelOr404(workspace.id, params.id), ({ api }) =>
        ok({ webhook_secret: api.webhook_secret }),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/api/secret',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Replace the webhook secret',
    params: Id,
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        const { channel } = yield* apiChannelOr404(workspace.id, params.id)
        const api = yield* ChannelApi.replaceSecret(channel.id)
        if (!api) return yield* Effect.fail(notFound())
        return ok({ webhook_secret: api.webhook_secret })
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/api/test-webhook',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Send a `ping` event now; answers {status, http_status, duration_ms, error}',
    params: Id,
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        const { channel, api } = yield* apiChannelOr404(workspace.id, params.id)
        return ok(yield* Webhooks.ping(channel, api, Webhooks.policyOf(yield* Config)))
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/api/test-message',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: "Simulate an inbound message from the customer's system",
    params: Id,
    body: Schema.Struct({ text: Schema.optional(Text(1, 4000)) }),
    handler: ({ workspace, params, body }) =>
      Effect.gen(function* () {
        const { channel } = yield* apiChannelOr404(workspace.id, params.id)
        const stamp = Date.now().toString(36)
        const r = yield* simulateInbound(channel, {
          conversation_id: `test-${stamp}`,
          contact: { id: `test-${stamp}`, name: 'Test contact' },
          message: { id: `test-${stamp}`, text: body.text?.trim() ?? 'Test message from the API channel' },
        })
        return created(r.data)
      }),
  }),
]
