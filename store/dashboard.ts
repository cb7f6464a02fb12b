import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { localDate, localParts, startOfLocalDay } from '../engine/time'
import { pgArray } from './arrays'

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

/** `AND` the conversation `c` is on one of `channelIds`; nothing when null (every channel). */
const inChannels = (sql: SqlClient.SqlClient, channelIds: readonly number[] | null) =>
  channelIds === null ? sql`` : sql`AND c.channel_id = ANY(${pgArray(channelIds)}::int[])`

export interface Day {
  readonly date: string
  readonly conversations: number
  readonly messages_in: number
  readonly messages_out: number
}

/**
 * New conversations and messages per local day, the last `days` days up to today (zone's days),
 * over the channels the caller has access to (`channelIds`, null for every channel): channel
 * access applies to these figures as it does to reports.
 */
export const activity = (
  workspaceId: number,
  channelIds: readonly number[] | null,
  zone: string,
  now: Date,
  days = 14,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const today = localParts(now, zone)
      const start = startOfLocalDay(today.year, today.month, today.day - (days - 1), zone)
      const [messages, conversations] = yield* Effect.all([
        channelIds === null
          ? sql<{ d: string; dir: string; n: number }>`
          SELECT to_char(created_at AT TIME ZONE ${zone}, 'YYYY-MM-DD') AS d, direction AS dir, count(*) AS n
          FROM messages WHERE workspace_id = ${workspaceId} AND created_at >= ${start} AND type <> 'note'
          GROUP BY 1, 2`
          : sql<{ d: string; dir: string; n: number }>`
          SELECT to_char(m.created_at AT TIME ZONE ${zone}, 'YYYY-MM-DD') AS d, m.direction AS dir, count(*) AS n
          FROM messages m JOIN conversations c ON c.id = m.conversation_id
          WHERE m.workspace_id = ${workspaceId} AND m.created_at >= ${start} AND m.type <> 'note'
            ${inChannels(sql, channelIds)}
          GROUP BY 1, 2`,
        sql<{ d: string; n: number }>`
          SELECT to_char(c.created_at AT TIME ZONE ${zone}, 'YYYY-MM-DD') AS d, count(*) AS n
          FROM conversations c WHERE c.workspace_id = ${workspaceId} AND c.created_at >= ${start}
            ${inChannels(sql, channelIds)} GROUP BY 1`,
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

/**
 * Each team with its members and open conversations; the count takes only the channels the caller
 * has access to (`channelIds`, null for every channel).
 */
export const teamSummary = (workspaceId: number, channelIds: readonly number[] | null) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ id: number; name: string; type: string; members: number; open_conversations: number }>`
      SELECT t.id, t.name, t.type,
        (SELECT count(*) FROM team_members tm WHERE tm.team_id = t.id) AS members,
        (SELECT count(*) FROM conversations c WHERE c.team_id = t.id AND c.status = 'open'
          ${inChannels(sql, channelIds)}) AS open_conversations
      FROM teams t WHERE t.workspace_id = ${workspaceId} ORDER BY t.type, lower(t.name), t.id`,
  )
