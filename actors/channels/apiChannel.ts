import { Effect, Schema } from 'effect'
import { type AppConfig, Config } from '../../engine/config'
import { invalidateCredentials } from '../../engine/events'
import { checkUrl, type OutboundPolicy, OutboundRefused } from '../../engine/net/outbound'
import * as ChannelApi from '../../store/channelApi'
import { limitsOf } from '../../store/plans'
import type { WorkspaceRow } from '../../store/workspaces'
import { ApiError, invalid, notFound } from '../errors'
import { Text } from '../fields'
import { addMessages } from '../i18n'
import { Common, changed, channelOr404, created, quotaFull, updateCommon } from './channels'
import { presentApi, quotaOf } from './presenters'

/**
 * The `api` channel type of spec 1 §4.4: create (Pro or Custom, one slot), its settings, the
 * channel key and the webhook secret. The key is answered only when made (creation, replacement),
 * the secret at creation and on `GET …/api/secret`. The webhook URL must pass the outbound guard
 * (https, a public host after DNS) before it is stored, not only when a delivery is sent.
 */
addMessages({
  'field.webhook_url': {
    en: 'Must be an https URL on a public host.',
    id: 'Harus URL https pada host publik.',
  },
})

const Events = Schema.Array(Schema.Literal(...ChannelApi.WEBHOOK_EVENTS))
const Retries = Schema.Number.pipe(Schema.int(), Schema.between(0, 5))
const Url = Schema.String.pipe(Schema.maxLength(2000))

export const CreateBody = Schema.Struct({
  name: Text(1, 100),
  webhook_url: Schema.optional(Schema.NullOr(Url)),
  events: Schema.optional(Events),
  retries: Schema.optional(Retries),
  grant_selected_members: Schema.optional(Schema.Boolean),
})

export const PatchBody = Schema.Struct({
  ...Common,
  webhook_url: Schema.optional(Schema.NullOr(Url)),
  events: Schema.optional(Events),
  retries: Schema.optional(Retries),
})

/** Where webhooks (and the files inbound messages link to) may be fetched from or sent to. */
export const webhookPolicy = (cfg: Pick<AppConfig, 'webhookAllowPrivate'>): OutboundPolicy => ({
  allowPrivate: cfg.webhookAllowPrivate,
  // Self-hosted networks often have no TLS inside; the explicit setting allows plain http too.
  requireHttps: !cfg.webhookAllowPrivate,
  timeoutMs: 10_000,
  maxRedirects: 3,
})

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
      checkUrl(url, webhookPolicy(cfg)).then(
        () => null,
        (e: unknown) => (e instanceof OutboundRefused ? e : new OutboundRefused('invalid_url', String(e))),
      ),
    )
    if (refused) return yield* Effect.fail(invalid({ webhook_url: { key: 'field.webhook_url' } }))
  })

/** An API channel of the workspace with its settings row, else 404 (also for another type). */
export const apiChannelOr404 = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const c = yield* channelOr404(workspaceId, id)
    const api = c.type === 'api' ? yield* ChannelApi.byChannel(c.id) : null
    if (!api) return yield* Effect.fail(notFound())
    return { channel: c, api }
  })

const presentWithDeliveries = (channel: Parameters<typeof presentApi>[0], api: ChannelApi.ChannelApiRow) =>
  Effect.gen(function* () {
    const deliveries = yield* ChannelApi.latestDeliveries(channel.id)
    return presentApi(channel, api, deliveries, (yield* Config).publicUrl)
  })

/** A new API channel with its key and webhook secret (shown this once), and the quota after it. */
export const create = (workspace: WorkspaceRow, body: typeof CreateBody.Type) =>
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
    if (!made) return yield* Effect.fail(quotaFull())
    yield* created(made.channel, body.grant_selected_members)
    const cfg = yield* Config
    return {
      channel: {
        ...presentApi(made.channel, made.api, [], cfg.publicUrl),
        credentials: { key: made.key, webhook_secret: made.api.webhook_secret },
      },
      quota: yield* quotaOf(workspace),
    }
  })

/** Settings, inbound endpoint, the active key's prefix and last use, the latest deliveries. */
export const get = (workspace: WorkspaceRow, id: number) =>
  Effect.flatMap(apiChannelOr404(workspace.id, id), ({ channel, api }) => presentWithDeliveries(channel, api))

export const update = (workspace: WorkspaceRow, id: number, body: typeof PatchBody.Type) =>
  Effect.gen(function* () {
    const { channel, api: before } = yield* apiChannelOr404(workspace.id, id)
    yield* checkWebhookUrl(body.webhook_url)
    const row = yield* updateCommon(channel, body)
    const api = yield* ChannelApi.update(channel.id, {
      ...(body.webhook_url !== undefined ? { webhookUrl: body.webhook_url } : {}),
      ...(body.events !== undefined ? { events: normalizeEvents(body.events) } : {}),
      ...(body.retries !== undefined ? { retries: body.retries } : {}),
    })
    // Replies sent while there was no URL are not replayed to a newly set one.
    if (!before.webhook_url && api?.webhook_url) yield* ChannelApi.resetCursorToNow(channel.id)
    if (!row || !api) return yield* Effect.fail(notFound())
    yield* changed(row)
    return yield* presentWithDeliveries(row, api)
  })

/** A new channel key; the old one is refused at once on every node (credentials re-read). */
export const replaceKey = (workspace: WorkspaceRow, id: number) =>
  Effect.gen(function* () {
    const { channel } = yield* apiChannelOr404(workspace.id, id)
    const made = yield* ChannelApi.replaceKey(channel.id)
    if (!made) return yield* Effect.fail(notFound())
    yield* invalidateCredentials({ workspaceId: workspace.id })
    return { key: made.key, prefix: made.api.key_prefix }
  })

export const secret = (workspace: WorkspaceRow, id: number) =>
  Effect.map(apiChannelOr404(workspace.id, id), ({ api }) => ({ webhook_secret: api.webhook_secret }))

export const replaceSecret = (workspace: WorkspaceRow, id: number) =>
  Effect.gen(function* () {
    const { channel } = yield* apiChannelOr404(workspace.id, id)
    const api = yield* ChannelApi.replaceSecret(channel.id)
    if (!api) return yield* Effect.fail(notFound())
    return { webhook_secret: api.webhook_secret }
  })

/** What `POST …/api/test-message` posts in, as if the customer's system had sent it. */
export const testMessage = (text: string | undefined, nowMs: number) => {
  const stamp = nowMs.toString(36)
  return {
    conversation_id: `test-${stamp}`,
    contact: { id: `test-${stamp}`, name: 'Test contact' },
    message: { id: `test-${stamp}`, text: text?.trim() ?? 'Test message from the API channel' },
  }
}
