import { afterAll, beforeAll, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'
import * as I from './support'

/**
 * Alerts (docs/decisions.md, "Alerts"): a conversation assigned to someone else gives them a
 * notification (`interaction.assigned`, link `/interactions/{id}`), live on `user:{id}`; taking it
 * oneself, or leaving the assignee as it was, gives none.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

const notes = async (session: F.Session) =>
  I.body(await s.fetch('/v1/notifications', { headers: session.headers() }))

it('tells the new assignee, live and in their list, and nobody when people take it themselves', async () => {
  const agent = await I.agent(s, w)
  const contact = await I.contact(s, w, { name: 'Sari Wulandari' })
  const c = await I.conversation(s, w, { contactId: contact.id })
  const token = await I.body(
    await s.fetch(
      '/v1/realtime/token',
      F.json({ channels: [`user:${agent.user.id}`] }, agent.session.headers()),
    ),
  )
  const ws = await connect(token.data.url)
  await ws.next((f) => f.op === 'subscribed')

  const r = await s.fetch(
    `/v1/interactions/${c.id}`,
    I.patch({ assignee_id: agent.user.id }, owner.headers()),
  )
  expect(r.status, await r.clone().text()).toBe(200)
  const live = await ws.next((f) => f.event === 'notification.created')
  expect(live.data).toMatchObject({
    kind: 'interaction.assigned',
    link: `/interactions/${c.id}`,
    body: 'Sari Wulandari',
    read: false,
    data: { interaction_id: c.id, by: w.ownerId, by_name: expect.any(String) },
  })
  const list = await notes(agent.session)
  expect(list.meta.unread).toBe(1)
  expect(list.data[0]).toMatchObject({ kind: 'interaction.assigned', link: `/interactions/${c.id}` })

  // The same assignee again, a status change: nothing new.
  await s.fetch(`/v1/interactions/${c.id}`, I.patch({ assignee_id: agent.user.id }, owner.headers()))
  await s.fetch(`/v1/interactions/${c.id}`, I.patch({ status: 'solved' }, owner.headers()))
  expect((await notes(agent.session)).meta.unread).toBe(1)
  ws.close()

  // The owner takes another one: no notification for oneself.
  const mine = await I.conversation(s, w, { contactId: contact.id })
  const before = (await notes(owner)).data.length
  const t = await s.fetch(`/v1/interactions/${mine.id}`, I.patch({ assignee_id: w.ownerId }, owner.headers()))
  expect(t.status).toBe(200)
  expect((await notes(owner)).data.length).toBe(before)
})
