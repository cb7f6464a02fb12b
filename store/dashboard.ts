import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { localDate, localParts, startOfLocalDay } from '../engine/time'

/**
 * The figures of the dashboard (spec 1 §4.1 `GET /dashboard`): getting-started steps, activity per
 * local day, and a summary per team. Each is one query over one workspace.
 */
export const stepKeys = ['channel', 'team', 'invite', 'business_hours', 'first_reply'] as const
export type StepKey = (typeof stepKeys)[number]

export const steps = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<Record<StepKey, boolean>>`
      SELECT
        EXISTS (SELECT 1 FROM channels WHERE workspace_id = ${workspaceId} AND archived_at IS NULL) AS channel,
        EXISTS (SELECT 1 FROM teams WHERE workspace_id = ${workspaceId}) AS team,
        ((SELECT count(*) FROM members WHERE workspace_id = ${workspaceId}) > 1
          OR EXISTS (SELECT 1 FROM invitations WHERE workspace_id = ${workspaceId} AND cancelled_at IS NULL)) AS invite,
        (SELECT settings ? 'business_hours' FROM workspaces WHERE id = ${workspaceId}) AS business_hours,
        EXISTS (SELECT 1 FROM messages WHERE workspace_id = ${workspaceId} AND direction = 'out') AS first_reply`.pipe(
      Effect.map((r) => r[0]!),
    ),
  )

export interface Day {
  readonly date: string
  readonly conversations: number
  readonly messages_in: number
  readonly messages_out: number
}

/** New conversations and messages per local day, the last `days` days up to today (zone's days). */
export const activity = (workspaceId: number, zone: string, now: Date, days = 14) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const today = localParts(now, zone)
      const start = startOfLocalDay(today.year, today.month, today.day - (days - 1), zone)
      const [messages, conversations] = yield* Effect.all([
        sql<{ d: string; dir: string; n: number }>`
          SELECT to_char(created_at AT TIME ZONE ${zone}, 'YYYY-MM-DD') AS d, direction AS dir, count(*) AS n
          FROM messages WHERE workspace_id = ${workspaceId} AND created_at >= ${start} AND type <> 'note'
          GROUP BY 1, 2`,
        sql<{ d: string; n: number }>`
          SELECT to_char(created_at AT TIME ZONE ${zone}, 'YYYY-MM-DD') AS d, count(*) AS n
          FROM conversations WHERE workspace_id = ${workspaceId} AND created_at >= ${start} GROUP BY 1`,
      ])
      const out: Day[] = []
      for (let i = 0; i < days; i++) {
        const date = localDate(
          startOfLocalDay(today.year, today.month, today.day - (days - 1) + i, zone),
          zone,
        )
        out.push({
          date,
          conversations: conversations.find((c) => c.d === date)?.n ?? 0,
          messages_in: messages.find((m) => m.d === date && m.dir === 'in')?.n ?? 0,
          messages_out: messages.find((m) => m.d === date && m.dir === 'out')?.n ?? 0,
        })
      }
      return out
    }),
  )

export const teamSummary = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ id: number; name: string; type: string; members: number; open_conversations: number }>`
      SELECT t.id, t.name, t.type,
        (SELECT count(*) FROM team_members tm WHERE tm.team_id = t.id) AS members,
        (SELECT count(*) FROM conversations c WHERE c.team_id = t.id AND c.status = 'open') AS open_conversations
      FROM teams t WHERE t.workspace_id = ${workspaceId} ORDER BY t.type, lower(t.name), t.id`,
  )
