import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { allRoutes } from '../../http/app'
import { document } from '../../http/openapi'
import type { Route } from '../../http/route'
import * as I from '../inbox/support'
import { startVisitor } from '../livechat/support'
import * as F from '../support/fixtures'
import {
  credentialFor,
  fixtureFor,
  MISSING_ID,
  seedWorld,
  WORLD_ENV,
  type World,
} from '../support/routeWorld'
import { startTestServer, type TestServer } from '../support/server'

/**
 * Property-based fuzzing of every route, generated from the route table and the OpenAPI document
 * its request schemas produce: path parameters (the world's ids, ids of nothing, garbage and
 * percent-encoded NUL), queries and bodies shaped like the schema with fields swapped for hostile
 * strings (NUL, lone surrogates, RTL overrides, up to 1 MB), hostile numbers (negative, huge,
 * float, NaN-like strings), wrong types, missing and extra fields, and wrong content types or
 * bodies that are no JSON. Every request carries a working credential of the route's class, so it
 * gets past authentication (outsiders' routes too: channel key, visitor token, public).
 *
 * Properties: no 5xx; every 4xx is the error envelope; a request answered 4xx changed nothing
 * (a digest of the workspace's rows is the same before and after).
 *
 * Seeded and bounded for CI (`FUZZ_RUNS` requests per route, default 6; `FUZZ_SEED`); a longer
 * run: `FUZZ_RUNS=200 npx vitest run test/http/fuzz.test.ts`. A failure prints the seed and path
 * to replay it (fast-check's `seed` and `path`).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 6)
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_125)

let s: TestServer
let world: World
/** Sessions and visitors in turn, so their per-minute budgets (600 and 120) are never met. */
const sessions: F.Session[] = []
const visitors: string[] = []
let turn = 0

// --- The schemas, as the OpenAPI document describes them ---------------------------------------

type Json = Record<string, unknown>
const api = document(allRoutes(), 'http://127.0.0.1') as {
  paths: Record<string, Record<string, Json>>
  components?: { schemas?: Record<string, Json> }
}
const definitions = api.components?.schemas ?? {}
const resolve = (schema: Json): Json => {
  const ref = schema.$ref
  if (typeof ref !== 'string') return schema
  return resolve(definitions[ref.replace('#/components/schemas/', '')] ?? {})
}
const operation = (r: Route) => api.paths[r.path]?.[r.method.toLowerCase()] ?? {}
const querySchema = (r: Route): Json => {
  const params = ((operation(r).parameters as Json[] | undefined) ?? []).filter((p) => p.in === 'query')
  return {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
    required: params.filter((p) => p.required).map((p) => p.name),
  }
}
const bodySchema = (r: Route): Json | undefined =>
  (operation(r).requestBody as { content: { 'application/json': { schema: Json } } } | undefined)?.content[
    'application/json'
  ].schema

// --- Hostile values --------------------------------------------------------------------------

const MB = 1024 * 1024
const hostileString = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      '\u0000',
      'a\u0000b',
      '\ud800',
      'x\udfffy',
      '\udc00\ud800',
      '\u202eevil\u202c.exe',
      'שלום עליכם مرحبا',
      '😀👍🏽',
      '',
      '   ',
      "' OR 1=1 --",
      '<script>alert(1)</script>',
      '%00',
      '../../etc/passwd',
      '\r\n\t',
      'null',
      '{{contact_name}}',
    ),
  },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('x'.repeat(MB), `${'é'.repeat(300_000)}\u0000`, 'y'.repeat(70_000)),
  },
)
const hostileNumber = fc.oneof(
  fc.constantFrom(-1, 0, -0, 1.5, -2.5, 1e308, -1e308, 2 ** 31, 2 ** 53 + 2, 2 ** 64, Number.MIN_VALUE),
  fc.constantFrom('NaN', 'Infinity', '-Infinity', '1e999', '0x10', ' 1', '01', '1_000', '١٢'),
  fc.integer(),
  fc.double({ noNaN: true }),
)
const wrongType = fc.constantFrom<unknown>(null, true, false, [], {}, [null], { a: { b: { c: [] } } }, 'x', 0)
const hostile = fc.oneof(hostileString, hostileNumber, wrongType)
/** Keys a body should not have: prototype names and the like. */
const extraKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'id',
  'workspace_id',
  'a\u0000',
  'x',
)

// --- Values shaped like a schema, with hostile ones mixed in ----------------------------------

const shaped = (raw: Json | undefined, depth = 0): fc.Arbitrary<unknown> => {
  if (raw === undefined || depth > 4) return hostile
  const schema = resolve(raw)
  const near = (() => {
    if ('const' in schema) return fc.constant(schema.const)
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]))
    const options = (schema.anyOf ?? schema.oneOf) as Json[] | undefined
    if (options && options.length > 0) return fc.oneof(...options.map((o) => shaped(o, depth + 1)))
    switch (schema.type) {
      case 'string':
        return fc.string({ minLength: 0, maxLength: Math.min(Number(schema.maxLength ?? 40), 200) })
      case 'integer':
        return fc.integer({
          min: Math.max(Number(schema.minimum ?? -10), -(2 ** 31)),
          max: Math.min(Number(schema.maximum ?? 1000), 2 ** 31),
        })
      case 'number':
        return fc.double({ noNaN: true, min: -1e6, max: 1e6 })
      case 'boolean':
        return fc.boolean()
      case 'null':
        return fc.constant(null)
      case 'array':
        return fc.array(shaped(schema.items as Json | undefined, depth + 1), { maxLength: 3 })
      case 'object': {
        const props = (schema.properties ?? {}) as Record<string, Json>
        const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, shaped(v, depth + 1)]))
        // Any field may be missing; extra fields come along now and then.
        return fc
          .tuple(
            fc.record(model, { requiredKeys: [] }),
            fc.dictionary(extraKey, hostile, { maxKeys: 2 }),
            fc.boolean(),
          )
          .map(([known, extra, withExtra]) => (withExtra ? { ...extra, ...known } : known))
      }
      default:
        return hostile
    }
  })()
  return fc.oneof({ weight: 3, arbitrary: near }, { weight: 1, arbitrary: hostile })
}

// --- Requests --------------------------------------------------------------------------------

/** Path parameter values: the world's row (most often), rows of nothing, and garbage (raw). */
const paramValue = (r: Route, param: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant({ raw: false, v: world.ids[fixtureFor(r.path, param)] }) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom('0', '-1', '1.5', '1e3', '99999999999999999999', MISSING_ID, 'abc', ' 1', 'null')
        .map((v) => ({ raw: false, v })),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom('%00', 'a%00b', '%ED%A0%80', '%E2%80%AE1', 'a%2Fb', '%2e%2e', '%FF', '%25', '1%20')
        .map((v) => ({ raw: true, v })),
    },
  )

/**
 * Query values are cut short: uWS reads at most `UWS_HTTP_MAX_HEADERS_SIZE` (4 KB by default) of
 * request line and headers and drops a longer request without an answer (a transport limit, not
 * a route's). Long strings go in bodies instead.
 */
const URL_VALUE_MAX = 300

const queryString = (r: Route) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: shaped(querySchema(r)).map((q) => {
        if (q === null || typeof q !== 'object' || Array.isArray(q)) return ''
        const sp = new URLSearchParams()
        for (const [k, v] of Object.entries(q)) {
          for (const x of Array.isArray(v) ? v : [v])
            sp.append(k, (typeof x === 'string' ? x : JSON.stringify(x)).slice(0, URL_VALUE_MAX))
        }
        return sp.toString()
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'q=%00',
        'page=%ED%A0%80',
        'x=%FF&x[]=1',
        '%',
        'a=%',
        'per_page=1e999&page=-1',
      ),
    },
  )

type Body =
  | { readonly kind: 'none' }
  | { readonly kind: 'json'; readonly value: unknown; readonly contentType: string | null }
  | { readonly kind: 'raw'; readonly text: string; readonly contentType: string }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array; readonly contentType: string }
  | { readonly kind: 'form'; readonly fields: Record<string, string> }

const utf8 = (text: string) => new TextEncoder().encode(text)
const join = (...parts: Array<string | number[]>) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...utf8(p)] : p)))
/**
 * JSON bodies whose bytes are not UTF-8 (stray bytes, an overlong form, an encoded surrogate, a
 * sequence cut short), and JSON nested deeper than the pipeline takes (http/validation.ts
 * `MAX_JSON_DEPTH`): each is 422 on `body` on every route that reads a JSON body.
 */
const BAD_BYTES: ReadonlyArray<readonly [string, Uint8Array]> = [
  ['bytes FF FE in a string', join('{"name":"a', [0xff, 0xfe], 'b","subject":"x","title":"x"}')],
  ['an overlong "/"', join('{"name":"', [0xc0, 0xaf], '"}')],
  ['an encoded surrogate', join('{"text":"', [0xed, 0xa0, 0x80], '"}')],
  ['a cut-short sequence', join('{"name":"', [0xe2, 0x82])],
  ['Latin-1 é in a key', join('{"caf', [0xe9], '":1}')],
]
const DEEP: ReadonlyArray<readonly [string, Uint8Array]> = [
  ['9000 nested arrays', utf8(`${'['.repeat(9000)}${']'.repeat(9000)}`)],
  ['200 nested objects', utf8(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`)],
  ['65 levels inside a body', utf8(`{"name":${'['.repeat(64)}${']'.repeat(64)}}`)],
]

const bodyOf = (r: Route): fc.Arbitrary<Body> => {
  if (r.method === 'GET') return fc.constant({ kind: 'none' })
  const value = shaped(bodySchema(r))
  const variants: Array<fc.WeightedArbitrary<Body>> = [
    { weight: 8, arbitrary: value.map((v) => ({ kind: 'json', value: v, contentType: 'application/json' })) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          value,
          fc.constantFrom(
            null,
            'text/plain',
            'application/x-www-form-urlencoded',
            'application/json; charset=utf-16',
            'multipart/form-data; boundary=nothing',
            'application/xml',
          ),
        )
        .map(([v, contentType]) => ({ kind: 'json', value: v, contentType })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('{', '[]', 'null', '"x"', '1', '\u0000', '{"a":1}{', '\ufeff{}', 'x'.repeat(2 * MB))
        .map((text) => ({ kind: 'raw', text, contentType: 'application/json' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...BAD_BYTES, ...DEEP)
        .map(([, bytes]) => ({ kind: 'bytes', bytes, contentType: 'application/json' })),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' }) },
  ]
  if (r.multipart) {
    variants.push({
      weight: 3,
      arbitrary: value.map((v) => ({
        kind: 'form',
        fields:
          v !== null && typeof v === 'object' && !Array.isArray(v)
            ? Object.fromEntries(
                Object.entries(v).map(([k, x]) => [k, typeof x === 'string' ? x : (JSON.stringify(x) ?? '')]),
              )
            : { text: '\u0000' },
      })),
    })
  }
  return fc.oneof(...variants)
}

const requestOf = (r: Route) =>
  fc.record({
    params: fc.tuple(...[...r.path.matchAll(/\{(\w+)\}/g)].map((m) => paramValue(r, m[1]!))),
    query: r.query ? queryString(r) : fc.constantFrom('', 'q=%00'),
    body: bodyOf(r),
  })

type Req = { params: Array<{ raw: boolean; v: string }>; query: string; body: Body }

let forwarded = 0
const send = async (r: Route, q: Req) => {
  let i = 0
  const path = r.path.replace(/\{\w+\}/g, () => {
    const p = q.params[i++]!
    return p.raw ? p.v : encodeURIComponent(p.v)
  })
  turn++
  const session = sessions[turn % sessions.length]!
  const credential =
    r.access === 'V' ? F.bearer(visitors[turn % visitors.length]!) : credentialFor(r, world, session)
  // Public budgets are per address: each request comes from another one (TRUST_PROXY=1).
  forwarded++
  const headers: Record<string, string> = {
    ...credential,
    'x-forwarded-for': `10.${(forwarded >> 16) & 255}.${(forwarded >> 8) & 255}.${forwarded & 255}`,
  }
  let body: RequestInit['body']
  if (q.body.kind === 'json') {
    if (q.body.contentType) headers['content-type'] = q.body.contentType
    body = JSON.stringify(q.body.value) ?? 'null'
  } else if (q.body.kind === 'raw') {
    headers['content-type'] = q.body.contentType
    body = q.body.text
  } else if (q.body.kind === 'bytes') {
    headers['content-type'] = q.body.contentType
    body = q.body.bytes
  } else if (q.body.kind === 'form') {
    const fd = new FormData()
    for (const [k, v] of Object.entries(q.body.fields)) fd.append(k, v)
    body = fd
  }
  const res = await s.fetch(`${path}${q.query ? `?${q.query}` : ''}`, { method: r.method, headers, body })
  return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') }
}

// --- What must not change --------------------------------------------------------------------

/**
 * Tables of the workspace that only a request changes (logs, counters, sessions and per-visit
 * state left out), and columns that move by themselves (times, statuses set by connectors).
 */
const VOLATILE_TABLES = new Set([
  'audit_logs',
  'notifications',
  'usage_counters',
  'api_keys',
  'files',
  'livechat_visitors',
  'livechat_form_tokens',
  'webhook_deliveries',
  'msgapp_send_log',
  'sessions',
  // Report roll-ups: sums the background roll-up keeps of the facts (which stay checked).
  'report_days',
  'report_hours',
  // The kept tab counts: the background fold moves deltas into the counts at any moment (the
  // conversations they count stay checked).
  'conversation_counts',
  'conversation_count_deltas',
])
const VOLATILE_COLUMNS = [
  'updated_at',
  'last_used_at',
  'last_seen_at',
  'version',
  'status',
  'status_at',
  'error',
  // Set by the report roll-up on facts and the workspace, in the background.
  'rolled',
  'minutes',
  'met',
  'report_zone',
]

let digestSql = ''
const digest = async () => {
  const [row] = await I.sql<{ d: string }>(s, (db) => db.unsafe(digestSql, [world.w.workspaceId]))
  return row!.d
}

beforeAll(async () => {
  s = await startTestServer({ ...WORLD_ENV, TRUST_PROXY: '1' })
  world = await seedWorld(s)
  const tables = await I.sql<{ table_name: string }>(
    s,
    (db) =>
      db`SELECT table_name FROM information_schema.columns WHERE column_name = 'workspace_id' AND table_schema = current_schema() ORDER BY table_name`,
  )
  const minus = VOLATILE_COLUMNS.map((c) => ` - '${c}'`).join('')
  digestSql = `SELECT md5(string_agg(x, '|' ORDER BY x)) AS d FROM (
    SELECT 'workspaces ' || (to_jsonb(t)${minus})::text AS x FROM workspaces t WHERE id = $1
    ${tables
      .map((t) => t.table_name)
      .filter((t) => !VOLATILE_TABLES.has(t))
      .map(
        (t) => `UNION ALL SELECT '${t} ' || (to_jsonb(t)${minus})::text FROM ${t} t WHERE workspace_id = $1`,
      )
      .join('\n')}) all_rows`
  // Enough sessions (Admins and the Owner) and visitors that no budget is met, with room to spare.
  const appRoutes = allRoutes().filter((r) => r.access === 'A').length
  sessions.push(world.owner)
  for (let i = 0; i < Math.ceil((appRoutes * (RUNS + BAD_BODIES)) / 300); i++) {
    const admin = await F.member(s, world.w, 'Admin')
    sessions.push(await F.signIn(s, admin.email))
  }
  visitors.push(world.visitorToken)
  const visitorRoutes = allRoutes().filter((r) => r.access === 'V').length
  for (let i = 0; i < Math.ceil((visitorRoutes * (RUNS + BAD_BODIES)) / 60); i++) {
    const from = { 'x-forwarded-for': `10.255.0.${i + 1}` }
    visitors.push((await startVisitor(s, world.livechatKey, {}, from)).token)
  }
}, 120_000)
afterAll(() => s?.stop())

/** A session a route ended or moved (logout, leave, switch workspace) is replaced. */
const mendSessions = async () => {
  for (let i = 0; i < sessions.length; i++) {
    const me = await s.fetch('/v1/workspace', { headers: sessions[i]!.headers() })
    const id = me.status === 200 ? ((await me.json()) as { data: { id: number } }).data.id : null
    if (id !== world.w.workspaceId) {
      const admin = await F.member(s, world.w, 'Admin')
      sessions[i] = await F.signIn(s, admin.email)
    }
  }
}

const ENVELOPE = /^\{"error":\{"code":"[a-z_]+","message":"/

/** Requests per route of the sweep below, counted in the sessions' and visitors' budgets. */
const BAD_BODIES = BAD_BYTES.length + DEEP.length

describe('bodies no route may take: bytes that are not UTF-8, JSON nested too deep', () => {
  // Every route that reads a JSON body (a streamed upload reads none), named as the world names it.
  const routes = allRoutes().filter((r) => r.body !== undefined && !r.streamBody && r.method !== 'GET')
  const fine = (r: Route) => ({
    params: [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      raw: false,
      v: world.ids[fixtureFor(r.path, m[1]!)],
    })),
    query: '',
  })
  it('covers the JSON writes of every area', () => {
    expect(routes.length).toBeGreaterThanOrEqual(100)
  })
  it.each(routes.map((r) => [`${r.method} ${r.path} (${r.access})`, r] as const))(
    '%s',
    async (_, r) => {
      const before = await digest()
      for (const [name, bytes] of [...BAD_BYTES, ...DEEP]) {
        const got = await send(r, {
          ...fine(r),
          body: { kind: 'bytes', bytes, contentType: 'application/json' },
        })
        const where = `${name}: ${r.method} ${r.path} → ${got.status} ${got.text.slice(0, 300)}`
        expect(got.status, where).toBe(422)
        expect(got.text, where).toMatch(/^\{"error":\{"code":"validation_error".*"fields":\{"body":/)
      }
      expect(await digest(), `a refused body changed data: ${r.method} ${r.path}`).toBe(before)
    },
    60_000,
  )
})

describe(`fuzz every route (${RUNS} runs each, seed ${SEED})`, () => {
  const routes = allRoutes()
  it('reaches the outsiders’ routes: channel key, visitor and public', () => {
    expect(routes.filter((r) => r.access === 'C').length).toBeGreaterThanOrEqual(3)
    expect(routes.filter((r) => r.access === 'V').length).toBeGreaterThanOrEqual(6)
    expect(routes.filter((r) => r.access === 'P').length).toBeGreaterThanOrEqual(10)
  })

  it.each(routes.map((r) => [`${r.method} ${r.path} (${r.access})`, r] as const))(
    '%s',
    async (_, r) => {
      let before = await digest()
      await fc.assert(
        fc.asyncProperty(requestOf(r), async (q) => {
          const got = await send(r, q)
          const where = `${r.method} ${r.path} → ${got.status} ${got.text.slice(0, 300)}`
          // The spec's AI codes (502 ai_error, 503 ai_unavailable) are answers, not faults.
          if (!/"code":"ai_(error|unavailable)"/.test(got.text)) expect(got.status, where).toBeLessThan(500)
          expect(got.status, `rate limited, the sweep is incomplete: ${where}`).not.toBe(429)
          if (got.status >= 400) {
            // Pages for browsers outside the API (the chat frame, sign-in) may answer in HTML.
            if (r.path.startsWith('/v1/') || got.contentType?.startsWith('application/json')) {
              expect(got.text, where).toMatch(ENVELOPE)
              expect(got.contentType, where).toMatch(/^application\/json/)
            }
            expect(await digest(), `a ${got.status} changed data: ${where}`).toBe(before)
          } else {
            before = await digest()
          }
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      )
      if (r.access === 'A') await mendSessions()
    },
    60_000,
  )
})
