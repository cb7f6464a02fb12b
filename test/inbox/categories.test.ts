import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as I from './support'

/** Spec 2 §4.2 conversation categories: tree order, 3 levels, 200, unique per parent, moves, deletes. */
let s: TestServer
beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
})
afterAll(() => s?.stop())

const setup = async () => {
  const w = await F.workspace(s, { plan: 'free' })
  const session = await F.signIn(s, w.ownerEmail)
  const create = (b: Record<string, unknown>) =>
    s
      .fetch('/v1/conversation-categories', F.json(b, session.headers()))
      .then(async (r) => ({ status: r.status, ...(await I.body(r)) }) as any)
  const update = (id: number, b: Record<string, unknown>) =>
    s
      .fetch(`/v1/conversation-categories/${id}`, I.patch(b, session.headers()))
      .then(async (r) => ({ status: r.status, ...(await I.body(r)) }) as any)
  const tree = () => s.fetch('/v1/conversation-categories', { headers: session.headers() }).then(I.body)
  return { w, session, create, update, tree }
}

describe('conversation categories', () => {
  it('lists in tree order with depth, path_text and children_count', async () => {
    const { create, tree } = await setup()
    const sales = (await create({ name: 'Sales', color: '#ff0000' })).data
    const support = (await create({ name: 'Support' })).data
    const leads = (await create({ name: 'Leads', parent_id: sales.id })).data
    const hot = (await create({ name: 'Hot', parent_id: leads.id })).data
    const deals = (await create({ name: 'Deals', parent_id: sales.id, position: 0 })).data
    const t = await tree()
    expect(t.data.map((c: any) => c.path_text)).toEqual([
      'Sales',
      'Sales › Deals',
      'Sales › Leads',
      'Sales › Leads › Hot',
      'Support',
    ])
    expect(t.data.find((c: any) => c.id === sales.id)).toMatchObject({
      depth: 0,
      children_count: 2,
      color: '#ff0000',
      parent_id: null,
    })
    expect(t.data.find((c: any) => c.id === hot.id)).toMatchObject({
      depth: 2,
      children_count: 0,
      parent_id: leads.id,
    })
    expect(t.meta).toEqual({ total: 5, limit: 200, max_depth: 3 })
    expect([support.id, deals.id].every(Number.isInteger)).toBe(true)
  })

  it('refuses a fourth level, a duplicate name under the same parent, and a bad color', async () => {
    const { create } = await setup()
    const a = (await create({ name: 'A' })).data
    const b = (await create({ name: 'B', parent_id: a.id })).data
    const c = (await create({ name: 'C', parent_id: b.id })).data
    const d = await create({ name: 'D', parent_id: c.id })
    expect(d.status).toBe(422)
    expect(d.error.fields).toEqual({ parent_id: 'categories can be at most 3 levels deep' })
    expect((await create({ name: 'b', parent_id: a.id })).error.fields).toEqual({
      name: 'is already used here',
    })
    // The same name under another parent is fine.
    expect((await create({ name: 'B' })).status).toBe(201)
    expect((await create({ name: 'X', color: 'red' })).status).toBe(422)
  })

  it('holds 200 categories per workspace, also under concurrent creates', async () => {
    const { w, create } = await setup()
    await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`INSERT INTO conversation_categories (workspace_id, name)
          SELECT ${w.workspaceId}, 'c' || g FROM generate_series(1, 195) g`,
      ),
    )
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => create({ name: `new ${i}` })))
    expect(results.filter((r) => r.status === 201)).toHaveLength(5)
    const refused = results.filter((r) => r.status !== 201)
    expect(
      refused.every(
        (r) =>
          r.status === 409 && r.error.message === 'A workspace can have at most 200 conversation categories.',
      ),
    ).toBe(true)
  })

  it('moves without cycles and within 3 levels, renames and reorders', async () => {
    const { create, update, tree } = await setup()
    const a = (await create({ name: 'A' })).data
    const b = (await create({ name: 'B', parent_id: a.id })).data
    const c = (await create({ name: 'C', parent_id: b.id })).data
    const x = (await create({ name: 'X' })).data
    const y = (await create({ name: 'Y', parent_id: x.id })).data
    expect((await update(a.id, { parent_id: c.id })).error.fields.parent_id).toMatch(
      /itself or its subcategories/,
    )
    expect((await update(a.id, { parent_id: a.id })).error.fields.parent_id).toMatch(/itself/)
    // B carries C below it: under Y (depth 1) it would reach a fourth level.
    expect((await update(b.id, { parent_id: y.id })).error.fields.parent_id).toMatch(/3 levels/)
    const moved = await update(b.id, { parent_id: x.id, name: 'B2', position: 5 })
    expect(moved.data).toMatchObject({
      parent_id: x.id,
      name: 'B2',
      depth: 1,
      path_text: 'X › B2',
      position: 5,
    })
    expect((await tree()).data.find((n: any) => n.id === c.id).path_text).toBe('X › B2 › C')
    const top = await update(c.id, { parent_id: null })
    expect(top.data).toMatchObject({ depth: 0, parent_id: null, path_text: 'C' })
    expect((await update(y.id, { name: 'b2' })).error.fields.name).toBe('is already used here')
    expect((await update(999_999, { name: 'nope' })).status).toBe(404)
  })

  it('deletes by moving subcategories and conversations to the parent (uncategorized at top level)', async () => {
    const { w, session, create, tree } = await setup()
    const top = (await create({ name: 'Top' })).data
    const mid = (await create({ name: 'Mid', parent_id: top.id })).data
    const leaf = (await create({ name: 'Leaf', parent_id: mid.id })).data
    await create({ name: 'Leaf', parent_id: top.id })
    const inMid = await I.conversation(s, w)
    const inTop = await I.conversation(s, w)
    await s.fetch(`/v1/interactions/${inMid.id}`, I.patch({ category_id: mid.id }, session.headers()))
    await s.fetch(`/v1/interactions/${inTop.id}`, I.patch({ category_id: top.id }, session.headers()))
    const del = await I.body(await s.fetch(`/v1/conversation-categories/${mid.id}`, I.del(session.headers())))
    expect(del.data).toEqual({ id: mid.id, deleted: true, moved_to: top.id, conversations_moved: 1 })
    const t = await tree()
    // The moved child keeps its id; its name is made unique under the new parent.
    expect(t.data.find((n: any) => n.id === leaf.id)).toMatchObject({
      parent_id: top.id,
      name: 'Leaf (2)',
      depth: 1,
    })
    const detail = async (id: number) =>
      (await I.body(await s.fetch(`/v1/interactions/${id}`, { headers: session.headers() }))).data
    expect((await detail(inMid.id)).category).toEqual({ id: top.id, name: 'Top' })
    await s.fetch(`/v1/conversation-categories/${top.id}`, I.del(session.headers()))
    expect((await detail(inTop.id)).category).toBeNull()
    expect((await detail(inMid.id)).category).toBeNull()
    // Both leaves are top level now, each keeping its position (0 and 1).
    expect((await tree()).data.map((n: any) => [n.name, n.depth, n.position])).toEqual([
      ['Leaf (2)', 0, 0],
      ['Leaf', 0, 1],
    ])
  })

  it('names equal only as the database lowers them (Greek final sigma) answer 422, not 500', async () => {
    // JavaScript lowers `ΑΣ` to `ας` (final sigma), PostgreSQL to `ασ`: the in-memory check lets
    // the name through and the unique index refuses it. The answer is the duplicate's 422.
    const { session, create, update, tree } = await setup()
    const taken = {
      status: 422,
      error: { code: 'validation_error', fields: { name: 'is already used here' } },
    }
    expect((await create({ name: 'ΑΣ' })).status).toBe(201)
    expect(await create({ name: 'ασ' })).toMatchObject(taken)
    const other = (await create({ name: 'Other' })).data
    expect(await update(other.id, { name: 'ασ' })).toMatchObject(taken)
    // A subcategory moved up by a delete gets a free name there instead of a 500.
    const child = (await create({ name: 'ασ', parent_id: other.id })).data
    const del = await s.fetch(`/v1/conversation-categories/${other.id}`, I.del(session.headers()))
    expect(del.status).toBe(200)
    expect((await tree()).data.find((n: any) => n.id === child.id)).toMatchObject({
      parent_id: null,
      name: 'ασ (2)',
    })
  })

  it('deletes a category whose subcategory has its name: the subcategory moves up and keeps it', async () => {
    const { session, create, tree } = await setup()
    for (const [top, below] of [
      ['Foo', 'foo'],
      ['Bar', 'Bar'],
    ]) {
      const parent = (await create({ name: top })).data
      const sub = (await create({ name: below, parent_id: parent.id })).data
      const del = await s.fetch(`/v1/conversation-categories/${parent.id}`, I.del(session.headers()))
      expect(del.status).toBe(200)
      expect((await tree()).data.find((n: any) => n.id === sub.id)).toMatchObject({
        parent_id: null,
        name: below,
        depth: 0,
      })
    }
  })

  it('a conversation moved by a category delete: its next message tells the moved category', async () => {
    // The ConversationActor keeps its row in memory; the delete moves the row behind its back. The
    // next append must notice (the write's version guard) and not answer with the old category.
    const { w, session, create } = await setup()
    const top = (await create({ name: 'Top' })).data
    const mid = (await create({ name: 'Mid', parent_id: top.id })).data
    const conv = await I.conversation(s, w)
    await I.inbound(s, conv.id, 'first')
    await s.fetch(`/v1/interactions/${conv.id}`, I.patch({ category_id: mid.id }, session.headers()))
    await s.fetch(`/v1/interactions/${conv.id}`, I.patch({ status: 'solved' }, session.headers()))
    await s.fetch(`/v1/conversation-categories/${mid.id}`, I.del(session.headers()))
    const { c } = await I.socketFor(s, session, `conv:${conv.id}`)
    // The customer comes back: the conversation reopens, and `interaction.updated` says so.
    await I.inbound(s, conv.id, 'back again')
    const updated = await c.next((f) => f.event === 'interaction.updated')
    expect(updated.data).toMatchObject({ id: conv.id, status: 'open', category_id: top.id })
    c.close()
  })

  it('lets interactions.view or contacts.view read; writes need contacts.manage in the app', async () => {
    const { w, session } = await setup()
    const agent = await I.agent(s, w)
    expect((await s.fetch('/v1/conversation-categories', { headers: agent.session.headers() })).status).toBe(
      200,
    )
    expect(
      (await s.fetch('/v1/conversation-categories', F.json({ name: 'x' }, agent.session.headers()))).status,
    ).toBe(403)
    const contactsOnly = await I.agent(s, w, await I.role(s, w, ['contacts.view']))
    expect(
      (await s.fetch('/v1/conversation-categories', { headers: contactsOnly.session.headers() })).status,
    ).toBe(200)
    const neither = await I.agent(s, w, await I.role(s, w, ['dashboard.view']))
    expect(
      (await s.fetch('/v1/conversation-categories', { headers: neither.session.headers() })).status,
    ).toBe(403)
    expect(
      (await s.fetch('/v1/conversation-categories', F.json({ name: 'ok' }, session.headers()))).status,
    ).toBe(201)
  })
})
