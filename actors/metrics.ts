import { Effect } from 'effect'
import * as Reports from '../store/reports'
import * as Settings from '../store/settings'
import { type BusinessHours, businessMinutes, type Calendar, type SlaPolicy } from '../store/sla'

/**
 * THE definitions of every report and KPI metric (spec 2 §4.6), used by the reports, the KPIs and
 * the conversation's `response_times`/`sla` alike (docs/decisions.md, Reports, says the same in
 * prose):
 *
 * - Business time: minutes inside the business hours in force for the conversation: its
 *   channel's own `hours`, else the workspace's; around the clock when those are switched off.
 *   Read in the workspace zone. Arithmetic: store/sla.ts (`businessMinutes`).
 * - Episode: from a customer message while none runs (the conversation's first, or one that
 *   reopens a solved or closed conversation) until the conversation is solved or closed. A
 *   reopened conversation starts a new episode, so a new reply clock.
 * - Wait: from a customer message while the conversation was not waiting until the next agent
 *   reply. Notes and automatic replies (greeting, away message) never answer a wait.
 * - First response: the first agent reply of an episode; its time is the wait it ended.
 * - Reply time: every answered wait (first responses included).
 * - Resolution: an open conversation with an episode solved or closed; its time runs from the
 *   episode's first customer message.
 * - Unreplied now: open conversations whose customer has not been answered (tabs `new` and
 *   `waiting`), counted at the moment of asking.
 * - Within target: the measured business minutes are at most the target in force for whoever
 *   did it: their personal override, else their team's (the conversation's team at the time),
 *   else the workspace's target for the channel type, else the default (the workspace's response
 *   target from General settings; e-mail in whole hours of it, at least one).
 * - Breach: a measured first response, reply or resolution (of a conversation or a ticket) over
 *   its target.
 * - Tickets (the Back Office card, the team breakdown's tickets created/resolved), in the
 *   workspace's business hours, measured from the ticket's creation, attributed to the ticket's
 *   Back Office team at that moment (facts: store/reportFacts.ts):
 *   - created: a ticket created, counted for its creator;
 *   - first response: the first message on the ticket's side of the discussion (a comment or a
 *     conclusion) by a member who is not its creator and is in its team or one of its assignees;
 *     once per ticket. Posts from the conversation side, update requests and API keys never
 *     count; feedback is a message already counted, sent on;
 *   - resolution: the first move of the ticket from an active status into `resolved` or `closed`
 *     (a conclusion with `resolve: true` included), counted for who did it; once per ticket, so a
 *     reopened ticket finished again adds nothing.
 */

export type ChannelType = 'msgapp' | 'email' | 'livechat' | 'api'
export const CHANNEL_TYPES: readonly ChannelType[] = ['msgapp', 'email', 'livechat', 'api']

export type Unit = 'minutes' | 'hours'

export interface MetricDef {
  readonly key: string
  readonly unit: Unit
  readonly card: 'frontline' | 'backoffice'
  readonly kind: 'first_response' | 'reply' | 'resolution' | 'ticket_first_response' | 'ticket_resolution'
  readonly channelType: ChannelType | null
}

const chat = (type: ChannelType, kind: 'first_response' | 'reply'): MetricDef => ({
  key: `${type}_${kind}`,
  unit: type === 'email' ? 'hours' : 'minutes',
  card: 'frontline',
  kind,
  channelType: type,
})

/** Every KPI metric: e-mail metrics in hours, live chat, messaging app and API in minutes. */
export const METRICS: readonly MetricDef[] = [
  ...CHANNEL_TYPES.flatMap((t) => [chat(t, 'first_response'), chat(t, 'reply')]),
  { key: 'resolution', unit: 'hours', card: 'frontline', kind: 'resolution', channelType: null },
  {
    key: 'ticket_first_response',
    unit: 'hours',
    card: 'backoffice',
    kind: 'ticket_first_response',
    channelType: null,
  },
  {
    key: 'ticket_resolution',
    unit: 'hours',
    card: 'backoffice',
    kind: 'ticket_resolution',
    channelType: null,
  },
]
export const METRIC_KEYS = METRICS.map((m) => m.key)
export const metricOf = (key: string) => METRICS.find((m) => m.key === key)

export type TargetSource = 'personal' | 'team' | 'workspace' | 'default'

export interface Target {
  readonly metric: string
  readonly value: number
  readonly unit: Unit
  readonly minutes: number
  readonly source: TargetSource
  readonly team_id?: number
}

const toMinutes = (value: number, unit: Unit) => (unit === 'hours' ? value * 60 : value)

/** A workspace's General settings and channels, with its targets: what every measure needs. */
export interface Context {
  readonly workspaceId: number
  readonly zone: string
  readonly general: Settings.GeneralSettings
  readonly channelHours: ReadonlyMap<number, BusinessHours>
  readonly channels: ReadonlyArray<{ readonly id: number; readonly type: ChannelType; readonly name: string }>
  readonly targets: readonly Reports.TargetRow[]
}

type WorkspaceLike = {
  readonly id: number
  readonly timezone: string
  readonly settings?: unknown
}

/** The workspace's metric context, its channels and targets read fresh (reports, KPI screens). */
export const contextOf = (workspace: WorkspaceLike) =>
  Effect.map(Reports.slaInputs(workspace.id), (inputs) => contextFrom(workspace, inputs))

/**
 * The same from the channels and targets this node keeps for a moment (store/reports
 * `slaInputsKept`): for the inbox list's SLA levels, asked on every reload of every agent's list.
 */
export const keptContextOf = (workspace: WorkspaceLike) =>
  Effect.map(Reports.slaInputsKept(workspace.id), (inputs) => contextFrom(workspace, inputs))

/** The metric context from SLA inputs read already. */
export const contextFrom = (workspace: WorkspaceLike, { channels, targets }: Reports.SlaInputs): Context => {
  const channelHours = new Map<number, BusinessHours>()
  for (const c of channels) {
    if (c.hours !== null && typeof c.hours === 'object') channelHours.set(c.id, c.hours as BusinessHours)
  }
  const ctx: Context = {
    workspaceId: workspace.id,
    zone: workspace.timezone,
    general: Settings.generalOf(workspace),
    channelHours,
    channels: channels.map((c) => ({ id: c.id, type: c.type, name: c.name })),
    targets,
  }
  return ctx
}

/** The business hours in force for a channel (its own, else the workspace's), in the workspace zone. */
export const calendarOf = (ctx: Context, channelId: number | null): Calendar => ({
  hours: (channelId !== null ? ctx.channelHours.get(channelId) : undefined) ?? ctx.general.business_hours,
  zone: ctx.zone,
})

const defaultTarget = (ctx: Context, m: MetricDef): number => {
  const minutes = ctx.general.response_target_minutes
  if (m.kind === 'first_response' || m.kind === 'reply') {
    return m.unit === 'hours' ? Math.max(1, Math.ceil(minutes / 60)) : minutes
  }
  // Resolutions within a business day, tickets answered within one and resolved within two.
  if (m.kind === 'ticket_resolution') return 16
  return 8
}

/** The target of a metric for a person in a team (either may be unknown), and where it comes from. */
export const targetFor = (
  ctx: Context,
  key: string,
  userId: number | null,
  teamIds: readonly number[],
): Target => {
  const m = metricOf(key)
  if (!m) throw new Error(`unknown metric ${key}`)
  const made = (value: number, source: TargetSource, team_id?: number): Target => ({
    metric: key,
    value,
    unit: m.unit,
    minutes: toMinutes(value, m.unit),
    source,
    ...(team_id !== undefined ? { team_id } : {}),
  })
  const personal =
    userId === null
      ? undefined
      : ctx.targets.find((t) => t.scope === 'user' && t.scope_id === userId && t.metric === key)
  if (personal) return made(personal.value, 'personal')
  for (const teamId of teamIds) {
    const team = ctx.targets.find((t) => t.scope === 'team' && t.scope_id === teamId && t.metric === key)
    if (team) return made(team.value, 'team', teamId)
  }
  const ws = ctx.targets.find((t) => t.scope === 'workspace' && t.metric === key)
  if (ws) return made(ws.value, 'workspace')
  return made(defaultTarget(ctx, m), 'default')
}

const typeOf = (ctx: Context, f: Pick<Reports.PendingFact, 'channel_type' | 'channel_id'>): ChannelType =>
  (f.channel_type as ChannelType | null) ?? ctx.channels.find((c) => c.id === f.channel_id)?.type ?? 'api'

/** The metric a measured fact counts for (null: nothing measured). */
export const metricOfFact = (ctx: Context, f: Reports.PendingFact): string | null => {
  if (f.since === null) return null
  switch (f.kind) {
    case 'out':
      return `${typeOf(ctx, f)}_${f.first ? 'first_response' : 'reply'}`
    case 'resolved':
      return 'resolution'
    case 'ticket_first_response':
      return 'ticket_first_response'
    case 'ticket_resolved':
      return 'ticket_resolution'
    default:
      return null
  }
}

/**
 * A fact's measure: business minutes from `since` to `at` in the hours of its channel (tickets:
 * the workspace's), and whether that met the target of whoever did it. A reply that is also a
 * first response is measured once and counts for both (its `met` is against the first-response
 * target).
 */
export const measure = (
  ctx: Context,
  f: Reports.PendingFact,
): { readonly minutes: number | null; readonly met: boolean | null } => {
  const metric = metricOfFact(ctx, f)
  if (metric === null || f.since === null) return { minutes: null, met: null }
  const channelId = f.kind.startsWith('ticket') ? null : f.channel_id
  const minutes = businessMinutes(f.since, f.at, calendarOf(ctx, channelId))
  const target = targetFor(ctx, metric, f.user_id, f.team_id === null ? [] : [f.team_id])
  return { minutes, met: minutes <= target.minutes }
}

/**
 * The `sla` flag's policy for a waiting conversation (spec 2 §2, Pro and Custom): the first-response
 * target while its episode has no reply yet, else the reply target, for its channel type, assignee
 * and team; measured in its channel's business hours; warned at the workspace's warn share.
 */
export const slaPolicyFor = (
  ctx: Context,
  c: {
    readonly channel_id: number | null
    readonly ch_type?: string | null
    readonly assignee_id: number | null
    readonly team_id: number | null
    readonly episode_replied_at?: Date | null
  },
): SlaPolicy => {
  const type =
    (c.ch_type as ChannelType | null | undefined) ?? ctx.channels.find((x) => x.id === c.channel_id)?.type
  const kind = c.episode_replied_at ? 'reply' : 'first_response'
  const target = targetFor(
    ctx,
    `${type ?? 'api'}_${kind}`,
    c.assignee_id,
    c.team_id === null ? [] : [c.team_id],
  )
  const cal = calendarOf(ctx, c.channel_id)
  return {
    targetMinutes: target.minutes,
    warnRatio: ctx.general.response_warn_percent / 100,
    hours: cal.hours,
    zone: cal.zone,
  }
}

/** Business minutes of a conversation's first response (its `response_times`), or null. */
export const firstResponseMinutes = (
  ctx: Context,
  c: {
    readonly channel_id: number | null
    readonly first_in_at: Date | null
    readonly first_response_at: Date | null
  },
) =>
  c.first_in_at && c.first_response_at && c.first_response_at >= c.first_in_at
    ? businessMinutes(c.first_in_at, c.first_response_at, calendarOf(ctx, c.channel_id))
    : null

/** An average of a sum over a count, to one decimal; null when nothing was counted. */
export const average = (sum: number, count: number) =>
  count > 0 ? Math.round((sum / count) * 10) / 10 : null

/** A share in percent, to one decimal; null when nothing was counted. */
export const percent = (part: number, count: number) =>
  count > 0 ? Math.round((part / count) * 1000) / 10 : null
