import { Effect } from 'effect'
import { currentMillis } from '../../engine/clock'
import { localDate } from '../../engine/time'
import * as Messages from '../../store/messages'
import { isPaidActive } from '../../store/plans'
import * as Settings from '../../store/settings'
import type * as Tickets from '../../store/tickets'
import type { WorkspaceRow } from '../../store/workspaces'
import type { Caller } from '../admin/caller'
import { invalid, rateLimitedUntil } from '../errors'
import { addMessages } from '../i18n'
import type { Context } from './presenters'
import type { TicketNotActive, UpdateTooSoon } from './TicketActor'

/**
 * What the ticket operations share: who acts (a member, or an API key under its name), the
 * presentation context (today in the workspace zone, the SLA policy on Pro and Custom), and the
 * TicketActor's failures as API errors of the one catalogue.
 */
addMessages({
  'tickets.backoffice_team': {
    en: 'must be a Back Office team of this workspace',
    id: 'harus tim Back Office di workspace ini',
  },
  'tickets.assignee_team': {
    en: "must be an active member of the ticket's team who can view tickets, or an admin",
    id: 'harus anggota aktif tim tiket ini yang dapat melihat tiket, atau admin',
  },
  'tickets.member': {
    en: 'must be active members of this workspace',
    id: 'harus anggota aktif workspace ini',
  },
  'tickets.transition': {
    en: 'cannot move from {from} to {to}',
    id: 'tidak dapat berpindah dari {from} ke {to}',
  },
  'tickets.not_active': {
    en: 'the ticket is {status}; only active tickets (open, in progress, waiting) take this',
    id: 'tiket berstatus {status}; hanya tiket aktif (open, in progress, waiting) yang dapat menerima ini',
  },
  'tickets.no_conversation': {
    en: 'the ticket was not raised from a conversation',
    id: 'tiket ini tidak dibuat dari percakapan',
  },
  'tickets.feedback_sent': {
    en: 'This message was already sent to the conversation as feedback.',
    id: 'Pesan ini sudah dikirim ke percakapan sebagai umpan balik.',
  },
  'tickets.resolve_needs_manage': {
    en: 'Resolving a ticket needs the tickets.manage permission.',
    id: 'Menyelesaikan tiket memerlukan izin tickets.manage.',
  },
  'tickets.unfollow_only': {
    en: 'Without the tickets.manage permission you may only remove yourself as a follower.',
    id: 'Tanpa izin tickets.manage Anda hanya dapat berhenti mengikuti tiket sendiri.',
  },
  'tickets.quota': {
    en: 'The monthly ticket limit of {limit} is reached; it resets at {reset}.',
    id: 'Batas tiket bulanan {limit} sudah tercapai; direset pada {reset}.',
  },
  'tickets.body_or_files': {
    en: 'write a message or attach files',
    id: 'tulis pesan atau lampirkan berkas',
  },
  'tickets.text_or_request': {
    en: 'send text, or request_update: true',
    id: 'kirim teks, atau request_update: true',
  },
})

/** Who acts: a member under their name, an API key under the key's name (spec 2 §2). */
export const actorOf = (caller: Caller) =>
  caller.via === 'key'
    ? Effect.map(
        Messages.keyName(caller.keyId),
        (name): Tickets.Actor => ({ name, user_id: null, key_id: caller.keyId }),
      )
    : Effect.succeed<Tickets.Actor>({ name: caller.user.name, user_id: caller.user.id })

/** How tickets are shown at `now` in this workspace. */
export const contextOf = (workspace: WorkspaceRow, now: Date): Context => {
  const policy = Settings.slaPolicyOf(workspace)
  return {
    now,
    today: localDate(now, workspace.timezone),
    sla: isPaidActive(workspace, now)
      ? { warnRatio: policy.warnRatio, hours: policy.hours, zone: policy.zone }
      : null,
  }
}

// ---------------------------------------------------------------------------------------------
// The actor's failures whose answer needs the call: the others carry theirs (TicketActor.ts)
// ---------------------------------------------------------------------------------------------

export const notActive = (field: string) => (e: TicketNotActive) =>
  Effect.fail(invalid({ [field]: { key: 'tickets.not_active', params: { status: e.status } } }))

export const tooSoon = (e: UpdateTooSoon) =>
  Effect.flatMap(currentMillis, (now) => Effect.fail(rateLimitedUntil(e.retryAtMs, now)))
