import * as crypto from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Data, Effect } from 'effect'
import { type AppConfig, Config } from './config'

/**
 * Secrets kept at rest (mailbox passwords, messaging-app auth state): AES-256-GCM under one key.
 * The key comes from `SECRETS_KEY` (32 bytes as base64 or hex); without it a single node generates
 * `secrets.key` under DATA_DIR (mode 0600) on first use. A cluster must set `SECRETS_KEY`: keys
 * generated per node could not read each other's secrets, so that case is refused.
 *
 * Guarantees: a ciphertext names the key it was made with (first 8 hex of the key's SHA-256), so
 * a wrong key is a `SecretsError`, never garbage; GCM's tag rejects any tampering the same way.
 * Format: `v1.<keyid>.<iv>.<tag>.<ciphertext>`, the three last base64url.
 */
export class SecretsError extends Data.TaggedError('SecretsError')<{ readonly reason: string }> {}

const KEY_FILE = 'secrets.key'
const keys = new Map<string, Buffer>()

const parseKey = (raw: string): Buffer => {
  const s = raw.trim()
  const b = /^[0-9a-f]{64}$/i.test(s) ? Buffer.from(s, 'hex') : Buffer.from(s, 'base64')
  if (b.length !== 32) throw new SecretsError({ reason: 'SECRETS_KEY must be 32 bytes, as base64 or hex' })
  return b
}

/** The key of this configuration (read or generated once per process). */
export const keyOf = (cfg: Pick<AppConfig, 'secretsKey' | 'dataDir' | 'redisUrl'>): Buffer => {
  if (cfg.secretsKey) {
    const cached = keys.get(`env:${cfg.secretsKey}`)
    if (cached) return cached
    const k = parseKey(cfg.secretsKey)
    keys.set(`env:${cfg.secretsKey}`, k)
    return k
  }
  if (cfg.redisUrl) {
    throw new SecretsError({ reason: 'SECRETS_KEY is required when nodes share a cluster (REDIS_URL)' })
  }
  const file = path.join(cfg.dataDir, KEY_FILE)
  const cached = keys.get(`file:${file}`)
  if (cached) return cached
  let k: Buffer
  if (fs.existsSync(file)) k = parseKey(fs.readFileSync(file, 'utf8'))
  else {
    fs.mkdirSync(cfg.dataDir, { recursive: true })
    k = crypto.randomBytes(32)
    try {
      // `wx`: two processes racing on first use keep the first key written.
      fs.writeFileSync(file, k.toString('base64'), { mode: 0o600, flag: 'wx' })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      k = parseKey(fs.readFileSync(file, 'utf8'))
    }
  }
  keys.set(`file:${file}`, k)
  return k
}

const idOf = (key: Buffer) => crypto.createHash('sha256').update(key).digest('hex').slice(0, 8)

export const encryptWith = (key: Buffer, plaintext: string | Buffer): string => {
  const iv = crypto.randomBytes(12)
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv)
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()])
  const tag = cipher.getAuthTag()
  return [
    'v1',
    idOf(key),
    iv.toString('base64url'),
    tag.toString('base64url'),
    body.toString('base64url'),
  ].join('.')
}

export const decryptWith = (key: Buffer, sealed: string): Buffer => {
  const parts = sealed.split('.')
  if (parts.length !== 5 || parts[0] !== 'v1') throw new SecretsError({ reason: 'not a sealed secret' })
  if (parts[1] !== idOf(key)) throw new SecretsError({ reason: 'sealed with another key' })
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(parts[2]!, 'base64url'))
    decipher.setAuthTag(Buffer.from(parts[3]!, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(parts[4]!, 'base64url')), decipher.final()])
  } catch {
    throw new SecretsError({ reason: 'the secret does not match its tag' })
  }
}

const withKey = <A>(f: (key: Buffer) => A) =>
  Effect.flatMap(Config, (cfg) =>
    Effect.try({
      try: () => f(keyOf(cfg)),
      catch: (e) => (e instanceof SecretsError ? e : new SecretsError({ reason: String(e) })),
    }),
  )

export const encrypt = (plaintext: string | Buffer): Effect.Effect<string, SecretsError, Config> =>
  withKey((k) => encryptWith(k, plaintext))

export const decrypt = (sealed: string): Effect.Effect<Buffer, SecretsError, Config> =>
  withKey((k) => decryptWith(k, sealed))

export const decryptText = (sealed: string): Effect.Effect<string, SecretsError, Config> =>
  Effect.map(decrypt(sealed), (b) => b.toString('utf8'))
