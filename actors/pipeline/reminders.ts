import { SqlClient } from '@effect/sql'
import { type Duration, Effect } from 'effect'
import { currentTime } from '../../engine/clock'
import { everyLogged } from '../../engine/loop'
import * as Leads from '../../store/leads'
import * as Work from '../../store/leadWork'
import * as Notifications from '../../store/notifications'
import * as Workspaces from '../../store/workspaces'
import { addMessages, t } from '../i18n'
import { announce } from '../notifications'
import { identifier } from './presenters'

/**
 * Reminders of lead events (spec 2 §2 `remind_minutes`): a notification `remind_minutes` before
 * `starts_at`, exactly once. Every node sweeps (`loop`); a sweep claims the due events and stores
 * their notifications in one transaction (store/leadWork `claimDue`: a claimed event is never due
 * again, rows another node is claiming are skipped), and announces them after it commits. Nothing
 * lives in memory, so a restart neither loses nor repeats a reminder; one missed while every node
 * was down fires at the next sweep. The time is the clock port's, which tests move.
 */
addMessages({
  'leads.reminder.title': {
    en: '{title} at {time} ({lead}: {lead_title})',
    id: '{title} pada {time} ({lead}: {lead_title})',
  },
})

const BATCH = 200

const timeIn = (at: Date, zone: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    day: '2-digit',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  }).format(at)

/** Fires every reminder due at `now`; answers how many events it claimed. */
export const fireDue = (now: Date) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    if (!(yield* Work.anyDue(now))) return 0
    const { claimed, notes } = yield* sql.withTransaction(
      Effect.gen(function* () {
        const due = yield* Work.claimDue(now, BATCH)
        const notes: Notifications.NotificationRow[] = []
        const people = new Map<number, readonly Leads.Candidate[]>()
        for (const e of due) {
          if (!people.has(e.workspace_id)) people.set(e.workspace_id, yield* Leads.candidates(e.workspace_id))
          const zone = (yield* Workspaces.byId(e.workspace_id))?.timezone
          // The lead's owner and whoever planned the event, if they still see the lead.
          const ids = new Set([e.lead_assignee_id, e.created_by].filter((x): x is number => x !== null))
          for (const p of people.get(e.workspace_id)!) {
            if (!ids.has(p.id)) continue
            if (!(yield* Leads.sees(Leads.viewerOfCandidate(e.workspace_id, p), e.lead_id))) continue
            notes.push(
              yield* Notifications.insert({
                workspaceId: e.workspace_id,
                userId: p.id,
                kind: 'lead.reminder',
                title: t(p.locale, 'leads.reminder.title', {
                  title: e.title,
                  time: timeIn(e.starts_at, zone ?? 'UTC'),
                  lead: identifier(e.lead_number),
                  lead_title: e.lead_title,
                }),
                link: `/pipeline/leads/${e.lead_id}`,
                data: { lead_id: e.lead_id, event_id: e.id, starts_at: e.starts_at.toISOString() },
              }),
            )
          }
        }
        return { claimed: due.length, notes }
      }),
    )
    yield* Effect.forEach(notes, announce, { discard: true })
    return claimed
  })

/** `fireDue` every `every` for the life of the node (a full batch goes again at once); errors logged. */
export const loop = (every: Duration.DurationInput = '2 seconds') =>
  everyLogged(
    'lead reminders',
    every,
    Effect.gen(function* () {
      let n = BATCH
      while (n >= BATCH) n = yield* fireDue(yield* currentTime)
    }),
  )
