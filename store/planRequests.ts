import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

/** Custom plan requests from the public site (spec 1 §4.5), kept for the sales team. */
export interface PlanRequestRow {
  readonly id: number
  readonly name: string
  readonly email: string
  readonly company: string
  readonly phone: string
  readonly message: string
  readonly channels: number | null
  readonly agents: number | null
  readonly locale: string
  readonly ip: string
  readonly created_at: Date
}

export interface NewPlanRequest {
  readonly name: string
  readonly email: string
  readonly company: string
  readonly phone: string
  readonly message: string
  readonly channels: number | null
  readonly agents: number | null
  readonly locale: string
  readonly ip: string
}

export const create = (r: NewPlanRequest) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<PlanRequestRow>`
      INSERT INTO plan_requests (name, email, company, phone, message, channels, agents, locale, ip)
      VALUES (${r.name}, ${r.email}, ${r.company}, ${r.phone}, ${r.message}, ${r.channels}, ${r.agents},
              ${r.locale}, ${r.ip})
      RETURNING *`.pipe(Effect.map((rows) => rows[0]!)),
  )

/**
 * How many requests came from this address and for this e-mail since `since`, with the oldest of
 * each (when the window frees up again).
 */
export const recent = (ip: string, email: string, since: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ by_ip: number; by_email: number; oldest_ip: Date | null; oldest_email: Date | null }>`
      SELECT count(*) FILTER (WHERE ip = ${ip}) AS by_ip,
             count(*) FILTER (WHERE lower(email) = lower(${email})) AS by_email,
             min(created_at) FILTER (WHERE ip = ${ip}) AS oldest_ip,
             min(created_at) FILTER (WHERE lower(email) = lower(${email})) AS oldest_email
      FROM plan_requests WHERE created_at > ${since} AND (ip = ${ip} OR lower(email) = lower(${email}))`.pipe(
      Effect.map((r) => r[0]!),
    ),
  )

export const list = (limit: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<PlanRequestRow>`SELECT * FROM plan_requests ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
  )
