import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseCommand, UsageError } from '../../social/cliArgs'
import { runCli } from '../../social/cliRun'
import type { ImportRecord } from '../../social/import'
import { freshEnv, get, ndjson, runSocialCli, type SocialTestServer, startSocialServer } from './support'

/**
 * The operator's path: bootstrap a workspace and keys, map an account, import NDJSON twice,
 * generate demo data; then the service started on the same database answers with what the CLI
 * made. The entry (`npm run social`) runs as a child process for its exit codes; the other
 * commands run in-process through the same runner (loading the service per command is slow).
 * With the embedded database the CLI and the service take turns (one process at a time).
 */
let env: NodeJS.ProcessEnv
let dir: string
let cleanup: () => Promise<void>
let workspaceId: number
let key1: string
let key2: string
let demoKey: string
let file: string

beforeAll(async () => {
  const fresh = await freshEnv()
  env = fresh.env
  dir = fresh.dir
  cleanup = fresh.cleanup
  file = path.join(dir, 'data.ndjson')
})
afterAll(() => cleanup?.())

const cli = async (args: readonly string[], input?: string) => {
  const r = await runCli(args, env, () => input ?? '')
  return { ...r, json: r.stdout.startsWith('{') ? JSON.parse(r.stdout) : undefined }
}

const records: ImportRecord[] = [
  { kind: 'channel', id: '17841400000000001', username: 'tokomaju.id' },
  {
    kind: 'conversation',
    id: 'c1',
    channel: '17841400000000001',
    type: 'reply',
    contact: 'dewi.lestari',
    created_at: '2026-06-01T19:00:00+07:00',
  },
  {
    kind: 'message',
    id: 'm1',
    conversation: 'c1',
    direction: 'in',
    author: 'dewi.lestari',
    text: 'Kak, bisa COD?',
    posted_at: '2026-06-01T19:00:00+07:00',
  },
  {
    kind: 'message',
    id: 'm2',
    conversation: 'c1',
    direction: 'out',
    author: 'tokomaju.id',
    text: 'Bisa Kak 😊',
    posted_at: '2026-06-01T19:02:00+07:00',
  },
  { kind: 'ticket', id: 't1', conversation: 'c1', subject: 'COD', created_at: '2026-06-01T19:05:00+07:00' },
]

describe('operator CLI', () => {
  it.each([
    [[], 'no command given'],
    [['bogus'], 'unknown command: bogus'],
    [['workspace', 'create'], '--name is required'],
    [['workspace', 'create', '--name', 'X', '--bogus'], "Unknown option '--bogus'"],
    [
      ['workspace', 'create', '--name', 'X', '--plan', 'free', '--pro-until', '2027-01-01'],
      'goes with --plan pro',
    ],
    [['plan', 'set', '--workspace', '1', '--plan', 'gold'], '--plan must be one of free, pro'],
    [
      ['plan', 'set', '--workspace', '1', '--plan', 'pro', '--pro-until', '2026-02-30'],
      'must be a date YYYY-MM-DD',
    ],
    [['key', 'create', '--workspace', 'abc', '--name', 'x'], '--workspace must be an integer'],
    [['key', 'revoke', '--workspace', '1'], '--key is required'],
    [['channel', 'add', '--workspace', '1', '--account-id', 'a b', '--username', 'x'], '--account-id'],
    [['import', '--workspace', '1'], '--file is required'],
    [['demo', '--days', '0'], '--days must be an integer from 1 to 730'],
  ])('refuses %j: %s', (args, msg) => {
    expect(() => parseCommand(args)).toThrow(UsageError)
    expect(() => parseCommand(args)).toThrow(msg)
  })

  it('the entry prints the message and the usage and exits 2 on bad arguments, 0 on --help', async () => {
    const [bad, help] = await Promise.all([
      runSocialCli(['key', 'create'], env),
      runSocialCli(['--help'], env),
    ])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/^kotak-social: --workspace is required\n\nUsage: npm run social/)
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('key revoke')
    const unreadable = await cli(['import', '--workspace', '1', '--file', path.join(dir, 'missing.ndjson')])
    expect(unreadable.code).toBe(2)
    expect(unreadable.stderr).toContain('cannot read --file')
  })

  it('the entry runs a command against the database and prints JSON', async () => {
    const r = await runSocialCli(['workspace', 'create', '--name', 'Toko Maju'], env)
    expect(r.code).toBe(0)
    const ws = JSON.parse(r.stdout)
    expect(ws.workspace).toMatchObject({ name: 'Toko Maju', plan: 'free', plan_active: false })
    workspaceId = ws.workspace.id
    const missing = await runSocialCli(['key', 'list', '--workspace', '999'], env)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe('kotak-social: no workspace 999 (see: workspace list)\n')
  }, 60_000)

  it('creates keys, shown once, and warns while the plan is Free', async () => {
    const k1 = await cli(['key', 'create', '--workspace', String(workspaceId), '--name', 'CRM sync'])
    expect(k1.code).toBe(0)
    expect(k1.json.key).toMatch(/^svcb_live_[A-Za-z0-9_-]{43}$/)
    expect(k1.json.prefix).toBe(k1.json.key.slice(0, 16))
    expect(k1.json.warning).toMatch(/402/)
    key1 = k1.json.key
    const plan = await cli([
      'plan',
      'set',
      '--workspace',
      String(workspaceId),
      '--plan',
      'pro',
      '--pro-until',
      '2099-12-31',
    ])
    expect(plan.json.workspace).toMatchObject({ plan: 'pro', pro_until: '2099-12-31', plan_active: true })
    const k2 = await cli(['key', 'create', '--workspace', String(workspaceId), '--name', 'to revoke'])
    expect(k2.json.warning).toBeUndefined()
    key2 = k2.json.key
    const revoked = await cli([
      'key',
      'revoke',
      '--workspace',
      String(workspaceId),
      '--key',
      String(k2.json.id),
    ])
    expect(revoked.json).toEqual({ key: { id: k2.json.id, revoked: true } })
    const again = await cli([
      'key',
      'revoke',
      '--workspace',
      String(workspaceId),
      '--key',
      String(k2.json.id),
    ])
    expect(again.code).toBe(1)
    const list = await cli(['key', 'list', '--workspace', String(workspaceId)])
    expect(list.json.keys).toHaveLength(2)
    expect(list.json.keys[1].revoked_at).not.toBeNull()
    expect(list.stdout).not.toContain(key1)
  }, 60_000)

  it('maps an account and imports a file twice: the second run creates nothing', async () => {
    const ch = await cli([
      'channel',
      'add',
      '--workspace',
      String(workspaceId),
      '--account-id',
      '17841400000000001',
      '--username',
      '@tokomaju.id',
    ])
    expect(ch.json.channel).toMatchObject({ account_id: '17841400000000001', username: 'tokomaju.id' })
    fs.writeFileSync(file, `${ndjson(records)}\n`)
    const first = await cli(['import', '--workspace', String(workspaceId), '--file', file])
    expect(first.code).toBe(0)
    expect(first.json).toMatchObject({
      workspace: workspaceId,
      lines: 5,
      created: { channel: 0, conversation: 1, message: 2, ticket: 1 },
      updated: { channel: 1 },
      refused: 0,
    })
    const second = await cli(['import', '--workspace', String(workspaceId), '--file', file])
    expect(second.code).toBe(0)
    expect(Object.values(second.json.created)).toEqual([0, 0, 0, 0, 0, 0, 0])
    expect(second.json.updated).toMatchObject({ channel: 1, conversation: 1, message: 2, ticket: 1 })
  }, 60_000)

  it('reads standard input, reports refused lines and exits 1', async () => {
    const bad = `${JSON.stringify({ kind: 'message', id: 'm3', conversation: 'c404', direction: 'in', author: 'x', posted_at: '2026-06-01T19:00:00Z' })}\n`
    const r = await cli(['import', '--workspace', String(workspaceId), '--file', '-'], bad)
    expect(r.code).toBe(1)
    expect(r.json).toMatchObject({ refused: 1, errors: [{ line: 1, message: 'unknown conversation c404' }] })
    expect(r.stderr).toContain('1 lines refused')
  }, 30_000)

  it('writes demo data to a file without touching the database, or makes a demo workspace', async () => {
    const out = path.join(dir, 'demo.ndjson')
    const written = await cli(['demo', '--out', out, '--days', '3', '--seed', '9'])
    expect(written.json).toMatchObject({ file: out, seed: 9, days: 3 })
    const lines = fs.readFileSync(out, 'utf8').trim().split('\n')
    expect(lines).toHaveLength(written.json.records)
    const kinds = new Set(lines.map((l) => JSON.parse(l).kind))
    expect(kinds).toEqual(
      new Set(['channel', 'conversation', 'message', 'status_change', 'ticket', 'ticket_comment', 'note']),
    )
    const demo = await cli(['demo', '--days', '3'])
    expect(demo.code).toBe(0)
    expect(demo.json.channels).toHaveLength(3)
    expect(demo.json.created.conversation).toBeGreaterThan(10)
    expect(demo.json.try).toContain('/api/v1/reports/summary')
    demoKey = demo.json.key
  }, 60_000)

  it('the service on the same database answers with what the CLI made', async () => {
    let s: SocialTestServer | undefined
    try {
      s = await startSocialServer({ env, onDisk: true })
      const list = await get(s, key1, '/api/v1/conversations')
      expect(list.status).toBe(200)
      expect(list.body.data).toHaveLength(1)
      expect(list.body.data[0]).toMatchObject({
        contact: { username: 'dewi.lestari' },
        status: 'replied',
        first_response_secs: 120,
        tickets: [{ number: 1, code: 'TKT-000001' }],
      })
      expect((await get(s, key2, '/api/v1/conversations')).status).toBe(401)
      const summary = await get(s, demoKey, '/api/v1/reports/summary')
      expect(summary.status).toBe(200)
      expect(summary.body.data.conversations).toBeGreaterThan(0)
      expect(summary.body.data.messages_in).toBeGreaterThan(0)
    } finally {
      await s?.stop()
    }
  }, 60_000)
})
