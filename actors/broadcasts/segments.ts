import { SqlClient } from '@effect/sql'
import { Chunk, Effect, Option, Schema, Stream } from 'effect'
import { currentMillis, currentTime } from '../../engine/clock'
import { iso } from '../../engine/time'
import * as Segments from '../../store/segments'
import type { WorkspaceRow } from '../../store/workspaces'
import type { Caller } from '../admin/caller'
import { createdReply, reply } from '../answer'
import { csv } from '../cells'
import { conflict, invalid, notFound } from '../errors'
import { IdFromString, Text } from '../fields'
import { addMessages } from '../i18n'
import { segmentsChanged } from './events'
import {
  type Catalogue,
  catalogueOf,
  compile,
  Match,
  presentCatalogue,
  type Rule,
  Rules,
} from './segmentFields'

/**
 * Segments (spec 2 §4.8): the field catalogue, an unsaved preview, saved segments with their
 * `last_count` (refreshed whenever a segment is saved or read in detail), CSV export of members,
 * and delete refused while a scheduled, running or paused broadcast uses the segment. Every count
 * and member list is one SQL query (store/segments.ts).
 */
addMessages({
  'segments.name_taken': { en: 'is already used by another segment', id: 'sudah dipakai segmen lain' },
  'segments.in_use': {
    en: 'This segment is used by a scheduled, running or paused broadcast.',
    id: 'Segmen ini dipakai siaran yang terjadwal, berjalan, atau dijeda.',
  },
})

export interface Ctx {
  readonly caller: Caller
  readonly workspace: WorkspaceRow
}

export const SAMPLES = 10
const EXPORT_PAGE = 2000

export const IdParam = Schema.Struct({ id: IdFromString })
export const PreviewBody = Schema.Struct({ match: Schema.optional(Match), rules: Rules })
export const CreateBody = Schema.Struct({
  name: Text(1, 120),
  description: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))),
  match: Schema.optional(Match),
  rules: Rules,
})
export const PatchBody = Schema.Struct({
  name: Schema.optional(Text(1, 120)),
  description: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))),
  match: Schema.optional(Match),
  rules: Schema.optional(Rules),
})

/** The compiled conditions of rules, or 422 naming the rule parts that are wrong. */
export const compiled = (cat: Catalogue, rules: readonly Rule[]) =>
  Effect.gen(function* () {
    const r = compile(cat, rules, yield* currentMillis)
    if (Object.keys(r.problems).length > 0) return yield* Effect.fail(invalid(r.problems))
    return r.conds
  })

/** A saved segment's conditions as the catalogue reads them today (a field gone → matches none). */
export const condsOf = (cat: Catalogue, s: Segments.SegmentRow) =>
  Effect.map(currentMillis, (now) => {
    const r = compile(cat, s.rules as unknown as readonly Rule[], now)
    return Object.keys(r.problems).length > 0 ? null : r.conds
  })

const presentSample = (c: Segments.Sample) => ({ id: c.id, name: c.name, phone: c.phone, email: c.email })

export const present = (s: Segments.SegmentView) => ({
  id: s.id,
  name: s.name,
  description: s.description,
  match: s.match,
  rules: s.rules,
  summary: summaryOf(s),
  last_count: s.last_count,
  last_counted_at: iso(s.last_counted_at),
  broadcasts_count: s.broadcasts_count,
  created_at: iso(s.created_at),
  updated_at: iso(s.updated_at),
})

/** A one-line description of the rules (`city contains "Bandung" and label has 3`). */
const summaryOf = (s: Segments.SegmentRow) =>
  s.rules.length === 0
    ? 'All contacts'
    : s.rules
        .map((r) => {
          const v = r.value === undefined || r.value === null ? '' : ` ${JSON.stringify(r.value)}`
          const v2 = r.value2 === undefined || r.value2 === null ? '' : ` and ${JSON.stringify(r.value2)}`
          return `${String(r.field)} ${String(r.op).replace(/_/g, ' ')}${v}${v2}`
        })
        .join(s.match === 'all' ? ' and ' : ' or ')

const found = (workspaceId: number, id: number) =>
  Effect.flatMap(Segments.byId(workspaceId, id), (s) => (s ? Effect.succeed(s) : Effect.fail(notFound())))

export const fields = (ctx: Ctx) =>
  Effect.map(catalogueOf(ctx.workspace), (cat) => reply(presentCatalogue(cat)))

export const list = (ctx: Ctx) =>
  Effect.map(Segments.list(ctx.workspace.id), (rows) => reply(rows.map(present), { total: rows.length }))

export const preview = (ctx: Ctx, body: typeof PreviewBody.Type) =>
  Effect.gen(function* () {
    const cat = yield* catalogueOf(ctx.workspace)
    const conds = yield* compiled(cat, body.rules)
    const p = yield* Segments.preview(ctx.workspace.id, body.match ?? 'all', conds, SAMPLES)
    return reply({ ...p, samples: p.samples.map(presentSample) })
  })

/** Detail with the members recounted now (`preview`), which also refreshes `last_count`. */
export const detail = (ctx: Ctx, params: typeof IdParam.Type) =>
  Effect.gen(function* () {
    const s = yield* found(ctx.workspace.id, params.id)
    const cat = yield* catalogueOf(ctx.workspace)
    const conds = yield* condsOf(cat, s)
    const p = conds
      ? yield* Segments.preview(ctx.workspace.id, s.match, conds, SAMPLES)
      : { count: 0, with_phone: 0, unsubscribed: 0, samples: [] }
    const at = yield* currentTime
    yield* Segments.setCount(s.id, p.count, at)
    return reply({
      ...present({ ...s, last_count: p.count, last_counted_at: at }),
      preview: { ...p, samples: p.samples.map(presentSample) },
    })
  })

const nameTaken = () => invalid({ name: { key: 'segments.name_taken' } })

export const create = (ctx: Ctx, body: typeof CreateBody.Type) =>
  Effect.gen(function* () {
    const cat = yield* catalogueOf(ctx.workspace)
    const conds = yield* compiled(cat, body.rules)
    const name = body.name.trim()
    if (yield* Segments.nameTaken(ctx.workspace.id, name, 0)) return yield* Effect.fail(nameTaken())
    const match = body.match ?? 'all'
    const p = yield* Segments.preview(ctx.workspace.id, match, conds, 0)
    const id = yield* Segments.insert(
      ctx.workspace.id,
      { name, description: body.description?.trim() ?? '', match, rules: body.rules },
      p.count,
      yield* currentTime,
      ctx.caller.user.id,
    )
    if (id === null) return yield* Effect.fail(nameTaken())
    yield* segmentsChanged(ctx.workspace.id, id, 'created')
    return createdReply(present((yield* Segments.byId(ctx.workspace.id, id))!))
  })

/** Under the segment's row lock (`lockById`): a change made meanwhile is kept, not overwritten. */
export const update = (ctx: Ctx, params: typeof IdParam.Type, body: typeof PatchBody.Type) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const id = yield* sql.withTransaction(change(ctx, params.id, body))
    yield* segmentsChanged(ctx.workspace.id, id, 'updated')
    return reply(present((yield* Segments.byId(ctx.workspace.id, id))!))
  })

const change = (ctx: Ctx, id: number, body: typeof PatchBody.Type) =>
  Effect.gen(function* () {
    const s = yield* Effect.flatMap(Segments.lockById(ctx.workspace.id, id), (s) =>
      s ? Effect.succeed(s) : Effect.fail(notFound()),
    )
    const cat = yield* catalogueOf(ctx.workspace)
    const rules = body.rules ?? (s.rules as unknown as readonly Rule[])
    const conds = yield* compiled(cat, rules)
    const name = body.name?.trim() ?? s.name
    if (yield* Segments.nameTaken(ctx.workspace.id, name, s.id)) return yield* Effect.fail(nameTaken())
    const match = body.match ?? s.match
    const p = yield* Segments.preview(ctx.workspace.id, match, conds, 0)
    const ok = yield* Segments.update(
      s.id,
      { name, description: body.description?.trim() ?? s.description, match, rules },
      p.count,
      yield* currentTime,
    )
    if (!ok) return yield* Effect.fail(nameTaken())
    return s.id
  })

export const remove = (ctx: Ctx, params: typeof IdParam.Type) =>
  Effect.gen(function* () {
    const r = yield* Segments.removeUnlessUsed(ctx.workspace.id, params.id)
    if (r === 'missing') return yield* Effect.fail(notFound())
    if (r === 'used') return yield* Effect.fail(conflict('segments.in_use'))
    yield* segmentsChanged(ctx.workspace.id, params.id, 'deleted')
    return reply({ id: params.id, deleted: true })
  })

const encoder = new TextEncoder()
const BOM = new Uint8Array([0xef, 0xbb, 0xbf])

/** The members as CSV (UTF-8 with BOM), id order, read and written in pages. */
export const exportCsv = (ctx: Ctx, params: typeof IdParam.Type) =>
  Effect.gen(function* () {
    const s = yield* found(ctx.workspace.id, params.id)
    const cat = yield* catalogueOf(ctx.workspace)
    const conds = yield* condsOf(cat, s)
    const head = Stream.make(
      BOM,
      encoder.encode(
        csv([['id', 'name', 'phone', 'email', 'company', 'city', 'broadcast_opt_out', 'created_at']]),
      ),
    )
    if (!conds) return { segment: s, stream: head }
    const pages = Stream.paginateChunkEffect(0, (after) =>
      Effect.map(Segments.members(ctx.workspace.id, s.match, conds, after, EXPORT_PAGE), (rows) => {
        const lines = rows.map((c) => [
          c.id,
          c.name,
          c.phone ?? '',
          c.email ?? '',
          c.company ?? '',
          c.city ?? '',
          c.broadcast_opt_out ? 'true' : 'false',
          iso(c.created_at),
        ])
        const last = rows[rows.length - 1]
        return [
          rows.length === 0 ? Chunk.empty<Uint8Array>() : Chunk.of(encoder.encode(csv(lines))),
          rows.length === EXPORT_PAGE && last ? Option.some(last.id) : Option.none(),
        ] as const
      }),
    )
    return { segment: s, stream: Stream.concat(head, pages) }
  })
