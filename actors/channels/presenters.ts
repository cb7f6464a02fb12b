import { Effect } from 'effect'
import { iso } from '../../engine/time'
import type * as ChannelApi from '../../store/channelApi'
import * as Channels from '../../store/channels'
import type * as Email from '../../store/email'
import { limitsOf } from '../../store/plans'
import type { WorkspaceRow } from '../../store/workspaces'
import type { livechatBlock } from './livechatEmbed'
import { presentMsgappSettings } from './msgappSettings'

/**
 * The channel resource of spec 1 §4.4 in its shapes: common to every type, with the `api`,
 * `email`, `msgapp` and `livechat` blocks. Keys and secrets never appear here: the key only in the
 * creation and replacement answers, the webhook secret in creation and `GET …/api/secret`.
 */

export const defaultAutoReply = { greeting_on: false, greeting: '', away_on: false, away: '' }

export const presentChannel = (
  c: Channels.ChannelRow,
  api?: ChannelApi.ChannelApiRow | null,
  livechat?: ReturnType<typeof livechatBlock> | null,
) => {
  const s = c.settings as { hours?: unknown; auto_reply?: Record<string, unknown>; icon?: string | null }
  return {
    id: c.id,
    type: c.type,
    name: c.name,
    // A channel the plan has no room for shows as suspended, whatever its connection does.
    status: c.suspended_at !== null ? 'suspended' : c.status,
    // Set by an icon upload (http/routes/channelIcons.ts); the version defeats stale caches.
    icon_url: s.icon ? `/v1/channels/${c.id}/icon?v=${encodeURIComponent(s.icon)}` : null,
    hours: s.hours ?? null,
    auto_reply: { ...defaultAutoReply, ...(s.auto_reply ?? {}) },
    created_at: iso(c.created_at),
    ...(c.type === 'api' ? { api: { webhook_url: api?.webhook_url ?? null } } : {}),
    ...(c.type === 'msgapp' ? { msgapp: presentMsgappSettings(c) } : {}),
    ...(c.type === 'livechat' ? { livechat: livechat ?? null } : {}),
  }
}

export const quotaOf = (workspace: WorkspaceRow) =>
  Effect.map(Channels.countLive(workspace.id), (used) => ({ used, limit: limitsOf(workspace).channels }))

export const presentApi = (
  c: Channels.ChannelRow,
  api: ChannelApi.ChannelApiRow,
  deliveries: readonly ChannelApi.DeliveryRow[],
  publicUrl: string,
) => ({
  ...presentChannel(c, api),
  api: {
    webhook_url: api.webhook_url,
    events: api.events,
    retries: api.retries,
    inbound_url: `${publicUrl}/v1/channel-api/messages`,
    key: { prefix: api.key_prefix, last_used_at: iso(api.key_last_used_at) },
    deliveries: deliveries.map((d) => ({
      id: d.uid,
      event: d.event,
      status: d.status,
      attempts: d.attempts,
      http_status: d.http_status,
      duration_ms: d.duration_ms,
      error: d.error,
      created_at: iso(d.created_at),
      updated_at: iso(d.updated_at),
      log: d.log,
    })),
  },
})

export const presentSync = (e: Email.EmailRow) => ({
  last_sync_at: iso(e.last_sync_at),
  last_error: e.last_error,
  failures: e.failures,
  paused_until: iso(e.paused_until),
  requested_at: iso(e.sync_requested_at),
})

export const presentEmail = (c: Channels.ChannelRow, e: Email.EmailRow) => ({
  ...presentChannel(c),
  email: {
    address: e.address,
    username: e.username,
    imap_host: e.imap_host,
    imap_port: e.imap_port,
    imap_security: e.imap_security,
    smtp_host: e.smtp_host,
    smtp_port: e.smtp_port,
    smtp_security: e.smtp_security,
    smtp_username: e.smtp_username,
    smtp_password_set: e.smtp_password_sealed !== null,
    folders: e.folders,
    sent_folder: e.sent_folder,
    read_sent: e.read_sent,
    save_sent: e.save_sent,
    history_days: e.history_days,
    sender_name: e.sender_name,
    sender_with_agent: e.sender_with_agent,
    signature_html: e.signature_html,
    ignore: e.ignore,
    sync: presentSync(e),
  },
})
