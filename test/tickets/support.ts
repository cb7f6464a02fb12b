import { api, type Who } from '../contacts/support'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import type { TestServer } from '../support/server'

/**
 * A workspace set up for the tickets suites: a Frontline agent with a conversation, two Back
 * Office teams, an admin, a member with view-all, a member outside every team, and keys.
 * Everyone acts through HTTP with their own session (or a key).
 */
export interface People {
  readonly w: F.Seeded
  readonly owner: Who
  /** Frontline agent (default Agent role: tickets.view and tickets.create). */
  readonly agent: Who
  readonly agentId: number
  /** Back Office members of `team` with tickets.manage. */
  readonly b1: Who
  readonly b1Id: number
  readonly b2: Who
  readonly b2Id: number
  /** A Back Office member of `otherTeam`. */
  readonly other: Who
  readonly otherId: number
  readonly admin: Who
  readonly viewAll: Who
  /** An Agent in no team. */
  readonly outsider: Who
  readonly outsiderId: number
  readonly readKey: Who
  readonly writeKey: Who
  readonly team: number
  readonly otherTeam: number
  readonly frontline: number
  readonly conversation: number
  readonly contact: number
  readonly sessions: Readonly<Record<string, F.Session>>
}

export const BACKOFFICE_PERMISSIONS = [
  'interactions.view',
  'interactions.reply',
  'tickets.view',
  'tickets.create',
  'tickets.manage',
  'contacts.view',
]

export const people = async (s: TestServer, plan: 'free' | 'pro' = 'pro'): Promise<People> => {
  const w = await F.workspace(s, { plan })
  const owner = await F.signIn(s, w.ownerEmail)
  const backRole = await I.role(s, w, BACKOFFICE_PERMISSIONS)
  const agent = await I.agent(s, w)
  const b1 = await I.agent(s, w, backRole)
  const b2 = await I.agent(s, w, backRole)
  const other = await I.agent(s, w, backRole)
  const admin = await I.agent(s, w, 'Admin')
  const viewAll = await I.agent(s, w)
  await I.setMember(s, w, viewAll.user.id, { viewAll: true })
  const outsider = await I.agent(s, w)
  const frontline = await I.team(s, w, [agent.user.id])
  const team = await I.team(s, w, [b1.user.id, b2.user.id], 'backoffice')
  const otherTeam = await I.team(s, w, [other.user.id], 'backoffice')
  const channel = await I.channel(s, w)
  const contact = await I.contact(s, w)
  const conversation = await I.conversation(s, w, {
    channelId: channel.id,
    contactId: contact.id,
    teamId: frontline,
  })
  return {
    w,
    owner: owner.headers(),
    agent: agent.session.headers(),
    agentId: agent.user.id,
    b1: b1.session.headers(),
    b1Id: b1.user.id,
    b2: b2.session.headers(),
    b2Id: b2.user.id,
    other: other.session.headers(),
    otherId: other.user.id,
    admin: admin.session.headers(),
    viewAll: viewAll.session.headers(),
    outsider: outsider.session.headers(),
    outsiderId: outsider.user.id,
    readKey: F.bearer(await F.apiKey(s, w, 'read')),
    writeKey: F.bearer(await F.apiKey(s, w, 'write')),
    team,
    otherTeam,
    frontline,
    conversation: conversation.id,
    contact: contact.id,
    sessions: {
      owner,
      agent: agent.session,
      b1: b1.session,
      b2: b2.session,
      other: other.session,
      admin: admin.session,
      viewAll: viewAll.session,
      outsider: outsider.session,
    },
  }
}

/** A ticket raised by the Frontline agent from the conversation, for `team`. */
export const raise = async (s: TestServer, p: People, extra: Record<string, unknown> = {}) => {
  const r = await api(s, p.agent).post('/v1/tickets', {
    subject: 'Refund not received',
    description: 'Customer paid twice',
    team_id: p.team,
    interaction_id: p.conversation,
    ...extra,
  })
  if (r.status !== 201) throw new Error(`create answered ${r.status}: ${JSON.stringify(r.error)}`)
  return r.data as { id: number; number: number } & Record<string, any>
}

export { api, type Who }
