import * as os from 'node:os'
import * as path from 'node:path'
import { Context } from 'effect'

/**
 * Every setting the service reads from its environment, parsed once at start. The README's
 * environment table mirrors this list; keep them together.
 */
export interface AppConfig {
  readonly port: number
  readonly host: string
  readonly publicUrl: string
  readonly dataDir: string
  /** Where private files (message media, attachments) are stored on local disk. */
  readonly filesDir: string
  /** PostgreSQL URL; absent means the embedded database under `dataDir`. */
  readonly databaseUrl: string | undefined
  /**
   * Bounds on the database pool (store/pool.ts): a statement that waited `waitMs` for a connection
   * fails (503); `strict` (the test suite, `DB_STRICT=1`) records each wait the guard broke.
   */
  readonly db: {
    readonly waitMs: number
    readonly queryTimeoutMs: number
    readonly strict: boolean
    /** `DB_PREPARED` (default on): statements prepared by name on PostgreSQL (store/prepared.ts). */
    readonly prepared: boolean
  }
  /** Redis URL; absent means in-process rate limits and bus. */
  readonly redisUrl: string | undefined
  /** Prefix of every Redis key, so several deployments (or test runs) can share one Redis. */
  readonly redisPrefix: string
  readonly oidc:
    | {
        readonly issuer: string
        readonly clientId: string
        readonly clientSecret: string
        /** Allows an `http://` issuer (local identity providers, tests). */
        readonly allowInsecure: boolean
        /**
         * Takes the provider's e-mail addresses as verified without `email_verified: true` (a
         * company directory that only issues addresses its people own, and omits the claim).
         */
        readonly trustEmail: boolean
      }
    | undefined
  readonly allowUwsFallback: boolean
  readonly maxBodyBytes: number
  readonly sessionTtlHours: number
  /** Requests per minute per API key (spec: 120). Benchmarks raise it to measure throughput. */
  readonly rateLimitPerKey: number
  /** Requests per minute per signed-in person in the app (600, docs/decisions.md); tests sweeping every route raise it. */
  readonly rateLimitPerSession: number
  /** A WebSocket silent this long (no pong to the server's pings) is closed. */
  readonly realtimeIdleSeconds: number
  /** Requests per minute one API channel's key may make (`RATE_LIMIT_PER_CHANNEL_KEY`). */
  readonly rateLimitPerChannelKey: number
  /** Reverse proxies in front of the nodes whose `X-Forwarded-For` entries are trusted (0 = none). */
  readonly trustProxy: number
  /** Webhooks may go to private, loopback and link-local addresses (self-hosted networks, tests). */
  readonly webhookAllowPrivate: boolean
  /** First webhook retry after this long; each later one waits three times longer. */
  readonly webhookRetryBaseMs: number
  /**
   * `real` (default): each channel type's own connector carries its messages. `local`: every
   * channel uses the stand-in that delivers nowhere (demos, and tests of the inbox itself).
   */
  readonly connectors: 'real' | 'local'
  /** Cluster mode (`redisUrl` set): how nodes reach each other and how fast shards fail over. */
  readonly cluster: ClusterConfig
  /** SMTP server for the service's own mail (invitations); absent = no mail is sent. */
  readonly smtpUrl: string | undefined
  /** Sender of the service's own mail. */
  readonly mailFrom: string
  /** Secret that signs the local payment provider's callbacks; absent = only the CLI confirms. */
  readonly paymentCallbackSecret: string | undefined
  /** Public key of the live chat shown on the demo page (`GET /v1/public/demo-livechat`). */
  readonly demoLivechatKey: string | undefined
  /** Live chat: a start form sent sooner than this after its form token was issued is refused (scripted abuse). */
  readonly livechatMinFillMs: number
  /** Live chat: chats one address may start per minute. */
  readonly livechatStartsPerMinute: number
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error' | 'none'
  /** Key (32 bytes, base64 or hex) that encrypts stored secrets; absent = a key file under DATA_DIR (one node only). */
  readonly secretsKey: string | undefined
  /** Mailboxes may be reached without TLS and on private addresses (self-hosted networks, tests). */
  readonly emailAllowInsecure: boolean
  /** How often each node looks for added, changed or removed e-mail channels. */
  readonly emailPollMs: number
  /** First pause after a failed mailbox sign-in; each later one is three times longer (at most 1 hour). */
  readonly emailBackoffBaseMs: number
  /** `baileys` (default) or `test`: the messaging-app transport; `test` is for the test suite only. */
  readonly msgappTransport: 'baileys' | 'test'
  /**
   * With the test transport: the URL of a stand-in messaging service on loopback that the sockets
   * talk to (cluster tests, whose nodes are other processes); absent = in-process only.
   */
  readonly msgappTestService: string | undefined
  /** How often each node looks for added, changed or removed messaging-app numbers. */
  readonly msgappPollMs: number
  /** First reconnect delay after a dropped number connection; doubles per failure (±50 % jitter, at most 5 min). */
  readonly msgappBackoffBaseMs: number
  /** Least gap between two sends of one number (jittered ±50 %); bursts are spaced, single replies are not delayed. */
  readonly msgappPaceMs: number
  /** The AI provider (an OpenAI-compatible HTTP API); absent = AI features off (503 `ai_unavailable`). */
  readonly ai: AiConfig | undefined
  /** Knowledge base embedding queue: how long a node holds an article it took, and how often it looks for work. */
  readonly kbEmbedLeaseMs: number
  readonly kbEmbedPollMs: number
  /** A failed embedding is tried again after this long, then three times longer; the third failure is final. */
  readonly kbEmbedRetryBaseMs: number
  /**
   * How often each node looks for broadcasts to send, and the longest a sender sleeps between two
   * readings of the clock while it waits (pace, quiet hours, a scheduled start).
   */
  readonly broadcastPollMs: number
  /**
   * How often each node rolls report facts up (actors/reports/rollup.ts); 0: every 5 s on
   * PostgreSQL, every second on the embedded database (one connection: smaller runs).
   */
  readonly reportsRollupMs: number
}

export interface AiConfig {
  /** Base URL of the API, ending before `/chat/completions` (`https://api.openai.com/v1`, `http://localhost:11434/v1`). */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer …`; local servers often need none. */
  readonly apiKey: string | undefined
  readonly chatModel: string
  readonly embeddingModel: string
  /** Asked of the embedding model (`dimensions`) and checked on every answer; absent = the model's own. */
  readonly dimensions: number | undefined
  /** Longest wait for one answer. */
  readonly timeoutMs: number
  /** Further attempts after a timeout, a refused connection, 429 or 5xx (backoff doubling from `retryBaseMs`). */
  readonly retries: number
  readonly retryBaseMs: number
}

export interface ClusterConfig {
  /** Address the other nodes reach this node's internal port at (advertised through Redis). */
  readonly host: string
  /** Internal port for messages between nodes; 0 = any free port (advertised through Redis). */
  readonly port: number
  /** Shard lease: a node that stops renewing (killed, cut off from Redis) loses its shards this long after its last renewal. */
  readonly leaseMs: number
  /**
   * A node whose heartbeat (sent every quarter of this) is older than this counts as gone: the
   * others drop it from the ring and take its shards at once, lease or not. Its writes are fenced
   * by the shards' epochs (engine/cluster/epochs.ts), so a node that was only frozen cannot write
   * for the shards it lost.
   */
  readonly deadMs: number
  /** Longest wait for an actor's answer in cluster mode; then 503 `unavailable`. */
  readonly askTimeoutMs: number
  /** Shards the entities are spread over; the same on every node. */
  readonly shards: number
  /** Port of a loopback-only endpoint that asks actors directly, for the cluster tests; unset = none. */
  readonly testPort: number | undefined
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

const int = (env: NodeJS.ProcessEnv, key: string, fallback: number, min: number, max: number): number => {
  const raw = env[key]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${key} must be an integer from ${min} to ${max}, got "${raw}"`)
  }
  return n
}

const bool = (env: NodeJS.ProcessEnv, key: string): boolean => /^(1|true|yes)$/i.test(env[key] ?? '')

const nonEmpty = (env: NodeJS.ProcessEnv, key: string): string | undefined => {
  const v = env[key]?.trim()
  return v ? v : undefined
}

const ANY_ADDRESS = new Set(['0.0.0.0', '::', '[::]'])

const clusterConfig = (env: NodeJS.ProcessEnv): ClusterConfig => {
  const host = nonEmpty(env, 'HOST')
  const testPort = int(env, 'CLUSTER_TEST_PORT', -1, 0, 65535)
  return {
    host: nonEmpty(env, 'CLUSTER_HOST') ?? (host && !ANY_ADDRESS.has(host) ? host : os.hostname()),
    port: int(env, 'CLUSTER_PORT', 0, 0, 65535),
    leaseMs: int(env, 'CLUSTER_LEASE_MS', 8_000, 1_000, 120_000),
    deadMs: int(env, 'CLUSTER_DEAD_MS', 1_000, 200, 60_000),
    askTimeoutMs: int(env, 'CLUSTER_ASK_TIMEOUT_MS', 5_000, 100, 120_000),
    shards: int(env, 'CLUSTER_SHARDS', 300, 1, 10_000),
    testPort: testPort < 0 ? undefined : testPort,
  }
}

const smtpUrl = (env: NodeJS.ProcessEnv): string | undefined => {
  const url = nonEmpty(env, 'SMTP_URL')
  if (url && !/^smtps?:\/\/[^/\s]+/i.test(url)) {
    throw new ConfigError('SMTP_URL must look like smtp://user:pass@host:587 or smtps://host:465')
  }
  return url
}

const aiConfig = (env: NodeJS.ProcessEnv): AiConfig | undefined => {
  const baseUrl = nonEmpty(env, 'AI_BASE_URL')
  if (!baseUrl) return undefined
  if (!/^https?:\/\/[^/\s]+/i.test(baseUrl)) {
    throw new ConfigError('AI_BASE_URL must look like https://api.openai.com/v1 or http://localhost:11434/v1')
  }
  const dimensions = int(env, 'AI_EMBEDDING_DIMENSIONS', 0, 0, 16_000)
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey: nonEmpty(env, 'AI_API_KEY'),
    chatModel: nonEmpty(env, 'AI_CHAT_MODEL') ?? 'gpt-4o-mini',
    embeddingModel: nonEmpty(env, 'AI_EMBEDDING_MODEL') ?? 'text-embedding-3-small',
    dimensions: dimensions === 0 ? undefined : dimensions,
    timeoutMs: int(env, 'AI_TIMEOUT_MS', 30_000, 100, 600_000),
    retries: int(env, 'AI_RETRIES', 2, 0, 10),
    retryBaseMs: int(env, 'AI_RETRY_BASE_MS', 500, 1, 60_000),
  }
}

/** The host part of PUBLIC_URL, for the default sender address. */
const mailHost = (env: NodeJS.ProcessEnv, port: number): string => {
  try {
    return new URL(nonEmpty(env, 'PUBLIC_URL') ?? `http://localhost:${port}`).hostname || 'localhost'
  } catch {
    return 'localhost'
  }
}

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): AppConfig => {
  const port = int(env, 'PORT', 8080, 0, 65535)
  const issuer = nonEmpty(env, 'OIDC_ISSUER')
  const clientId = nonEmpty(env, 'OIDC_CLIENT_ID')
  const clientSecret = nonEmpty(env, 'OIDC_CLIENT_SECRET')
  if (issuer && (!clientId || !clientSecret)) {
    throw new ConfigError('OIDC_ISSUER is set: OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are required too')
  }
  const logLevel = (nonEmpty(env, 'LOG_LEVEL') ?? 'info').toLowerCase()
  if (!['debug', 'info', 'warn', 'error', 'none'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be debug, info, warn, error or none, got "${logLevel}"`)
  }
  return {
    port,
    host: nonEmpty(env, 'HOST') ?? '0.0.0.0',
    publicUrl: (nonEmpty(env, 'PUBLIC_URL') ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    dataDir: path.resolve(nonEmpty(env, 'DATA_DIR') ?? './data'),
    filesDir: path.resolve(
      nonEmpty(env, 'FILES_DIR') ?? path.join(nonEmpty(env, 'DATA_DIR') ?? './data', 'files'),
    ),
    databaseUrl: nonEmpty(env, 'DATABASE_URL'),
    db: {
      waitMs: int(env, 'DB_WAIT_MS', 5000, 100, 600_000),
      queryTimeoutMs: int(env, 'DB_QUERY_TIMEOUT_MS', 30_000, 100, 3_600_000),
      strict: bool(env, 'DB_STRICT'),
      prepared: !/^(0|false|no|off)$/i.test(env.DB_PREPARED ?? ''),
    },
    redisUrl: nonEmpty(env, 'REDIS_URL'),
    redisPrefix: nonEmpty(env, 'REDIS_PREFIX') ?? 'kotak:',
    oidc:
      issuer && clientId && clientSecret
        ? {
            issuer,
            clientId,
            clientSecret,
            allowInsecure: bool(env, 'OIDC_ALLOW_INSECURE'),
            trustEmail: bool(env, 'OIDC_TRUST_EMAIL'),
          }
        : undefined,
    allowUwsFallback: bool(env, 'UWS_ALLOW_FALLBACK'),
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', 1_048_576, 1024, 1_073_741_824),
    sessionTtlHours: int(env, 'SESSION_TTL_HOURS', 336, 1, 8760),
    rateLimitPerKey: int(env, 'RATE_LIMIT_PER_KEY', 120, 1, 100_000_000),
    rateLimitPerSession: int(env, 'RATE_LIMIT_PER_SESSION', 600, 1, 100_000_000),
    rateLimitPerChannelKey: int(env, 'RATE_LIMIT_PER_CHANNEL_KEY', 6000, 1, 100_000_000),
    trustProxy: int(env, 'TRUST_PROXY', 0, 0, 10),
    webhookAllowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE'),
    webhookRetryBaseMs: int(env, 'WEBHOOK_RETRY_BASE_MS', 10_000, 10, 3_600_000),
    realtimeIdleSeconds: int(env, 'REALTIME_IDLE_SECONDS', 60, 8, 960),
    connectors: env.CONNECTORS === 'local' ? 'local' : 'real',
    cluster: clusterConfig(env),
    smtpUrl: smtpUrl(env),
    mailFrom: nonEmpty(env, 'MAIL_FROM') ?? `Kotak <no-reply@${mailHost(env, port)}>`,
    paymentCallbackSecret: nonEmpty(env, 'PAYMENT_CALLBACK_SECRET'),
    demoLivechatKey: nonEmpty(env, 'DEMO_LIVECHAT_KEY'),
    livechatMinFillMs: int(env, 'LIVECHAT_MIN_FILL_MS', 2000, 0, 60_000),
    livechatStartsPerMinute: int(env, 'LIVECHAT_STARTS_PER_MINUTE', 10, 1, 10_000),
    logLevel: logLevel as AppConfig['logLevel'],
    secretsKey: nonEmpty(env, 'SECRETS_KEY'),
    emailAllowInsecure: bool(env, 'EMAIL_ALLOW_INSECURE'),
    emailPollMs: int(env, 'EMAIL_POLL_MS', 5000, 50, 600_000),
    emailBackoffBaseMs: int(env, 'EMAIL_BACKOFF_BASE_MS', 60_000, 10, 3_600_000),
    msgappTransport: env.MSGAPP_TRANSPORT === 'test' ? 'test' : 'baileys',
    msgappTestService: nonEmpty(env, 'MSGAPP_TEST_SERVICE'),
    msgappPollMs: int(env, 'MSGAPP_POLL_MS', 5000, 50, 600_000),
    msgappBackoffBaseMs: int(env, 'MSGAPP_BACKOFF_BASE_MS', 2000, 10, 600_000),
    msgappPaceMs: int(env, 'MSGAPP_PACE_MS', 1500, 0, 60_000),
    ai: aiConfig(env),
    kbEmbedLeaseMs: int(env, 'KB_EMBED_LEASE_MS', 120_000, 100, 3_600_000),
    kbEmbedPollMs: int(env, 'KB_EMBED_POLL_MS', 1000, 20, 600_000),
    kbEmbedRetryBaseMs: int(env, 'KB_EMBED_RETRY_BASE_MS', 60_000, 10, 3_600_000),
    broadcastPollMs: int(env, 'BROADCAST_POLL_MS', 1000, 5, 600_000),
    reportsRollupMs: int(env, 'REPORTS_ROLLUP_MS', 0, 0, 3_600_000),
  }
}

export class Config extends Context.Tag('kotak/Config')<Config, AppConfig>() {}
