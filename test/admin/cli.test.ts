import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { runCli, startTestServer, type TestServer } from '../support/server'

/**
 * The operator's administration commands, as an operator runs them: a child process on the same
 * database as the server (on the embedded database, on disk under DATA_DIR where the CLI looks).
 */
let s: TestServer
beforeAll(async () => {
  s = await startTestServer({}, { durable: true })
})
afterAll(() => s?.stop())

const body = async (res: Response) => (await res.json()) as Record<string, any>

/** Beside the running server: it hears each change over Redis, or its bus socket without Redis. */
const cli = (args: readonly string[]) => runCli(args, s.env)

describe('operator CLI: billing and plan requests', () => {
  it('confirms a local payment, lists plan requests, sets a Custom workspace allowance', async () => {
    const w = await F.workspace(s, { plan: 'free' })
    const owner = await F.signIn(s, w.ownerEmail)
    const up = (await body(await s.fetch('/v1/billing/upgrade', F.json({ months: 1 }, owner.headers())))).data
    const sent = await s.fetch(
      '/v1/plan-requests',
      F.json({ name: 'Rina', email: 'rina@corp.example', message: 'Please call us about 50 agents.' }),
    )
    expect(sent.status).toBe(201)

    const confirm = await cli(['billing', 'confirm', '--invoice', up.invoice.number])
    expect(confirm.stderr).toBe('')
    expect(JSON.parse(confirm.stdout)).toEqual({ invoice: up.invoice.number, result: 'paid' })
    const ws = (await body(await s.fetch('/v1/workspace', { headers: owner.headers() }))).data
    expect(ws.plan).toBe('pro')

    const list = await cli(['plan-requests', '--limit', '5'])
    expect(list.code).toBe(0)
    expect(JSON.parse(list.stdout).plan_requests[0]).toMatchObject({
      email: 'rina@corp.example',
      name: 'Rina',
    })

    const custom = await cli([
      'workspace',
      'plan',
      '--workspace',
      String(w.workspaceId),
      '--plan',
      'custom',
      '--workspaces',
      '3',
    ])
    expect(custom.code).toBe(0)
    expect(JSON.parse(custom.stdout).workspace).toMatchObject({ plan: 'custom', contract_workspaces: 3 })
    const meta = (await body(await s.fetch('/v1/workspaces', { headers: owner.headers() }))).meta
    expect(meta.create).toBe(true)
    expect(meta.create_limit).toMatchObject({ limit: 3 })
  }, 120_000)
})
