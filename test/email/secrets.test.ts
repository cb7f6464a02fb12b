import * as fs from 'node:fs'
import * as path from 'node:path'
import { Effect, Layer } from 'effect'
import { describe, expect, it } from 'vitest'
import { Config, loadConfig } from '../../engine/config'
import { decryptText, decryptWith, encrypt, encryptWith, keyOf } from '../../engine/secrets'
import { tempDir } from '../support/server'

describe('secrets at rest', () => {
  it('round-trips with SECRETS_KEY and refuses another key or a tampered text', () => {
    const a = keyOf({ secretsKey: 'a'.repeat(64), dataDir: '/nonexistent', redisUrl: undefined })
    const b = keyOf({
      secretsKey: Buffer.alloc(32, 7).toString('base64'),
      dataDir: '/x',
      redisUrl: 'redis://x',
    })
    const sealed = encryptWith(a, 'hunter2')
    expect(sealed).not.toContain('hunter2')
    expect(decryptWith(a, sealed).toString()).toBe('hunter2')
    expect(() => decryptWith(b, sealed)).toThrow()
    const parts = sealed.split('.')
    parts[4] = Buffer.from('other').toString('base64url')
    expect(() => decryptWith(a, parts.join('.'))).toThrow()
    expect(() => keyOf({ secretsKey: 'short', dataDir: '/x', redisUrl: undefined })).toThrow()
  })

  it('generates a private key file under DATA_DIR on one node, and refuses a cluster without SECRETS_KEY', async () => {
    const dir = tempDir()
    const cfg = { ...loadConfig({ DATA_DIR: dir }), secretsKey: undefined, redisUrl: undefined }
    const layer = Layer.succeed(Config, cfg)
    const sealed = await Effect.runPromise(encrypt('pw').pipe(Effect.provide(layer)))
    const file = path.join(dir, 'secrets.key')
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(await Effect.runPromise(decryptText(sealed).pipe(Effect.provide(layer)))).toBe('pw')
    const cluster = Layer.succeed(Config, { ...cfg, redisUrl: 'redis://127.0.0.1:1' })
    const r = await Effect.runPromise(Effect.either(encrypt('pw').pipe(Effect.provide(cluster))))
    expect(r._tag).toBe('Left')
    fs.rmSync(dir, { recursive: true, force: true })
  })
})
