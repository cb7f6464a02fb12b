import { Effect, Schema } from 'effect'
import { currentMillis, currentTime } from '../../engine/clock'
import { iso, localDate, localParts, startOfLocalDay } from '../../engine/time'
import * as Recipients from '../../store/broadcastRecipients'
import * as Broadcasts from '../../store/broadcasts'
import * as Channels from '../../store/channels'
import * as Msgapp from '../../store/msgapp'
import { reply } from '../answer'
import { csv, inertRow } from '../cells'
import { accessibleIds } from '../channels/channels'
import { warmupOf } from '../channels/msgapp'
import { invalid } from '../errors'
import { IdFromString } from '../fields'
import { addMessages } from '../i18n'
import { pageFields, pageMeta, pageOf } from '../pagination'
import { type Ctx, found, presentAll } from './broadcasts'
import { settingsOf } from './rules'

/**
 * What a broadcast did: the recipients list (cumulative `status`, `q`), its export as xlsx
 * (exceljs) or csv, and the dashboard over a range of at most 92 days (funnel, daily, hourly,
 * reasons, number usage today, latest and best broadcasts).
 */
addMessages({
  'broadcasts.range': {
    en: 'must be at most 92 days after `from`',
    id: 'paling lama 92 hari setelah `from`',
  },
  'broadcasts.range_order': { en: 'must not be before `from`', id: 'tidak boleh sebelum `from`' },
})

export const RecipientsQuery = Schema.Struct({
  ...pageFields,
  status: Schema.optional(
    Schema.Literal('queued', 'sent', 'delivered', 'read', 'replied', 'failed', 'skipped'),
  ),
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
})
export const ExportQuery = Schema.Struct({ format: Schema.optional(Schema.Literal('xlsx', 'csv')) })
const LocalDate = Schema.String.pipe(
  Schema.filter((s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), {
    message: () => 'field.pattern',
  }),
)
export const DashboardQuery = Schema.Struct({
  from: Schema.optional(LocalDate),
  to: Schema.optional(LocalDate),
  channel_id: Schema.optional(IdFromString),
})

const presentRecipient = (r: Recipients.RecipientView) => ({
  id: r.id,
  position: r.position,
  contact_id: r.contact_id,
  name: r.name,
  phone: r.phone,
  status: r.status,
  reason: r.state === 'skipped' ? r.reason : null,
  error: r.state === 'failed' ? r.reason : null,
  variant: r.variant,
  message: r.body,
  message_id: r.message_id,
  interaction_id: r.conversation_id,
  sent_at: iso(r.sent_at),
  failed_at: iso(r.failed_at),
  replied_at: iso(r.replied_at),
})

export const list = (ctx: Ctx, params: { readonly id: number }, q: typeof RecipientsQuery.Type) =>
  Effect.gen(function* () {
    const b = yield* found(ctx, params.id)
    const page = pageOf(q)
    const search = q.q?.trim() || undefined
    const [rows, total] = yield* Effect.all([
      Recipients.list(b.id, q.status, search, page.limit, page.offset),
      Recipients.count(b.id, q.status, search),
    ])
    return reply(rows.map(presentRecipient), pageMeta(page, total))
  })

const HEADER = [
  'position',
  'name',
  'phone',
  'status',
  'reason',
  'variant',
  'message',
  'sent_at',
  'replied_at',
] as const
const EXPORT_PAGE = 5000

const rowsOf = (broadcastId: number) =>
  Effect.gen(function* () {
    const out: Array<Array<string | number>> = []
    for (let offset = 0; ; offset += EXPORT_PAGE) {
      const rows = yield* Recipients.list(broadcastId, undefined, undefined, EXPORT_PAGE, offset)
      for (const r of rows)
        out.push([
          r.position,
          r.name,
          r.phone ?? '',
          r.status,
          r.reason ?? '',
          r.variant + 1,
          r.body ?? '',
          iso(r.sent_at) ?? '',
          iso(r.replied_at) ?? '',
        ])
      if (rows.length < EXPORT_PAGE) return out
    }
  })

/** The recipients as a file: `{name, mime, bytes}`. */
export const exportFile = (ctx: Ctx, params: { readonly id: number }, q: typeof ExportQuery.Type) =>
  Effect.gen(function* () {
    const b = yield* found(ctx, params.id)
    const rows = yield* rowsOf(b.id)
    const base = `broadcast-${b.id}`
    if (q.format === 'csv') {
      const text = `\uFEFF${csv([HEADER, ...rows])}`
      return { name: `${base}.csv`, mime: 'text/csv; charset=utf-8', bytes: new TextEncoder().encode(text) }
    }
    // exceljs loads on the first export, not at start (docs/decisions.md, footprint).
    const { default: ExcelJS } = yield* Effect.promise(() => import('exceljs'))
    const book = new ExcelJS.Workbook()
    book.created = yield* currentTime
    const sheet = book.addWorksheet('Recipients')
    sheet.columns = HEADER.map((h) => ({ header: h, key: h, width: h === 'message' ? 60 : 18 }))
    sheet.addRows(rows.map(inertRow))
    sheet.getRow(1).font = { bold: true }
    const buffer = yield* Effect.promise(() => book.xlsx.writeBuffer())
    return {
      name: `${base}.xlsx`,
      mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      bytes: new Uint8Array(buffer as ArrayBuffer),
    }
  })

const MAX_RANGE_DAYS = 92
const DAY = 86_400_000

const addDays = (d: string, n: number) =>
  new Date(Date.parse(`${d}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10)
/** When the day `d` (`plusDays` later) starts in `zone`: no date text past 9999-12-31 is made. */
const startOf = (d: string, zone: string, plusDays = 0) => {
  const [y, m, day] = d.split('-').map(Number) as [number, number, number]
  return startOfLocalDay(y, m, day + plusDays, zone)
}

export const dashboard = (ctx: Ctx, q: typeof DashboardQuery.Type) =>
  Effect.gen(function* () {
    const zone = ctx.workspace.timezone
    const nowMs = yield* currentMillis
    const today = localDate(new Date(nowMs), zone)
    const to = q.to ?? today
    const from = q.from ?? addDays(to, -29)
    if (to < from) return yield* Effect.fail(invalid({ to: { key: 'broadcasts.range_order' } }))
    if (Date.parse(to) - Date.parse(from) > (MAX_RANGE_DAYS - 1) * DAY)
      return yield* Effect.fail(invalid({ to: { key: 'broadcasts.range' } }))
    const scope: Recipients.Scope = {
      workspaceId: ctx.workspace.id,
      from: startOf(from, zone),
      to: startOf(to, zone, 1),
      channelId: q.channel_id,
      channelIds: accessibleIds(ctx.caller),
      zone,
    }
    const [funnelRows, reasonRows, timeline, started] = yield* Effect.all([
      Recipients.funnel(scope),
      Recipients.reasons(scope),
      Recipients.timeline(scope),
      Recipients.startedIn(scope),
    ])
    const by = new Map(funnelRows.map((r) => [r.status, r.n]))
    const n = (s: string) => by.get(s) ?? 0
    const replied = n('replied')
    const read = n('read') + replied
    const delivered = n('delivered') + read
    const sent = n('sent') + delivered
    const funnel = {
      recipients: sent + n('queued') + n('failed'),
      sent,
      delivered,
      read,
      replied,
      failed: n('failed'),
      skipped: n('skipped'),
    }
    const days = new Map<string, { date: string; sent: number; failed: number; replied: number }>()
    // Counted, not compared: the day after 9999-12-31 has no `YYYY-MM-DD` (toISOString: +010000-…).
    const span = Math.round((Date.parse(to) - Date.parse(from)) / DAY)
    for (let i = 0; i <= span; i++) {
      const d = addDays(from, i)
      days.set(d, { date: d, sent: 0, failed: 0, replied: 0 })
    }
    const hours = Array.from({ length: 24 }, (_, hour) => ({ hour, sent: 0, failed: 0, replied: 0 }))
    for (const t of timeline) {
      const day = days.get(t.day)
      if (day) {
        day.sent += t.sent
        day.failed += t.failed
        day.replied += t.replied
      }
      const h = hours[t.hour]
      if (h) {
        h.sent += t.sent
        h.failed += t.failed
        h.replied += t.replied
      }
    }
    // Number usage today: broadcast sends since the local midnight, all sends of 24 h, warm-up.
    const l = localParts(new Date(nowMs), zone)
    const midnight = startOfLocalDay(l.year, l.month, l.day, zone)
    const perNumber = new Map(
      (yield* Recipients.sentPerNumber(ctx.workspace.id, midnight)).map((r) => [r.channel_id, r.n]),
    )
    const numbers = (yield* Channels.listLive(ctx.workspace.id, accessibleIds(ctx.caller))).filter(
      (c) => c.type === 'msgapp' && (q.channel_id === undefined || c.id === q.channel_id),
    )
    const usage = yield* Effect.forEach(numbers, (c) =>
      Effect.gen(function* () {
        const link = yield* Msgapp.byChannel(c.id)
        const sent24h = yield* Recipients.numberSentSince(c.id, new Date(nowMs - DAY))
        const w = warmupOf(link?.linked_at ?? null, nowMs)
        return {
          channel_id: c.id,
          name: c.name,
          status: c.status,
          broadcast_sent_today: perNumber.get(c.id) ?? 0,
          sent_24h: sent24h,
          warmup: w
            ? { limit: w.limit, remaining: Math.max(0, w.limit - sent24h), ends_at: iso(w.endsAt) }
            : null,
        }
      }),
    )
    const rows = yield* Effect.forEach(started, (s) => Broadcasts.byId(ctx.workspace.id, s.id))
    const presented = yield* presentAll(
      ctx.workspace.id,
      rows.flatMap((r) => (r ? [r] : [])),
    )
    const rate = (b: (typeof presented)[number]) =>
      b.counts.sent === 0 ? 0 : b.counts.replied / b.counts.sent
    const brief = (b: (typeof presented)[number]) => ({
      id: b.id,
      name: b.name,
      status: b.status,
      channel_id: b.channel_id,
      started_at: b.started_at,
      counts: b.counts,
      reply_rate: Math.round(rate(b) * 1000) / 10,
      pace_per_minute: settingsOf({ settings: b.settings }).pace_per_minute,
    })
    return reply({
      from,
      to,
      funnel,
      daily: [...days.values()],
      hourly: hours,
      reasons: reasonRows.map((r) => ({ kind: r.state, reason: r.reason, count: r.n })),
      numbers: usage,
      latest: presented.slice(0, 5).map(brief),
      best: [...presented]
        .filter((b) => b.counts.sent > 0)
        .sort((a, b) => rate(b) - rate(a) || b.counts.sent - a.counts.sent)
        .slice(0, 5)
        .map(brief),
    })
  })
