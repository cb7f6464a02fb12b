import { Effect } from 'effect'
import { iso } from '../../engine/time'
import * as CustomFields from '../../store/customFields'
import * as Tickets from '../../store/tickets'
import { contextOf } from './common'
import { presentItem } from './presenters'
import { type Ctx, viewerFor } from './visibility'

/**
 * A contact's tickets (spec 2 §4.4 `GET /contacts/{id}/tickets`, the profile's `tickets`): those
 * the caller may see by the one ticket visibility rule, newest first, each with its status log
 * (created, then every status move).
 */
export const ofContact = (ctx: Ctx, contactId: number, now: Date) =>
  Effect.gen(function* () {
    const rows = yield* Tickets.ofContact(viewerFor(ctx.caller, ctx.workspace), contactId)
    const ids = rows.map((t) => t.id)
    const [ps, log, defs] = yield* Effect.all(
      [Tickets.participants(ids), Tickets.statusLog(ids), CustomFields.list(ctx.workspace.id, ['ticket'])],
      { concurrency: 'unbounded' },
    )
    const c = contextOf(ctx.workspace, now)
    return rows.map((t) => ({
      ...presentItem(
        t,
        ps.filter((p) => p.ticket_id === t.id),
        defs,
        c,
      ),
      status_log: log
        .filter((e) => e.ticket_id === t.id)
        .map((e) => ({
          status: e.kind === 'created' ? 'open' : e.new_value,
          from: e.kind === 'created' ? null : e.old_value,
          by: { name: e.actor.name, user_id: e.actor.user_id ?? null },
          at: iso(e.created_at),
        })),
    }))
  })
