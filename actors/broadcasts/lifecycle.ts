import { Effect, Schema } from 'effect'
import { currentMillis, currentTime } from '../../engine/clock'
import { iso } from '../../engine/time'
import * as Recipients from '../../store/broadcastRecipients'
import * as Broadcasts from '../../store/broadcasts'
import * as Channels from '../../store/channels'
import * as Contacts from '../../store/contacts'
import * as Files from '../../store/files'
import * as Msgapp from '../../store/msgapp'
import * as Segments from '../../store/segments'
import { reply } from '../answer'
import { warmupOf } from '../channels/msgapp'
import { normalizePhone, regionOf } from '../contacts/phone'
import { ApiError, conflict, invalid, rateLimited } from '../errors'
import { PhoneNumber } from '../fields'
import { addMessages } from '../i18n'
import { presentMessage } from '../inbox/ConversationActor'
import { CANCELLED, failMessage } from './BroadcastActor'
import { type Ctx, found, presentOne, quotaOf, requirePlan } from './broadcasts'
import * as Delivery from './delivery'
import { broadcastsChanged } from './events'
import { nudge } from './nudge'
import { finishTime, LIMITS, render, riskOf, settingsOf } from './rules'
import { catalogueOf } from './segmentFields'
import { condsOf } from './segments'

/**
 * The broadcast's way through its states (spec 2 §3) and what a manager asks before: `estimate`
 * (recipients after skip reasons, quota, finish time, risk), `preview` (final text for up to 5
 * contacts), `test` (one message to a phone, no quota, 10 an hour per workspace), `schedule`
 * (`risk_ack: true` locks the recipient list), `pause`, `resume`, `cancel`, `retry` (failed
 * ones), `unschedule`. Sending itself is the BroadcastActor's.
 */
addMessages({
  'broadcasts.risk_ack': {
    en: 'must be true: confirm you read the risks of this broadcast',
    id: 'harus true: konfirmasi bahwa Anda telah membaca risiko siaran ini',
  },
  'broadcasts.channel_required': { en: 'choose a messaging-app number', id: 'pilih nomor aplikasi pesan' },
  'broadcasts.messages_required': { en: 'write at least one message', id: 'tulis minimal satu pesan' },
  'broadcasts.audience_required': {
    en: 'choose segments, labels or contacts',
    id: 'pilih segmen, label, atau kontak',
  },
  'broadcasts.no_recipients': {
    en: 'no contact of the audience can receive this broadcast',
    id: 'tidak ada kontak audiens yang dapat menerima siaran ini',
  },
  'broadcasts.quota': {
    en: 'This broadcast needs {needed} messages of this month’s quota; {remaining} remain.',
    id: 'Siaran ini memerlukan {needed} pesan dari kuota bulan ini; tersisa {remaining}.',
  },
  'broadcasts.number_unavailable': {
    en: 'The broadcast’s number is not available (removed, logged out or banned).',
    id: 'Nomor siaran tidak tersedia (dihapus, keluar, atau diblokir).',
  },
  'broadcasts.state': {
    en: 'This broadcast cannot do that in its current state ({status}).',
    id: 'Siaran ini tidak dapat melakukan itu dalam keadaannya sekarang ({status}).',
  },
  'broadcasts.nothing_to_retry': {
    en: 'No failed recipients to send again.',
    id: 'Tidak ada penerima gagal untuk dikirim ulang.',
  },
  'broadcasts.tests_limit': {
    en: 'At most {limit} test messages an hour; retry in {seconds} seconds.',
    id: 'Maksimal {limit} pesan uji per jam; coba lagi dalam {seconds} detik.',
  },
  'broadcasts.send_at_past': { en: 'must be in the future', id: 'harus di masa depan' },
  'broadcasts.variant': {
    en: 'is not a message variant of this broadcast',
    id: 'bukan varian pesan siaran ini',
  },
})

export const ScheduleBody = Schema.Struct({ risk_ack: Schema.Boolean })
export const PreviewBody = Schema.Struct({
  variant: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, LIMITS.max_variants - 1))),
  text: Schema.optional(Schema.String.pipe(Schema.maxLength(LIMITS.max_text_length))),
  footer: Schema.optional(Schema.String.pipe(Schema.maxLength(LIMITS.max_footer_length))),
})
export const TestBody = Schema.Struct({
  phone: PhoneNumber,
  variant: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, LIMITS.max_variants - 1))),
})

const stateConflict = (status: string) =>
  new ApiError({ code: 'conflict', message: 'broadcasts.state', params: { status } })

/** The audience query of a draft: its segments as the catalogue reads them now. */
const audienceQuery = (ctx: Ctx, b: Broadcasts.BroadcastRow, channelId: number) =>
  Effect.gen(function* () {
    const now = yield* currentMillis
    const cat = yield* catalogueOf(ctx.workspace)
    const rows = yield* Segments.byIds(ctx.workspace.id, b.audience.segment_ids ?? [])
    const segments: Array<{ match: 'all' | 'any'; conds: readonly Segments.Cond[] }> = []
    for (const s of rows) {
      const conds = yield* condsOf(cat, s)
      if (conds) segments.push({ match: s.match, conds })
    }
    const hours = settingsOf(b).skip_recent_hours
    return {
      query: {
        workspaceId: ctx.workspace.id,
        channelId,
        audience: b.audience,
        segments,
        recentSince: hours > 0 ? new Date(now - hours * 3_600_000) : null,
      } satisfies Broadcasts.AudienceQuery,
      segmentIds: rows.map((s) => s.id),
    }
  })

/** The number's warm-up allowance now, with its sends of the last 24 hours. */
const warmupNow = (channelId: number | null) =>
  Effect.gen(function* () {
    if (channelId === null) return null
    const now = yield* currentMillis
    const n = yield* Msgapp.byChannel(channelId)
    const w = warmupOf(n?.linked_at ?? null, now)
    if (!w) return null
    const sent24h = yield* Recipients.numberSentSince(channelId, new Date(now - 86_400_000))
    return { limit: w.limit, sent24h, remaining: Math.max(0, w.limit - sent24h), ends_at: iso(w.endsAt) }
  })

const liveChannel = (ctx: Ctx, id: number | null) =>
  id === null ? Effect.succeed(null) : Channels.liveInWorkspace(ctx.workspace.id, id)

/** Recipients and skip reasons, quota, finish time from the pace and warm-up, risk level. */
const estimateOf = (ctx: Ctx, b: Broadcasts.BroadcastRow) =>
  Effect.gen(function* () {
    const now = yield* currentMillis
    const channel = yield* liveChannel(ctx, b.channel_id)
    const settings = settingsOf(b)
    let recipients = 0
    let audience = 0
    let skipped: Record<string, number> = {}
    let cold = 0
    if (b.status === 'draft') {
      if (channel) {
        const { query } = yield* audienceQuery(ctx, b, channel.id)
        const c = yield* Broadcasts.audienceCounts(query)
        recipients = c.recipients
        audience = c.audience
        skipped = c.skipped
        cold = yield* Broadcasts.audienceCold(query)
      }
    } else {
      const c = (yield* Broadcasts.countsOf([b.id])).get(b.id)
      recipients = c?.queued ?? 0
      audience = (c?.total ?? 0) + (c?.skipped ?? 0)
      skipped = {
        opted_out: 0,
        no_phone: 0,
        invalid_number: 0,
        duplicate: 0,
        recent: 0,
        ...(c?.reasons ?? {}),
      }
      if (channel) cold = yield* Broadcasts.lockedCold(b.id, channel.id)
    }
    const warmup = yield* warmupNow(channel?.id ?? null)
    const q = yield* quotaOf(ctx.workspace)
    const start = Math.max(
      now,
      b.send_at?.getTime() ?? (settings.send_at ? Date.parse(settings.send_at) : now),
    )
    const finish = finishTime(start, recipients, settings, ctx.workspace.timezone, warmup)
    const risk = riskOf({
      recipients,
      settings,
      variants: b.messages.length,
      channelStatus: channel?.status ?? null,
      warmup,
      cold,
    })
    return {
      audience,
      recipients,
      skipped,
      quota: {
        used: q.used,
        limit: q.limit,
        remaining: q.remaining,
        after: q.remaining === null ? null : q.remaining - (b.status === 'draft' ? recipients : 0),
        enough: q.remaining === null || b.status !== 'draft' || recipients <= q.remaining,
        resets_at: q.resets_at,
      },
      starts_at: iso(new Date(start)),
      finish_at: iso(new Date(finish)),
      duration_minutes: Math.ceil((finish - start) / 60_000),
      warmup: warmup ? { limit: warmup.limit, remaining: warmup.remaining, ends_at: warmup.ends_at } : null,
      unsaved_contacts: cold,
      risk,
    }
  })

export const estimate = (ctx: Ctx, params: { readonly id: number }) =>
  Effect.gen(function* () {
    const b = yield* found(ctx, params.id)
    return reply(yield* estimateOf(ctx, b))
  })

/** The final text of a variant (or of the text sent) for up to 5 contacts of the audience. */
export const preview = (ctx: Ctx, params: { readonly id: number }, body: typeof PreviewBody.Type) =>
  Effect.gen(function* () {
    const b = yield* found(ctx, params.id)
    const i = body.variant ?? 0
    const base = b.messages[i]
    if (!base && body.text === undefined)
      return yield* Effect.fail(invalid({ variant: { key: 'broadcasts.variant' } }))
    const variant = { text: body.text ?? base?.text ?? '', footer: body.footer ?? base?.footer }
    let ids: readonly { id: number }[] = []
    if (b.status !== 'draft') ids = yield* Recipients.sampleContacts(b.id, LIMITS.preview_contacts)
    else if (b.channel_id !== null) {
      const { query } = yield* audienceQuery(ctx, b, b.channel_id)
      ids = yield* Broadcasts.audienceSample(query, LIMITS.preview_contacts)
    }
    const items = []
    for (const { id } of ids) {
      const c = yield* Contacts.byId(ctx.workspace.id, id)
      if (c) items.push({ contact: { id: c.id, name: c.name, phone: c.phone }, text: render(variant, c) })
    }
    return reply(items, { variant: i, total: items.length })
  })

/**
 * One message to a phone (the manager's own, say), as the contact with that phone would read it:
 * no quota, at most 10 an hour per workspace; it takes one of the number's 30 slots a minute like
 * any message, and lands in that phone's conversation.
 */
export const test = (ctx: Ctx, params: { readonly id: number }, body: typeof TestBody.Type) =>
  Effect.gen(function* () {
    yield* requirePlan(ctx.workspace)
    const b = yield* found(ctx, params.id)
    const variant = b.messages[body.variant ?? 0]
    if (!variant) return yield* Effect.fail(invalid({ variant: { key: 'broadcasts.variant' } }))
    const channel = yield* liveChannel(ctx, b.channel_id)
    if (channel?.type !== 'msgapp')
      return yield* Effect.fail(invalid({ channel_id: { key: 'broadcasts.channel_required' } }))
    const phone = normalizePhone(body.phone, regionOf(ctx.workspace.timezone))
    if (!phone) return yield* Effect.fail(invalid({ phone: { key: 'contacts.phone_invalid' } }))
    const now = yield* currentTime
    const take = yield* Broadcasts.takeTestSend(
      ctx.workspace.id,
      b.id,
      phone,
      now,
      new Date(now.getTime() - 3_600_000),
      LIMITS.test_sends_per_hour,
    )
    if (take._tag === 'Full') {
      const resetMs = (take.first?.getTime() ?? now.getTime()) + 3_600_000
      const seconds = Math.max(1, Math.ceil((resetMs - now.getTime()) / 1000))
      return yield* Effect.fail(
        new ApiError({
          ...rateLimited(seconds),
          message: 'broadcasts.tests_limit',
          params: { limit: LIMITS.test_sends_per_hour, seconds },
        }),
      )
    }
    const wait = yield* Delivery.takeSlot(channel.id)
    if (wait !== null) {
      yield* Broadcasts.dropTestSend(take.id)
      return yield* Effect.fail(rateLimited(Math.max(1, wait), 'messages.throttled'))
    }
    const contact = yield* Contacts.matchOrCreate(ctx.workspace.id, { name: phone, phone, email: null }).pipe(
      Effect.flatMap((m) => Contacts.byId(ctx.workspace.id, m.id)),
    )
    const file = b.file_id === null ? null : yield* Files.byId(ctx.workspace.id, b.file_id)
    const prepared = yield* Delivery.prepare(
      ctx.workspace,
      channel,
      contact!.id,
      render(variant, contact!),
      file,
      `bct:${b.id}:${take.id}`,
      { name: ctx.caller.user.name, user_id: ctx.caller.user.id, broadcast_id: b.id },
      { broadcast_id: b.id, broadcast_test: true },
    )
    const sent = yield* Delivery.handOver(ctx.workspace, channel, prepared)
    return reply(
      { phone, interaction_id: prepared.conversation.id, message: presentMessage(sent) },
      { tests: { used: take.used, limit: LIMITS.test_sends_per_hour } },
    )
  })

/** Locks the list and starts (or schedules) the broadcast; `risk_ack` must be true. */
export const schedule = (ctx: Ctx, params: { readonly id: number }, body: typeof ScheduleBody.Type) =>
  Effect.gen(function* () {
    yield* requirePlan(ctx.workspace)
    const b = yield* found(ctx, params.id)
    if (b.status !== 'draft') return yield* Effect.fail(stateConflict(b.status))
    const problems: Record<string, { key: string }> = {}
    if (body.risk_ack !== true) problems.risk_ack = { key: 'broadcasts.risk_ack' }
    const channel = yield* liveChannel(ctx, b.channel_id)
    if (channel?.type !== 'msgapp') problems.channel_id = { key: 'broadcasts.channel_required' }
    if (b.messages.length === 0) problems.messages = { key: 'broadcasts.messages_required' }
    const a = b.audience
    if (!a.segment_ids?.length && !a.label_ids?.length && !a.contact_ids?.length)
      problems.audience = { key: 'broadcasts.audience_required' }
    const now = yield* currentTime
    const settings = settingsOf(b)
    const sendAt = settings.send_at ? new Date(settings.send_at) : null
    if (sendAt && sendAt.getTime() <= now.getTime())
      problems['settings.send_at'] = { key: 'broadcasts.send_at_past' }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    const est = yield* estimateOf(ctx, b)
    const { query, segmentIds } = yield* audienceQuery(ctx, b, channel!.id)
    const q = yield* quotaOf(ctx.workspace)
    const r = yield* Broadcasts.lock(ctx.workspace.id, b.id, {
      query,
      segmentIds,
      variants: b.messages.length,
      quotaLimit: q.limit,
      quotaSince: q.since,
      to: sendAt ? 'scheduled' : 'running',
      at: now,
      sendAt,
      userId: ctx.caller.user.id,
      risk: est.risk,
    })
    switch (r._tag) {
      case 'NotDraft':
        return yield* Effect.fail(stateConflict('not draft'))
      case 'Empty':
        return yield* Effect.fail(invalid({ audience: { key: 'broadcasts.no_recipients' } }))
      case 'Quota':
        return yield* Effect.fail(
          new ApiError({
            code: 'plan_required',
            message: 'broadcasts.quota',
            params: { needed: r.needed, remaining: r.remaining },
          }),
        )
    }
    yield* broadcastsChanged(ctx.workspace.id, b.id, r.row.status === 'running' ? 'started' : 'scheduled')
    yield* nudge
    return reply(yield* presentOne(ctx.workspace.id, r.row), { recipients: r.recipients })
  })

const move = (
  ctx: Ctx,
  id: number,
  from: readonly Broadcasts.Status[],
  to: Broadcasts.Status,
  reason: Parameters<typeof broadcastsChanged>[2],
  extra: Parameters<typeof Broadcasts.transition>[4] = () => [],
) =>
  Effect.gen(function* () {
    const b = yield* found(ctx, id)
    if (!from.includes(b.status)) return yield* Effect.fail(stateConflict(b.status))
    const row = yield* Broadcasts.transition(ctx.workspace.id, id, from, to, extra)
    if (!row) return yield* Effect.fail(stateConflict((yield* found(ctx, id)).status))
    yield* broadcastsChanged(ctx.workspace.id, id, reason)
    yield* nudge
    return row
  })

/**
 * Paused or cancelled, with the sender's claims taken back in the same transaction
 * (store/broadcasts.ts `halt`): once this answers, nothing not yet handed to the number is sent.
 */
const halt = (
  ctx: Ctx,
  id: number,
  from: readonly Broadcasts.Status[],
  to: 'paused' | 'cancelled',
  extra: Parameters<typeof Broadcasts.halt>[4],
) =>
  Effect.gen(function* () {
    const b = yield* found(ctx, id)
    if (!from.includes(b.status)) return yield* Effect.fail(stateConflict(b.status))
    const r = yield* Broadcasts.halt(ctx.workspace.id, id, from, to, extra)
    if (!r) return yield* Effect.fail(stateConflict((yield* found(ctx, id)).status))
    // Stored for a recipient a cancel skipped, never handed over: shown failed, not pending.
    for (const m of r.unsent) yield* failMessage(m.conversationId, m.messageId, CANCELLED)
    yield* broadcastsChanged(ctx.workspace.id, id, to)
    yield* nudge
    return r.row
  })

export const pause = (ctx: Ctx, params: { readonly id: number }) =>
  Effect.gen(function* () {
    const row = yield* halt(ctx, params.id, ['running', 'scheduled'], 'paused', (sql) => [
      sql`pause_reason = 'manual'`,
      sql`wait = NULL`,
    ])
    return reply(yield* presentOne(ctx.workspace.id, row))
  })

/** Paused → running again (scheduled when its start is still ahead); the number must be usable. */
export const resume = (ctx: Ctx, params: { readonly id: number }) =>
  Effect.gen(function* () {
    yield* requirePlan(ctx.workspace)
    const b = yield* found(ctx, params.id)
    if (b.status !== 'paused') return yield* Effect.fail(stateConflict(b.status))
    const channel = yield* liveChannel(ctx, b.channel_id)
    if (!channel || channel.status === 'banned' || channel.status === 'logged_out')
      return yield* Effect.fail(conflict('broadcasts.number_unavailable'))
    const now = yield* currentMillis
    const to = b.send_at && b.send_at.getTime() > now ? 'scheduled' : 'running'
    const row = yield* move(ctx, b.id, ['paused'], to, 'resumed', (sql) => [
      sql`pause_reason = NULL`,
      sql`started_at = COALESCE(started_at, ${to === 'running' ? new Date(now) : null})`,
    ])
    return reply(yield* presentOne(ctx.workspace.id, row))
  })

export const cancel = (ctx: Ctx, params: { readonly id: number }) =>
  Effect.gen(function* () {
    const now = yield* currentTime
    const row = yield* halt(ctx, params.id, ['scheduled', 'running', 'paused'], 'cancelled', (sql) => [
      sql`cancelled_at = ${now}`,
      sql`wait = NULL`,
    ])
    return reply(yield* presentOne(ctx.workspace.id, row))
  })

export const unschedule = (ctx: Ctx, params: { readonly id: number }) =>
  Effect.gen(function* () {
    const b = yield* found(ctx, params.id)
    if (b.status !== 'scheduled') return yield* Effect.fail(stateConflict(b.status))
    const row = yield* Broadcasts.unlock(ctx.workspace.id, b.id)
    if (!row) return yield* Effect.fail(stateConflict((yield* found(ctx, b.id)).status))
    yield* broadcastsChanged(ctx.workspace.id, b.id, 'unscheduled')
    yield* nudge
    return reply(yield* presentOne(ctx.workspace.id, row))
  })

/**
 * Failed recipients are queued again as a new attempt (a new message); a completed broadcast runs
 * again, a paused one stays paused until resumed. The quota must hold them.
 */
export const retry = (ctx: Ctx, params: { readonly id: number }) =>
  Effect.gen(function* () {
    yield* requirePlan(ctx.workspace)
    const b = yield* found(ctx, params.id)
    const q = yield* quotaOf(ctx.workspace)
    const r = yield* Broadcasts.retry(ctx.workspace.id, b.id, { limit: q.limit, since: q.since })
    switch (r._tag) {
      case 'State':
        return yield* Effect.fail(stateConflict(r.status ?? b.status))
      case 'Nothing':
        return yield* Effect.fail(conflict('broadcasts.nothing_to_retry'))
      case 'Quota':
        return yield* Effect.fail(
          new ApiError({
            code: 'plan_required',
            message: 'broadcasts.quota',
            params: { needed: r.needed, remaining: r.remaining },
          }),
        )
    }
    yield* broadcastsChanged(ctx.workspace.id, b.id, 'resumed', { requeued: r.requeued })
    yield* nudge
    return reply(yield* presentOne(ctx.workspace.id, r.row), { requeued: r.requeued })
  })
