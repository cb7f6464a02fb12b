import { expect } from 'vitest'
import type { Route } from '../../http/route'
import * as I from '../inbox/support'
import { createLivechat, startVisitor } from '../livechat/support'
import * as F from './fixtures'
import type { TestServer } from './server'

/**
 * A workspace holding one of everything a route's path can name, and a working credential of
 * every kind, for the suites that call every route (test/http/fuzz.test.ts, authz.test.ts).
 * A route's path parameters are filled from the one table below (`fixtureFor`): a new route whose
 * parameter it does not know makes those suites fail with the name to add.
 */
export type Fixture =
  | 'team'
  | 'role'
  | 'template'
  | 'category'
  | 'labelRule'
  | 'member'
  | 'invitation'
  | 'apiKey'
  | 'msgappChannel'
  | 'apiChannel'
  | 'livechatChannel'
  | 'conversation'
  | 'message'
  | 'group'
  | 'contact'
  | 'contactLabel'
  | 'customField'
  | 'contactNote'
  | 'kbCategory'
  | 'kbArticle'
  | 'livechatKey'
  | 'pipeline'
  | 'lead'
  | 'leadActivity'
  | 'leadFile'
  | 'leadChecklist'
  | 'leadEvent'
  | 'leadExpense'
  | 'client'
  | 'ticket'
  | 'ticketMessage'
  | 'user'
  | 'segment'
  | 'broadcast'
  | 'missing'

/** Values of path parameters that name no row of any kind, by how the parameter is spelled. */
export const MISSING_ID = '2147483000'

/**
 * What a server for these suites needs: local connectors, a live chat form that may be sent at
 * once, and key budgets large enough that no sweep meets a 429 (which would hide what it tests).
 */
export const WORLD_ENV: Readonly<Record<string, string>> = {
  CONNECTORS: 'local',
  LIVECHAT_MIN_FILL_MS: '0',
  RATE_LIMIT_PER_KEY: '100000000',
  RATE_LIMIT_PER_CHANNEL_KEY: '100000000',
}

export interface World {
  readonly w: F.Seeded
  readonly owner: F.Session
  readonly readKey: string
  readonly writeKey: string
  /** Another workspace's write key (Pro), for calls on this workspace's ids. */
  readonly otherKey: string
  /** The API channel's key (`svca_ch_…`), for C routes. */
  readonly channelKey: string
  /** A live chat's public key and a visitor token on it, for P and V routes. */
  readonly livechatKey: string
  readonly visitorToken: string
  readonly ids: Readonly<Record<Fixture, string>>
}

export const seedWorld = async (s: TestServer): Promise<World> => {
  const w = await F.workspace(s, { plan: 'pro' })
  const owner = await F.signIn(s, w.ownerEmail)
  const other = await F.workspace(s, { plan: 'pro' })
  const post = async (p: string, b: unknown) => {
    const res = await s.fetch(p, F.json(b, owner.headers()))
    expect(res.status, `${p}: ${await res.clone().text()}`).toBe(201)
    return (await I.body(res)).data
  }
  const api = await post('/v1/channels/api', { name: 'World API' })
  const chat = await createLivechat(s, owner, { attachments: 'files' })
  const visitor = await startVisitor(s, chat.livechat.key)
  // The channels paths name are not the ones whose keys the world uses: a route may replace a
  // channel's key or delete it.
  const spareApi = await post('/v1/channels/api', { name: 'Spare API' })
  const spareChat = await createLivechat(s, owner, { name: 'Spare chat' })
  const msgapp = await I.channel(s, w, 'msgapp')
  const team = await I.team(s, w, [])
  const role = await I.role(s, w, ['interactions.view'])
  const template = await post('/v1/templates', { name: 'World', body: 'Hello {{contact_name}}' })
  const category = await post('/v1/conversation-categories', { name: 'World' })
  const rule = await post('/v1/msgapp-label-rules', {
    channel_id: msgapp.id,
    label_name: 'VIP',
    action: 'solve',
  })
  const spare = await F.member(s, w, 'Agent')
  const members = (await I.body(await s.fetch('/v1/members', { headers: owner.headers() }))).data as Array<{
    id: number
    user: { id: number }
  }>
  const invitation = await post('/v1/invitations', {
    email: `world-${Date.now()}@example.com`,
    role_id: role,
    team_ids: [team],
  })
  const spareKey = await post('/v1/api-keys', { name: 'Spare', scope: 'read' })
  const contact = await I.contact(s, w)
  const contactLabel = await post('/v1/labels', { name: 'World label' })
  const customField = await post('/v1/custom-fields', {
    entity: 'contact',
    label: 'World field',
    type: 'text',
  })
  const contactNote = await post(`/v1/contacts/${contact.id}/notes`, { body: 'World note' })
  const kbCategory = await post('/v1/kb/categories', { name: 'World category' })
  const kbArticle = await post('/v1/kb/articles', { title: 'World article', status: 'published' })
  const conversation = await I.conversation(s, w, { channelId: msgapp.id, contactId: contact.id })
  const message = await I.inbound(s, conversation.id, 'World message')
  // The pipeline: a workflow, a lead in it, and one of each piece of work on the lead.
  const pipeline = await post('/v1/pipelines', { name: 'World sales' })
  const lead = await post('/v1/leads', {
    title: 'World deal',
    pipeline_id: pipeline.id,
    contact_id: contact.id,
  })
  const leadActivity = await post(`/v1/leads/${lead.id}/activities`, { kind: 'note', body: 'World note' })
  const leadChecklist = await post(`/v1/leads/${lead.id}/checklist`, { text: 'World item' })
  const leadEvent = await post(`/v1/leads/${lead.id}/events`, {
    title: 'World meeting',
    starts_at: '2030-01-01T03:00:00Z',
  })
  const leadExpense = await post(`/v1/leads/${lead.id}/expenses`, { category: 'Transport', amount: 10 })
  const fileRes = await s.fetch(`/v1/leads/${lead.id}/files`, {
    method: 'POST',
    headers: owner.headers(),
    body: I.form({}, [{ field: 'file', name: 'world.txt', type: 'text/plain', bytes: I.bytes(100) }]),
  })
  expect(fileRes.status, await fileRes.clone().text()).toBe(201)
  const leadFile = (await I.body(fileRes)).data
  const client = await post('/v1/clients', { name: 'World client' })
  const segment = await post('/v1/segments', { name: 'World segment', rules: [] })
  const broadcast = await post('/v1/broadcasts', {
    name: 'World broadcast',
    channel_id: msgapp.id,
    audience: { contact_ids: [contact.id] },
    messages: [{ text: 'Hello {{name}}' }],
  })
  const [group] = await I.sql<{ id: number }>(
    s,
    (db) =>
      db`INSERT INTO groups (workspace_id, channel_id, name) VALUES (${w.workspaceId}, ${msgapp.id}, 'World group') RETURNING id`,
  )
  // A ticket of a Back Office team raised from the world's conversation, with one message.
  const backoffice = await I.team(s, w, [w.ownerId], 'backoffice')
  const ticket = await post('/v1/tickets', {
    subject: 'World ticket',
    team_id: backoffice,
    interaction_id: conversation.id,
  })
  const ticketMessage = await post(`/v1/tickets/${ticket.id}/messages`, { body: 'World ticket message' })
  return {
    w,
    owner,
    readKey: await F.apiKey(s, w, 'read'),
    writeKey: await F.apiKey(s, w, 'write'),
    otherKey: await F.apiKey(s, other, 'write'),
    channelKey: api.credentials.key,
    livechatKey: chat.livechat.key,
    visitorToken: visitor.token,
    ids: {
      team: String(team),
      role: String(role),
      template: String(template.id),
      category: String(category.id),
      labelRule: String(rule.id),
      member: String(members.find((m) => m.user.id === spare.id)!.id),
      invitation: String(invitation.id),
      apiKey: String(spareKey.id),
      msgappChannel: String(msgapp.id),
      apiChannel: String(spareApi.id),
      livechatChannel: String(spareChat.id),
      conversation: String(conversation.id),
      message: String(message.id),
      group: String(group!.id),
      contact: String(contact.id),
      contactLabel: String(contactLabel.id),
      customField: String(customField.id),
      contactNote: String(contactNote.id),
      kbCategory: String(kbCategory.id),
      kbArticle: String(kbArticle.id),
      livechatKey: chat.livechat.key,
      pipeline: String(pipeline.id),
      lead: String(lead.id),
      leadActivity: String(leadActivity.id),
      leadFile: String(leadFile.id),
      leadChecklist: String(leadChecklist.id),
      leadEvent: String(leadEvent.id),
      leadExpense: String(leadExpense.id),
      client: String(client.id),
      ticket: String(ticket.id),
      ticketMessage: String(ticketMessage.id),
      user: String(spare.id),
      segment: String(segment.id),
      broadcast: String(broadcast.id),
      missing: MISSING_ID,
    },
  }
}

/**
 * The fixture a path parameter names: by the parameter's name, and for `{id}` by the path segment
 * before it (and, for channels, the type-specific segment after it). This is the one hand-kept
 * table of the route-driven suites.
 */
export const fixtureFor = (path: string, param: string): Fixture => {
  if (param === 'key') return 'livechatKey'
  if (param === 'message') return path.startsWith('/v1/tickets/') ? 'ticketMessage' : 'message'
  if (param === 'ticket') return 'ticket'
  if (param === 'user') return 'user'
  if (param === 'label') return 'contactLabel'
  if (param === 'note') return 'contactNote'
  // Invoices, signed tokens, attachment indexes: none exists in the world (yet).
  if (['number', 'token', 'index', 'provider'].includes(param)) return 'missing'
  if (param !== 'id') throw new Error(`test/support/routeWorld.ts: add a fixture for {${param}} (${path})`)
  const before = /\/([\w-]+)\/\{id\}/.exec(path)?.[1]
  const byResource: Record<string, Fixture> = {
    teams: 'team',
    roles: 'role',
    templates: 'template',
    'conversation-categories': 'category',
    'msgapp-label-rules': 'labelRule',
    members: 'member',
    invitations: 'invitation',
    'api-keys': 'apiKey',
    interactions: 'conversation',
    messages: 'message',
    groups: 'group',
    contacts: 'contact',
    labels: 'contactLabel',
    'custom-fields': 'customField',
    tickets: 'ticket',
    'ticket-messages': 'ticketMessage',
    'contact-fields': 'customField',
    pipelines: 'pipeline',
    leads: 'lead',
    'lead-activities': 'leadActivity',
    'lead-files': 'leadFile',
    'lead-checklist': 'leadChecklist',
    'lead-events': 'leadEvent',
    'lead-expenses': 'leadExpense',
    clients: 'client',
    categories: 'kbCategory',
    articles: 'kbArticle',
    segments: 'segment',
    broadcasts: 'broadcast',
    // `/kpi/users/{id}`: a person (user id) of the workspace.
    users: 'user',
    // Transfers, live chat files, local checkouts, passkeys, other sessions: none exists in the
    // world (ending the caller's own session would sign the fuzz's caller out).
    transfers: 'missing',
    passkeys: 'missing',
    sessions: 'missing',
    files: 'missing',
    local: 'missing',
  }
  if (before === 'channels') {
    if (/\{id\}\/api\b/.test(path)) return 'apiChannel'
    if (/\{id\}\/livechat\b/.test(path)) return 'livechatChannel'
    return 'msgappChannel'
  }
  const f = before === undefined ? undefined : byResource[before]
  if (f === undefined)
    throw new Error(`test/support/routeWorld.ts: add a fixture for {id} after /${before}/ (${path})`)
  return f
}

/** The path parameters of a route, in order. */
export const paramsOf = (route: Pick<Route, 'path'>): string[] =>
  [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)

/** The fixtures a route's path names. */
export const fixturesOf = (route: Pick<Route, 'path'>): Set<Fixture> =>
  new Set(paramsOf(route).map((p) => fixtureFor(route.path, p)))

/** A route's path with each parameter filled by `value(param, fixture)` (URL-encoded). */
export const pathWith = (
  route: Pick<Route, 'path'>,
  value: (param: string, fixture: Fixture) => string,
): string =>
  route.path.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(value(p, fixtureFor(route.path, p))))

/** A route's path naming the world's fixtures. */
export const worldPath = (route: Pick<Route, 'path'>, world: World): string =>
  pathWith(route, (_, f) => world.ids[f])

/** The credential headers that get a caller past authentication on a route, by access class. */
export const credentialFor = (route: Route, world: World, session: F.Session = world.owner) => {
  switch (route.access) {
    case 'P':
      return {}
    case 'C':
      return F.bearer(world.channelKey)
    case 'V':
      return F.bearer(world.visitorToken)
    case 'K':
      return F.bearer(world.writeKey)
    case 'A':
      return session.headers()
  }
}
