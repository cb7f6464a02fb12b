import { Effect, Schema } from 'effect'
import { BigIdFromString } from '../../actors/fields'
import * as Inbox from '../../actors/inbox/conversations'
import { visibleGroup } from '../../actors/inbox/groups'
import { currentTime } from '../../engine/clock'
import * as Conversations from '../../store/conversations'
import * as Groups from '../../store/groups'
import { ok, type Route, route } from '../route'

/** Spec 2 §4.1 `GET /groups/{id}`: a messaging-app group, its members matched to contacts, its visible conversations. */
export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/groups/{id}',
    access: 'K',
    permission: 'interactions.view',
    tag: 'Interactions',
    summary: 'Group info, members matched to contacts, and the group conversations you can see',
    params: Schema.Struct({ id: BigIdFromString }),
    handler: ({ caller, workspace, params }) =>
      Effect.gen(function* () {
        const group = yield* visibleGroup(caller, workspace, params.id)
        const viewer = Inbox.viewerFor(caller, workspace)
        const phones = group.members
          .map((m) => (typeof m.phone === 'string' ? m.phone : null))
          .filter((p): p is string => p !== null)
        const matched = yield* Groups.matchedContacts(workspace.id, phones)
        const byPhone = new Map(matched.map((c) => [c.phone, c]))
        const now = yield* currentTime
        const conversations = yield* Conversations.list(viewer, { groupId: group.id }, undefined, {
          limit: 100,
          offset: 0,
        })
        const sla = yield* Inbox.slaPolicyOf(workspace, now)
        return ok({
          id: group.id,
          name: group.name,
          channel_id: group.channel_id,
          avatar_url: group.avatar_file_id === null ? null : `/v1/groups/${group.id}/avatar`,
          members: group.members.map((m) => {
            const phone = typeof m.phone === 'string' ? m.phone : null
            const contact = phone ? byPhone.get(phone) : undefined
            return {
              jid: typeof m.jid === 'string' ? m.jid : null,
              name: typeof m.name === 'string' ? m.name : null,
              phone,
              contact: contact ? { id: contact.id, name: contact.name } : null,
            }
          }),
          interactions: conversations.map((c) => Inbox.presentItem(c, sla, now)),
        })
      }),
  }),
]
