import pg from 'pg'

/**
 * Session-level advisory locks `(LOCK_CLASS, channel id)` on one dedicated connection: a number
 * runs only on the node holding its lock. Without PostgreSQL (embedded, one node), always granted.
 * If the connection breaks, the locks are gone with it and `onLost` stops every local session.
 */
export const LOCK_CLASS = 0x4b4d

export class Locks {
  private client: pg.Client | null = null
  private broken = false

  constructor(
    private readonly url: string | undefined,
    private readonly onLost: () => void,
  ) {}

  private async connection() {
    if (this.client && !this.broken) return this.client
    const old = this.client
    this.client = null
    await old?.end().catch(() => {})
    const c = new pg.Client({ connectionString: this.url })
    c.on('error', () => {
      if (this.client === c && !this.broken) {
        this.broken = true
        this.onLost()
      }
    })
    await c.connect()
    this.broken = false
    this.client = c
    return c
  }

  async tryLock(channelId: number): Promise<boolean> {
    if (!this.url) return true
    const c = await this.connection()
    const r = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [
      LOCK_CLASS,
      channelId,
    ])
    return r.rows[0]?.ok === true
  }

  async unlock(channelId: number) {
    if (!this.url || !this.client || this.broken) return
    await this.client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, channelId]).catch(() => {})
  }

  async close() {
    const c = this.client
    this.client = null
    await c?.end().catch(() => {})
  }
}
