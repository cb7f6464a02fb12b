import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import { iso, localParts, periodOf, startOfLocalDay } from '../../engine/time'
import * as Recipients from '../../store/broadcastRecipients'
import * as Broadcasts from '../../store/broadcasts'
import * as Channels from '../../store/channels'
import * as Contacts from '../../store/contacts'
import * as CustomFields from '../../store/customFields'
import * as Files from '../../store/files'
import * as Msgapp from '../../store/msgapp'
import { isPaidActive } from '../../store/plans'
import * as Segments from '../../store/segments'
import type { WorkspaceRow } from '../../store/workspaces'
import type { Caller } from '../admin/caller'
import { createdReply, reply } from '../answer'
import { accessibleIds } from '../channels/channels'
import { warmupOf } from '../channels/msgapp'
import { sniffMsgappMedia } from '../channels/msgappMedia'
import { labelMap } from '../contacts/contacts'
import { ApiError, conflict, type FieldMessage, invalid, notFound } from '../errors'
import { IdFromString, Text, tooLargeFile, type UploadedFile } from '../fields'
import { addMessages } from '../i18n'
import { pageFields, pageMeta, pageOf } from '../pagination'
import { broadcastsChanged } from './events'
import {
  AudienceBody,
  can,
  DEFAULTS,
  LIMITS,
  MessagesBody,
  quotaLimit,
  SettingsBody,
  settingsOf,
  unknownVariables,
  VARIABLES,
} from './rules'

/**
 * Broadcast drafts (spec 2 §4.8): list with per-status `stats`, options, detail, create, change
 * (drafts only), delete (draft, completed or cancelled), the attachment, duplicate. Broadcasts
 * need Pro or Custom (402 on Free); reads stay open so a workspace that moved to Free still sees
 * what it sent.
 */
addMessages({
  'broadcasts.plan': {
    en: 'Broadcasts need an active Pro or Custom plan.',
    id: 'Siaran memerlukan paket Pro atau Custom yang aktif.',
  },
  'broadcasts.not_draft': {
    en: 'Only a draft broadcast can be changed.',
    id: 'Hanya draf siaran yang dapat diubah.',
  },
  'broadcasts.not_deletable': {
    en: 'Only a draft, completed or cancelled broadcast can be deleted.',
    id: 'Hanya siaran draf, selesai, atau dibatalkan yang dapat dihapus.',
  },
  'broadcasts.channel_type': {
    en: 'must be a messaging-app number of this workspace',
    id: 'harus nomor aplikasi pesan di workspace ini',
  },
  'broadcasts.variable_unknown': {
    en: 'uses an unknown variable {{{name}}}',
    id: 'memakai variabel yang tidak dikenal {{{name}}}',
  },
  'broadcasts.file_type': {
    en: 'must be an image (JPEG, PNG, WebP), a video (MP4, 3GPP) or a document (PDF, Word, Excel, PowerPoint, text)',
    id: 'harus gambar (JPEG, PNG, WebP), video (MP4, 3GPP), atau dokumen (PDF, Word, Excel, PowerPoint, teks)',
  },
  'field.unknown': { en: 'does not exist', id: 'tidak ada' },
})

export interface Ctx {
  readonly caller: Caller
  readonly workspace: WorkspaceRow
}

export const IdParam = Schema.Struct({ id: IdFromString })
export const ListQuery = Schema.Struct({
  ...pageFields,
  status: Schema.optional(Schema.Literal(...Broadcasts.STATUSES)),
  channel_id: Schema.optional(IdFromString),
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
})
export const CreateBody = Schema.Struct({
  name: Text(1, 120),
  channel_id: Schema.optional(
    Schema.NullOr(Schema.Number.pipe(Schema.int(), Schema.between(1, 2_147_483_647))),
  ),
  audience: Schema.optional(AudienceBody),
  messages: Schema.optional(MessagesBody),
  settings: Schema.optional(SettingsBody),
})
export const PatchBody = Schema.Struct({
  name: Schema.optional(Text(1, 120)),
  channel_id: Schema.optional(
    Schema.NullOr(Schema.Number.pipe(Schema.int(), Schema.between(1, 2_147_483_647))),
  ),
  audience: Schema.optional(AudienceBody),
  messages: Schema.optional(MessagesBody),
  settings: Schema.optional(SettingsBody),
})

/** Pro or Custom, paid and not lapsed; otherwise 402. */
export const requirePlan = (workspace: WorkspaceRow) =>
  Effect.flatMap(currentTime, (now) =>
    workspace.plan !== 'free' && isPaidActive(workspace, now)
      ? Effect.void
      : Effect.fail(new ApiError({ code: 'plan_required', message: 'broadcasts.plan' })),
  )

/**
 * A broadcast of the workspace the caller may see, else 404: channel access applies as in the
 * inbox (a member on selected channels does not see broadcasts sent through the others, nor
 * their recipients); one not yet on a number is seen by all who see broadcasts.
 */
export const found = (ctx: Ctx, id: number) =>
  Effect.flatMap(Broadcasts.byId(ctx.workspace.id, id), (b) => {
    const ids = accessibleIds(ctx.caller)
    return b && (b.channel_id === null || ids === null || ids.includes(b.channel_id))
      ? Effect.succeed(b)
      : Effect.fail(notFound())
  })

/** The month's broadcast quota: `{used, limit, remaining, resets_at}` (limit 0 = unlimited). */
export const quotaOf = (workspace: WorkspaceRow) =>
  Effect.gen(function* () {
    const now = yield* currentTime
    const l = localParts(now, workspace.timezone)
    const since = startOfLocalDay(l.year, l.month, 1, workspace.timezone)
    const used = yield* Broadcasts.quotaUsed(workspace.id, since)
    const limit = quotaLimit(workspace)
    return {
      used,
      limit,
      remaining: limit === 0 ? null : Math.max(0, limit - used),
      resets_at: iso(periodOf('month', now, workspace.timezone).endsAt),
      since,
    }
  })

// ---- Presenting ---------------------------------------------------------------------------------

type Counts = Broadcasts.Counts & { readonly reasons: Record<string, number> }

const emptyCounts: Counts = {
  total: 0,
  queued: 0,
  sent: 0,
  delivered: 0,
  read: 0,
  replied: 0,
  failed: 0,
  skipped: 0,
  reasons: {},
}

export const present = (
  b: Broadcasts.BroadcastRow,
  counts: Counts,
  channel: Channels.ChannelRow | null,
  file: Files.FileRow | null,
) => ({
  id: b.id,
  name: b.name,
  channel_id: b.channel_id,
  channel: channel ? { id: channel.id, name: channel.name, status: channel.status } : null,
  status: b.status,
  pause_reason: b.pause_reason,
  audience: {
    segment_ids: b.audience.segment_ids ?? [],
    label_ids: b.audience.label_ids ?? [],
    contact_ids: b.audience.contact_ids ?? [],
  },
  messages: b.messages.map((v) => ({ text: v.text, footer: v.footer ?? null })),
  settings: settingsOf(b),
  attachment: file
    ? { id: file.id, name: file.name, mime: file.mime, size: file.size, url: `/v1/broadcasts/${b.id}/media` }
    : null,
  counts: {
    total: counts.total,
    queued: counts.queued,
    sent: counts.sent,
    delivered: counts.delivered,
    read: counts.read,
    replied: counts.replied,
    failed: counts.failed,
    skipped: counts.skipped,
  },
  skip_reasons: {
    opted_out: counts.reasons.opted_out ?? 0,
    no_phone: counts.reasons.no_phone ?? 0,
    invalid_number: counts.reasons.invalid_number ?? 0,
    duplicate: counts.reasons.duplicate ?? 0,
    recent: counts.reasons.recent ?? 0,
    cancelled: counts.reasons.cancelled ?? 0,
  },
  risk: b.risk,
  risk_ack: b.risk_ack_at !== null,
  risk_ack_at: iso(b.risk_ack_at),
  wait: b.wait,
  can: can(b, counts.failed),
  send_at: iso(b.send_at),
  locked_at: iso(b.locked_at),
  started_at: iso(b.started_at),
  completed_at: iso(b.completed_at),
  cancelled_at: iso(b.cancelled_at),
  created_by: b.created_by,
  created_at: iso(b.created_at),
  updated_at: iso(b.updated_at),
})

/** Broadcasts as answers, with their counts, numbers and attachments read in a few queries. */
export const presentAll = (workspaceId: number, rows: readonly Broadcasts.BroadcastRow[]) =>
  Effect.gen(function* () {
    const counts = yield* Broadcasts.countsOf(rows.map((b) => b.id))
    const channels = new Map((yield* Channels.listLive(workspaceId, null)).map((c) => [c.id, c] as const))
    const files = new Map(
      (yield* Files.byIds(
        workspaceId,
        rows.flatMap((b) => (b.file_id === null ? [] : [b.file_id])),
      )).map((f) => [f.id, f] as const),
    )
    return rows.map((b) =>
      present(
        b,
        counts.get(b.id) ?? emptyCounts,
        b.channel_id === null ? null : (channels.get(b.channel_id) ?? null),
        b.file_id === null ? null : (files.get(b.file_id) ?? null),
      ),
    )
  })

export const presentOne = (workspaceId: number, b: Broadcasts.BroadcastRow) =>
  Effect.map(presentAll(workspaceId, [b]), (r) => r[0]!)

// ---- Reads ----------------------------------------------------------------------------------

export const list = (ctx: Ctx, q: typeof ListQuery.Type) =>
  Effect.gen(function* () {
    const page = pageOf(q)
    const filter: Broadcasts.ListFilter = {
      ...(q.status ? { status: q.status } : {}),
      ...(q.channel_id !== undefined ? { channelId: q.channel_id } : {}),
      ...(q.q?.trim() ? { q: q.q.trim() } : {}),
      channelIds: accessibleIds(ctx.caller),
    }
    const [rows, total, stats] = yield* Effect.all([
      Broadcasts.list(ctx.workspace.id, filter, page.limit, page.offset),
      Broadcasts.count(ctx.workspace.id, filter),
      Broadcasts.statusCounts(ctx.workspace.id, filter),
    ])
    return reply(yield* presentAll(ctx.workspace.id, rows), { ...pageMeta(page, total), stats })
  })

export const detail = (ctx: Ctx, params: typeof IdParam.Type) =>
  Effect.gen(function* () {
    const b = yield* found(ctx, params.id)
    return reply(yield* presentOne(ctx.workspace.id, b))
  })

/** Numbers with their health, segments, defaults and safety limits, quota, variables. */
export const options = (ctx: Ctx) =>
  Effect.gen(function* () {
    const now = yield* currentTime
    const numbers = (yield* Channels.listLive(ctx.workspace.id, accessibleIds(ctx.caller))).filter(
      (c) => c.type === 'msgapp',
    )
    const since = new Date(now.getTime() - 86_400_000)
    const health = yield* Effect.forEach(numbers, (c) =>
      Effect.gen(function* () {
        const n = yield* Msgapp.byChannel(c.id)
        const sent = yield* Recipients.numberSentSince(c.id, since)
        const warm = warmupOf(n?.linked_at ?? null, now.getTime())
        return {
          id: c.id,
          name: c.name,
          status: c.status,
          phone: n?.phone ?? null,
          sent_24h: sent,
          warmup: warm
            ? { limit: warm.limit, remaining: Math.max(0, warm.limit - sent), ends_at: iso(warm.endsAt) }
            : null,
        }
      }),
    )
    const segments = yield* Segments.list(ctx.workspace.id)
    const customs = yield* CustomFields.list(ctx.workspace.id, ['contact'])
    const q = yield* quotaOf(ctx.workspace)
    return reply({
      numbers: health,
      segments: segments.map((s) => ({ id: s.id, name: s.name, last_count: s.last_count })),
      defaults: DEFAULTS,
      limits: LIMITS,
      quota: { used: q.used, limit: q.limit, remaining: q.remaining, resets_at: q.resets_at },
      variables: [
        ...VARIABLES.map((v) => ({ name: v.name, label: v.label, token: `{{${v.name}}}` })),
        ...customs.map((d) => ({ name: `cf:${d.key}`, label: d.label, token: `{{cf:${d.key}}}` })),
      ],
      plan_allows: ctx.workspace.plan !== 'free' && isPaidActive(ctx.workspace, now),
    })
  })

// ---- Writes ---------------------------------------------------------------------------------

type Problems = Record<string, FieldMessage>

/** Cross-field checks of a draft's parts: the number, the audience's ids, the variables. */
const checkParts = (
  ctx: Ctx,
  body: {
    channel_id?: number | null | undefined
    audience?: typeof AudienceBody.Type | undefined
    messages?: typeof MessagesBody.Type | undefined
  },
) =>
  Effect.gen(function* () {
    const problems: Problems = {}
    if (body.channel_id !== undefined && body.channel_id !== null) {
      // A number outside the caller's channel access is refused as one that does not exist.
      const c = yield* Channels.liveInWorkspace(ctx.workspace.id, body.channel_id)
      const ids = accessibleIds(ctx.caller)
      if (c?.type !== 'msgapp' || (ids !== null && !ids.includes(c.id)))
        problems.channel_id = { key: 'broadcasts.channel_type' }
    }
    if (body.audience?.segment_ids?.length) {
      const ids = [...new Set(body.audience.segment_ids)]
      const rows = yield* Segments.byIds(ctx.workspace.id, ids)
      if (rows.length !== ids.length) problems['audience.segment_ids'] = { key: 'field.unknown' }
    }
    if (body.audience?.label_ids?.length) {
      const ids = [...new Set(body.audience.label_ids)]
      const labels = yield* labelMap(ctx.workspace.id)
      if (ids.some((id) => !labels.has(id))) problems['audience.label_ids'] = { key: 'field.unknown' }
    }
    if (body.audience?.contact_ids?.length) {
      // Another workspace's contact is unknown here, as its segments and labels are (spec 1 §7).
      const ids = [...new Set(body.audience.contact_ids)]
      if ((yield* Contacts.countInWorkspace(ctx.workspace.id, ids)) !== ids.length)
        problems['audience.contact_ids'] = { key: 'field.unknown' }
    }
    if (body.messages) {
      const keys = new Set((yield* CustomFields.list(ctx.workspace.id, ['contact'])).map((d) => d.key))
      body.messages.forEach((v, i) => {
        const bad = unknownVariables(`${v.text}\n${v.footer ?? ''}`, keys)
        if (bad.length > 0)
          problems[`messages.${i}.text`] = { key: 'broadcasts.variable_unknown', params: { name: bad[0]! } }
      })
    }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
  })

const cleanAudience = (a: typeof AudienceBody.Type | undefined): Broadcasts.Audience => ({
  segment_ids: [...new Set(a?.segment_ids ?? [])],
  label_ids: [...new Set(a?.label_ids ?? [])],
  contact_ids: [...new Set(a?.contact_ids ?? [])],
})
const cleanMessages = (m: typeof MessagesBody.Type | undefined): Broadcasts.Variant[] =>
  (m ?? []).map((v) => ({ text: v.text.trim(), ...(v.footer?.trim() ? { footer: v.footer.trim() } : {}) }))
const cleanSettings = (
  s: typeof SettingsBody.Type | undefined,
  base: Readonly<Record<string, unknown>> = {},
) => {
  const out: Record<string, unknown> = { ...base }
  for (const [k, v] of Object.entries(s ?? {})) if (v !== undefined) out[k] = v
  return out
}

export const create = (ctx: Ctx, body: typeof CreateBody.Type) =>
  Effect.gen(function* () {
    yield* requirePlan(ctx.workspace)
    yield* checkParts(ctx, body)
    const row = yield* Broadcasts.insert(
      ctx.workspace.id,
      {
        name: body.name.trim(),
        channelId: body.channel_id ?? null,
        audience: cleanAudience(body.audience),
        messages: cleanMessages(body.messages),
        settings: cleanSettings(body.settings),
        fileId: null,
        createdBy: ctx.caller.user.id,
      },
      yield* currentTime,
    )
    yield* broadcastsChanged(ctx.workspace.id, row.id, 'created')
    return createdReply(yield* presentOne(ctx.workspace.id, row))
  })

const notDraft = () => conflict('broadcasts.not_draft')

export const update = (ctx: Ctx, params: typeof IdParam.Type, body: typeof PatchBody.Type) =>
  Effect.gen(function* () {
    const b = yield* found(ctx, params.id)
    if (b.status !== 'draft') return yield* Effect.fail(notDraft())
    yield* checkParts(ctx, body)
    const row = yield* Broadcasts.updateDraft(
      b.id,
      {
        ...(body.name !== undefined ? { name: body.name.trim() } : {}),
        ...(body.channel_id !== undefined ? { channelId: body.channel_id } : {}),
        ...(body.audience !== undefined ? { audience: cleanAudience(body.audience) } : {}),
        ...(body.messages !== undefined ? { messages: cleanMessages(body.messages) } : {}),
        ...(body.settings !== undefined ? { settings: cleanSettings(body.settings, b.settings) } : {}),
      },
      yield* currentTime,
    )
    if (!row) return yield* Effect.fail(notDraft())
    yield* broadcastsChanged(ctx.workspace.id, b.id, 'updated')
    return reply(yield* presentOne(ctx.workspace.id, row))
  })

/**
 * Forgets an attachment file unless another broadcast (a duplicate) or a message still uses it: the
 * messages a broadcast sent, test sends included, show their picture from this very file.
 */
const dropFile = (workspaceId: number, fileId: number | null) =>
  Effect.gen(function* () {
    if (fileId === null || (yield* Broadcasts.fileInUse(fileId))) return
    const f = yield* Files.byId(workspaceId, fileId)
    if (f) yield* Effect.orDie(Files.remove(f))
  })

export const remove = (ctx: Ctx, params: typeof IdParam.Type) =>
  Effect.gen(function* () {
    yield* found(ctx, params.id)
    const r = yield* Broadcasts.remove(ctx.workspace.id, params.id)
    if (!r) return yield* Effect.fail(conflict('broadcasts.not_deletable'))
    yield* dropFile(ctx.workspace.id, r.fileId)
    yield* broadcastsChanged(ctx.workspace.id, params.id, 'deleted')
    return reply({ id: params.id, deleted: true })
  })

export const attach = (ctx: Ctx, params: typeof IdParam.Type, files: readonly UploadedFile[]) =>
  Effect.gen(function* () {
    const b = yield* found(ctx, params.id)
    if (b.status !== 'draft') return yield* Effect.fail(notDraft())
    const file = files.find((f) => f.field === 'file')
    if (!file) return yield* Effect.fail(invalid({ file: { key: 'field.file_required' } }))
    if (file.bytes.byteLength > LIMITS.attachment_bytes)
      return yield* Effect.fail(tooLargeFile('file', LIMITS.attachment_bytes))
    // Spec 2 §4.8: an image, a video or a document the messaging app takes, by its bytes.
    const media = sniffMsgappMedia(file.bytes, file.filename)
    if (!media || media.kind === 'audio')
      return yield* Effect.fail(invalid({ file: { key: 'broadcasts.file_type' } }))
    const saved = yield* Effect.orDie(
      Files.save(
        ctx.workspace.id,
        { name: file.filename, mime: media.mime, bytes: file.bytes },
        ctx.caller.user.id,
      ),
    )
    const row = yield* Broadcasts.updateDraft(b.id, { fileId: saved.id }, yield* currentTime)
    if (!row) {
      yield* Effect.orDie(Files.remove(saved))
      return yield* Effect.fail(notDraft())
    }
    yield* dropFile(ctx.workspace.id, b.file_id)
    yield* broadcastsChanged(ctx.workspace.id, b.id, 'updated')
    return reply(yield* presentOne(ctx.workspace.id, row))
  })

export const detach = (ctx: Ctx, params: typeof IdParam.Type) =>
  Effect.gen(function* () {
    const b = yield* found(ctx, params.id)
    if (b.status !== 'draft') return yield* Effect.fail(notDraft())
    const row = yield* Broadcasts.updateDraft(b.id, { fileId: null }, yield* currentTime)
    if (!row) return yield* Effect.fail(notDraft())
    yield* dropFile(ctx.workspace.id, b.file_id)
    yield* broadcastsChanged(ctx.workspace.id, b.id, 'updated')
    return reply(yield* presentOne(ctx.workspace.id, row))
  })

/** The attachment's file record (the route serves it). */
export const media = (ctx: Ctx, params: typeof IdParam.Type) =>
  Effect.gen(function* () {
    const b = yield* found(ctx, params.id)
    const f = b.file_id === null ? null : yield* Files.byId(ctx.workspace.id, b.file_id)
    if (!f) return yield* Effect.fail(notFound())
    return f
  })

export const duplicate = (ctx: Ctx, params: typeof IdParam.Type) =>
  Effect.gen(function* () {
    yield* requirePlan(ctx.workspace)
    const b = yield* found(ctx, params.id)
    const settings = { ...b.settings }
    delete settings.send_at
    const row = yield* Broadcasts.insert(
      ctx.workspace.id,
      {
        name: `${b.name} (copy)`.slice(0, 120),
        channelId: b.channel_id,
        audience: b.audience,
        messages: b.messages,
        settings,
        fileId: b.file_id,
        createdBy: ctx.caller.user.id,
      },
      yield* currentTime,
    )
    yield* broadcastsChanged(ctx.workspace.id, row.id, 'created')
    return createdReply(yield* presentOne(ctx.workspace.id, row))
  })
