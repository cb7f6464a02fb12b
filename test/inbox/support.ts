import { SqlClient } from '@effect/sql'
import { Effect, Schema } from 'effect'
import { ChannelActor } from '../../actors/channels/ChannelActor'
import { ConversationActor } from '../../actors/inbox/ConversationActor'
import { LocalConnector } from '../../connectors/router'
import { WallClock } from '../../engine/clock'
import { invalidateCredentials } from '../../engine/events'
import * as Channels from '../../store/channels'
import * as Contacts from '../../store/contacts'
import * as Conversations from '../../store/conversations'
import * as F from '../support/fixtures'
import type { TestServer } from '../support/server'
import { connect } from '../support/ws'

/** Inbox test data, made through the store (the admin, channel and contact APIs are other issues). */
let n = 0
const unique = () => `${Date.now().toString(36)}${(n++).toString(36)}`

export const sql = <A extends object>(
  s: TestServer,
  f: (sql: SqlClient.SqlClient) => Effect.Effect<readonly A[], unknown>,
) => s.run(Effect.flatMap(SqlClient.SqlClient, (c) => f(c) as Effect.Effect<readonly A[], never>))

export const channel = (
  s: TestServer,
  w: F.Seeded,
  type: Channels.ChannelRow['type'] = 'msgapp',
  settings: Record<string, unknown> = {},
) =>
  s.run(
    Effect.gen(function* () {
      const ch = yield* Channels.create(w.workspaceId, type, `${type} ${unique()}`)
      if (Object.keys(settings).length === 0) return ch
      const db = yield* SqlClient.SqlClient
      yield* db`UPDATE channels SET settings = ${JSON.stringify(settings)}::jsonb WHERE id = ${ch.id}`
      return { ...ch, settings }
    }),
  )

/** Changes a channel's settings and has its actor read them again. */
export const channelSettings = (s: TestServer, channelId: number, settings: Record<string, unknown>) =>
  s.run(
    Effect.gen(function* () {
      const db = yield* SqlClient.SqlClient
      yield* db`UPDATE channels SET settings = ${JSON.stringify(settings)}::jsonb WHERE id = ${channelId}`
      yield* Effect.flatMap(ChannelActor, (a) => a.ask(channelId, { _tag: 'Reload' }))
    }),
  )

export const contact = (
  s: TestServer,
  w: F.Seeded,
  c: { name?: string; phone?: string | null; email?: string | null } = {},
) =>
  s.run(
    Contacts.create(w.workspaceId, {
      name: c.name ?? `Budi ${unique()}`,
      phone: c.phone === undefined ? `+62812${Math.floor(Math.random() * 1e7)}` : c.phone,
      email: c.email === undefined ? `budi-${unique()}@example.com` : c.email,
    }),
  )

export const team = async (s: TestServer, w: F.Seeded, userIds: readonly number[], type = 'frontline') => {
  const [t] = await sql<{ id: number }>(
    s,
    (db) =>
      db`INSERT INTO teams (workspace_id, type, name) VALUES (${w.workspaceId}, ${type}, ${`Team ${unique()}`}) RETURNING id`,
  )
  for (const u of userIds)
    await sql(s, (db) => db`INSERT INTO team_members (team_id, user_id) VALUES (${t!.id}, ${u})`)
  return t!.id
}

export const conversation = (
  s: TestServer,
  w: F.Seeded,
  o: {
    channelId?: number | null
    contactId?: number | null
    teamId?: number | null
    assigneeId?: number | null
    kind?: 'chat' | 'group'
    groupId?: number | null
    subject?: string | null
    at?: Date
  } = {},
) =>
  s.run(
    Conversations.create(w.workspaceId, o.channelId ?? null, {
      contactId: o.contactId ?? null,
      teamId: o.teamId ?? null,
      assigneeId: o.assigneeId ?? null,
      kind: o.kind ?? 'chat',
      groupId: o.groupId ?? null,
      subject: o.subject ?? null,
      ...(o.at ? { at: o.at } : {}),
    }),
  )

/** A customer's message, as a connector would hand it in. */
export const inbound = (s: TestServer, conversationId: number, body: string, externalId?: string) =>
  s.run(
    Effect.flatMap(ConversationActor, (a) =>
      a.ask(conversationId, {
        _tag: 'Append',
        direction: 'in',
        type: 'text',
        body,
        sender: { name: 'Customer', jid: 'cust@s.whatsapp.net' },
        externalId: externalId ?? `ext-${unique()}`,
      }),
    ),
  )

/** Changes a membership (view-all, channel access, role) and drops cached credentials. */
export const setMember = (
  s: TestServer,
  w: F.Seeded,
  userId: number,
  m: { viewAll?: boolean; channelIds?: number[] | null; roleId?: number },
) =>
  s.run(
    Effect.gen(function* () {
      const db = yield* SqlClient.SqlClient
      if (m.viewAll !== undefined) {
        yield* db`UPDATE members SET view_all = ${m.viewAll} WHERE workspace_id = ${w.workspaceId} AND user_id = ${userId}`
      }
      if (m.channelIds !== undefined) {
        const ids = m.channelIds === null ? '{}' : `{${m.channelIds.join(',')}}`
        yield* db`UPDATE members SET channel_access = ${m.channelIds === null ? 'all' : 'selected'},
          channel_ids = ${ids}::int[] WHERE workspace_id = ${w.workspaceId} AND user_id = ${userId}`
      }
      if (m.roleId !== undefined) {
        yield* db`UPDATE members SET role_id = ${m.roleId} WHERE workspace_id = ${w.workspaceId} AND user_id = ${userId}`
      }
      yield* invalidateCredentials({ userId })
    }),
  )

export const role = async (s: TestServer, w: F.Seeded, permissions: readonly string[], isAdmin = false) => {
  const [r] = await sql<{ id: number }>(
    s,
    (db) => db`INSERT INTO roles (workspace_id, name, permissions, is_admin)
      VALUES (${w.workspaceId}, ${`Role ${unique()}`}, ${`{${permissions.join(',')}}`}::text[], ${isAdmin}) RETURNING id`,
  )
  return r!.id
}

/** A signed-in member with the given role name or role id. */
export const agent = async (s: TestServer, w: F.Seeded, role: string | number = 'Agent') => {
  const user = await F.member(s, w, typeof role === 'string' ? role : 'Agent')
  if (typeof role === 'number') await setMember(s, w, user.id, { roleId: role })
  return { user, session: await F.signIn(s, user.email) }
}

export const advance = (s: TestServer, ms: number) => s.run(Effect.flatMap(WallClock, (c) => c.advance(ms)))

export const clockNow = (s: TestServer) => s.run(Effect.flatMap(WallClock, (c) => c.millis))

export const recorded = async (s: TestServer) => (await s.run(LocalConnector)).recorded()

export const body = async (res: Response) => (await res.json()) as Record<string, any>

/**
 * Throws unless `data` is exactly what the route's OpenAPI response schema says (no property
 * missing, none extra): the app's generated types come from those schemas.
 */
export const conforms = <A, I>(schema: Schema.Schema<A, I>, data: unknown) => {
  Schema.decodeUnknownSync(schema, { errors: 'all', onExcessProperty: 'error' })(data)
  return data
}

export const patch = (b: unknown, headers: Record<string, string>): RequestInit => ({
  method: 'PATCH',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(b),
})

export const del = (headers: Record<string, string>): RequestInit => ({ method: 'DELETE', headers })

/** A WebSocket subscribed to one channel (or refused), with the answer frame. */
export const socketFor = async (s: TestServer, session: F.Session, channel: string) => {
  const res = await s.fetch('/v1/realtime/token', F.json({}, session.headers()))
  const { url } = ((await res.json()) as { data: { url: string } }).data
  const c = await connect(url)
  c.send({ op: 'subscribe', channel })
  const answer = await c.next((f) => f.channel === channel && (f.op === 'subscribed' || f.op === 'refused'))
  return { c, answer }
}

/** A multipart body: text fields and files. */
export const form = (
  fields: Record<string, string>,
  files: Array<{ field: string; name: string; type: string; bytes: Uint8Array }> = [],
) => {
  const fd = new FormData()
  for (const [k, v] of Object.entries(fields)) fd.append(k, v)
  for (const f of files) fd.append(f.field, new Blob([f.bytes], { type: f.type }), f.name)
  return fd
}

export const bytes = (size: number, seed = 7) => {
  const b = new Uint8Array(size)
  for (let i = 0; i < size; i++) b[i] = (i * 31 + seed) % 251
  return b
}
