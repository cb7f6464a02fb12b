import { type ChildProcess, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compiled, freePort, freshDatabase, runCli, tempDir } from './support/server'

/**
 * The operator's path on a fresh deployment: bootstrap with the CLI, run `npm start`'s entry (the
 * compiled dist/main.js) as a child process, restart it, and find everything still there.
 */
const root = path.resolve(__dirname, '..')
let env: NodeJS.ProcessEnv
let dir: string
let drop: (() => Promise<void>) | undefined

beforeAll(async () => {
  dir = tempDir('kotak-cli-')
  const port = await freePort()
  env = {
    ...process.env,
    DATA_DIR: dir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'warn',
    REDIS_PREFIX: `kotak_cli_${process.pid}:`,
  }
  if (process.env.DATABASE_URL) {
    const db = await freshDatabase(process.env.DATABASE_URL)
    env.DATABASE_URL = db.url
    drop = db.drop
  }
})
afterAll(async () => {
  await drop?.()
  fs.rmSync(dir, { recursive: true, force: true })
})

const startNode = async (): Promise<ChildProcess> => {
  const child = spawn(process.execPath, compiled('main.js'), {
    env,
    cwd: root,
    stdio: 'pipe',
  })
  let output = ''
  child.stdout?.on('data', (d) => {
    output += String(d)
  })
  child.stderr?.on('data', (d) => {
    output += String(d)
  })
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`)
    try {
      if ((await fetch(`${env.PUBLIC_URL}/healthz`)).ok) return child
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  child.kill('SIGKILL')
  throw new Error(`server did not start: ${output}`)
}

const stopNode = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code))
    child.kill('SIGTERM')
  })

describe('operator CLI and restart', () => {
  it('refuses bad arguments with a clear message and a non-zero exit', async () => {
    const none = await runCli([], env)
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/no command given/)
    expect(none.stderr).toMatch(/Usage:/)
    const plan = await runCli(
      [
        'workspace',
        'create',
        '--name',
        'Acme',
        '--owner-email',
        'a@x.io',
        '--owner-name',
        'A',
        '--plan',
        'gold',
      ],
      env,
    )
    expect(plan.code).toBe(2)
    expect(plan.stderr).toMatch(/--plan must be one of free, pro, custom/)
    const missing = await runCli(['workspace', 'create', '--name', 'Acme'], env)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/--owner-email is required/)
    const unknown = await runCli(['key', 'create', '--workspace', '999', '--name', 'x'], env)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/no workspace 999/)
    // The last call opened a fresh embedded database (its first start creates it): under a loaded
    // machine that alone can take half a minute.
  }, 120_000)

  it('bootstraps a workspace, a key and a sign-in link, and keeps them across a restart', async () => {
    const created = await runCli(
      [
        'workspace',
        'create',
        '--name',
        'Toko Maju',
        '--owner-email',
        'sari@toko.id',
        '--owner-name',
        'Sari',
        '--plan',
        'free',
      ],
      env,
    )
    expect(created.code, created.stderr).toBe(0)
    const ws = JSON.parse(created.stdout) as { workspace: { id: number; slug: string; plan: string } }
    expect(ws.workspace).toMatchObject({ slug: 'toko-maju', plan: 'free' })
    const id = String(ws.workspace.id)

    // `npm run kotak -- …` as in the README (the other calls run cli.ts directly, faster).
    const refused = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(
        'npm',
        ['run', '--silent', 'kotak', '--', 'key', 'create', '--workspace', id, '--name', 'ci'],
        {
          env,
          cwd: root,
        },
      )
      let stderr = ''
      child.stderr.on('data', (d) => {
        stderr += String(d)
      })
      child.on('exit', (code) => resolve({ code, stderr }))
    })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/free plan/)

    expect((await runCli(['workspace', 'plan', '--workspace', id, '--plan', 'pro'], env)).code).toBe(0)
    const key = await runCli(['key', 'create', '--workspace', id, '--name', 'ci', '--scope', 'read'], env)
    expect(key.code, key.stderr).toBe(0)
    const secret = (JSON.parse(key.stdout) as { key: string }).key
    expect(secret).toMatch(/^svca_live_[A-Za-z0-9_-]{43}$/)

    const link = await runCli(['login-link', '--email', 'SARI@toko.id'], env)
    expect(link.code, link.stderr).toBe(0)
    const url = (JSON.parse(link.stdout) as { url: string }).url
    expect(url.startsWith(`${env.PUBLIC_URL}/auth/link/`)).toBe(true)

    let node = await startNode()
    try {
      const me = await fetch(`${env.PUBLIC_URL}/v1/me`, { headers: { authorization: `Bearer ${secret}` } })
      expect(me.status).toBe(200)
      expect(((await me.json()) as { data: { workspace: { plan: string } } }).data.workspace.plan).toBe('pro')
    } finally {
      expect(await stopNode(node)).toBe(0)
    }

    node = await startNode()
    try {
      const me = await fetch(`${env.PUBLIC_URL}/v1/me`, { headers: { authorization: `Bearer ${secret}` } })
      expect(me.status).toBe(200)
      // The CLI beside the running node (on the embedded database, through the node's socket):
      // no stop needed for a new key or sign-in link.
      const beside = await runCli(
        ['key', 'create', '--workspace', id, '--name', 'beside', '--scope', 'read'],
        env,
      )
      expect(beside.code, beside.stderr).toBe(0)
      const besideKey = (JSON.parse(beside.stdout) as { key: string }).key
      const seen = await fetch(`${env.PUBLIC_URL}/v1/me`, {
        headers: { authorization: `Bearer ${besideKey}` },
      })
      expect(seen.status).toBe(200)
      // Changes the node holds in memory (its cached credentials and plan) reach it before the
      // CLI exits: through Redis, or the node's bus socket under DATA_DIR when there is none.
      const codeOf = async (res: Response) => [
        res.status,
        ((await res.json()) as { error?: { code: string } }).error?.code,
      ]
      const whoAmI = () =>
        fetch(`${env.PUBLIC_URL}/v1/me`, { headers: { authorization: `Bearer ${besideKey}` } })
      const write = () =>
        fetch(`${env.PUBLIC_URL}/v1/contacts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${besideKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Budi' }),
        })
      const cli = async (...args: string[]) => {
        const out = await runCli(args, env)
        expect(out.code, out.stderr).toBe(0)
        return JSON.parse(out.stdout) as unknown
      }
      await cli('workspace', 'plan', '--workspace', id, '--plan', 'free')
      expect(await codeOf(await whoAmI())).toEqual([402, 'plan_required'])
      await cli('workspace', 'plan', '--workspace', id, '--plan', 'pro')
      expect((await whoAmI()).status).toBe(200)
      expect(await codeOf(await write())).toEqual([403, 'forbidden'])
      await cli('workspace', 'freeze', '--workspace', id)
      expect(await codeOf(await write())).toEqual([423, 'workspace_frozen'])
      await cli('workspace', 'unfreeze', '--workspace', id)
      expect(await codeOf(await write())).toEqual([403, 'forbidden'])
      expect(await cli('billing', 'settle')).toEqual({ settled: [] })
      expect(await cli('reports', 'rebuild', '--workspace', id)).toEqual({
        rebuilt: [{ workspace: Number(id), facts_rolled: 0 }],
      })
      // Opening the link (as a link preview would) leads to its page and uses nothing.
      const opened = await fetch(url, { redirect: 'manual' })
      expect(opened.status).toBe(302)
      expect(opened.headers.get('location')).toMatch(/^\/app\/link\//)
      expect(opened.headers.getSetCookie()).toEqual([])
      // The page's button: a JSON POST to the same link.
      const press = () =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      const signIn = await press()
      expect(signIn.status).toBe(200)
      const cookies = signIn.headers.getSetCookie()
      expect(cookies.find((c) => c.startsWith('kotak_session='))).toMatch(/HttpOnly/)
      expect(cookies.find((c) => c.startsWith('kotak_csrf='))).not.toMatch(/HttpOnly/)
      // One-time: a second use is refused.
      expect((await press()).status).toBe(401)
    } finally {
      await stopNode(node)
    }

    // The report roll-ups recomputed from their facts (the figures themselves: test/reports).
    const rebuilt = await runCli(['reports', 'rebuild', '--workspace', id], env)
    expect(rebuilt.code, rebuilt.stderr).toBe(0)
    expect(JSON.parse(rebuilt.stdout)).toEqual({ rebuilt: [{ workspace: Number(id), facts_rolled: 0 }] })
    expect((await runCli(['reports', 'rebuild', '--workspace', 'x'], env)).code).toBe(2)
  }, 120_000)
})
