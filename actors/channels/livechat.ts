import { Effect, Schema } from 'effect'
import { Config } from '../../engine/config'
import { invalidateCredentials } from '../../engine/events'
import * as Livechat from '../../store/livechat'
import { limitsOf } from '../../store/plans'
import type { WorkspaceRow } from '../../store/workspaces'
import { notFound } from '../errors'
import { Text } from '../fields'
import { Common, changed, channelOr404, created, detail, quotaFull, updateCommon } from './channels'
import { livechatBlock } from './livechatEmbed'
import { PrechatPatch } from './livechatPrechat'
import * as W from './livechatSettings'
import { quotaOf } from './presenters'

/**
 * The `livechat` channel type of spec 1 §4.4: create (all plans, one slot of the shared quota),
 * every widget setting, and replacing the public key (old embeds stop at once: the key is looked
 * up per request, never cached).
 */
const Color = Schema.String.pipe(Schema.pattern(/^#[0-9a-fA-F]{6}$/))
const Domain = Schema.String.pipe(
  Schema.maxLength(253),
  Schema.pattern(
    /^(\*\.)?([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)*[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/,
  ),
)

export const WidgetFields = {
  title: Schema.optional(Text(1, 60)),
  subtitle: Schema.optional(Schema.String.pipe(Schema.maxLength(120))),
  color: Schema.optional(Color),
  font: Schema.optional(Schema.Literal(...W.FONTS)),
  radius: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, 24))),
  position: Schema.optional(Schema.Literal(...W.POSITIONS)),
  launcher_icon: Schema.optional(Schema.Literal(...W.LAUNCHER_ICONS)),
  intro: Schema.optional(Schema.String.pipe(Schema.maxLength(500))),
  consent: Schema.optional(Schema.String.pipe(Schema.maxLength(500))),
  start_label: Schema.optional(Text(1, 40)),
  attachments: Schema.optional(Schema.Literal(...W.ATTACHMENTS)),
  email_fallback: Schema.optional(Schema.Boolean),
  allowed_domains: Schema.optional(Schema.Array(Domain).pipe(Schema.maxItems(W.MAX_ALLOWED_DOMAINS))),
  prechat: Schema.optional(PrechatPatch),
  locale: Schema.optional(Schema.Literal(...W.WIDGET_LOCALES)),
}

type WidgetBody = { readonly [K in keyof typeof WidgetFields]?: Schema.Schema.Type<(typeof WidgetFields)[K]> }

export const CreateBody = Schema.Struct({
  name: Text(1, 100),
  title: WidgetFields.title,
  color: WidgetFields.color,
  grant_selected_members: Schema.optional(Schema.Boolean),
})

export const PatchBody = Schema.Struct({ ...Common, ...WidgetFields })

/**
 * The widget keys a body sets, trimmed and normalised (domains lower-case, without duplicates;
 * `prechat` only with the fields the body names: the store merges it over the stored one).
 */
const widgetPatch = (b: WidgetBody) => {
  const patch: Record<string, unknown> = {}
  for (const k of Object.keys(WidgetFields) as (keyof WidgetBody)[]) {
    const v = b[k]
    if (v === undefined) continue
    patch[k] = typeof v === 'string' ? v.trim() : v
  }
  if (b.allowed_domains) patch.allowed_domains = [...new Set(b.allowed_domains.map((d) => d.toLowerCase()))]
  if (b.color) patch.color = b.color.toLowerCase()
  if (b.prechat) patch.prechat = b.prechat
  return patch
}

const livechatOr404 = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const channel = yield* channelOr404(workspaceId, id)
    const lc = channel.type === 'livechat' ? yield* Livechat.byChannel(channel.id) : null
    if (!lc) return yield* Effect.fail(notFound())
    return { channel, lc }
  })

/** A new widget with its public key and embed code, and the quota after it. */
export const create = (workspace: WorkspaceRow, body: typeof CreateBody.Type) =>
  Effect.gen(function* () {
    const made = yield* Livechat.createWithinQuota(workspace.id, limitsOf(workspace).channels, {
      name: body.name.trim(),
      widget: widgetPatch({ title: body.title, color: body.color }),
    })
    if (!made) return yield* Effect.fail(quotaFull())
    yield* created(made.channel, body.grant_selected_members)
    const cfg = yield* Config
    return {
      channel: {
        ...(yield* detail(workspace.id, made.channel.id)),
        livechat: livechatBlock(made.livechat, cfg.publicUrl),
      },
      quota: yield* quotaOf(workspace),
    }
  })

export const update = (workspace: WorkspaceRow, id: number, body: typeof PatchBody.Type) =>
  Effect.gen(function* () {
    const { channel } = yield* livechatOr404(workspace.id, id)
    const row = yield* updateCommon(channel, body)
    const lc = yield* Livechat.updateWidget(channel.id, widgetPatch(body))
    if (!row || !lc) return yield* Effect.fail(notFound())
    yield* changed(row)
    return yield* detail(workspace.id, row.id)
  })

/** A new public key; the old embed code stops at once. */
export const replaceKey = (workspace: WorkspaceRow, id: number) =>
  Effect.gen(function* () {
    const { channel } = yield* livechatOr404(workspace.id, id)
    const lc = yield* Livechat.replaceKey(channel.id)
    if (!lc) return yield* Effect.fail(notFound())
    yield* invalidateCredentials({ workspaceId: workspace.id })
    yield* changed(channel)
    return livechatBlock(lc, (yield* Config).publicUrl)
  })

/** The `frame-ancestors` sources of a widget key's frame page, or null for an unknown key. */
export const frameAncestorsOf = (key: string) =>
  Effect.map(Livechat.byPublicKey(key), (found) =>
    found ? W.frameAncestors(W.widgetOf(found.livechat.widget).allowed_domains) : null,
  )
