import { Schema } from 'effect'
import * as Rules from '../../actors/inbox/labelRules'
import { CreateBody, IdParam, RuleSchema, UpdateBody } from '../../actors/inbox/labelRules'
import { answer, type Route, route } from '../route'

/** Spec 2 §4.2 messaging-app label rules (Pro); their rules are actors/inbox/labelRules.ts. */
export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/msgapp-label-rules',
    access: 'K',
    permission: ['contacts.manage', 'channels.manage'],
    tag: 'Label rules',
    summary: 'Messaging-app label rules (Pro)',
    response: Schema.Array(RuleSchema),
    handler: ({ caller, workspace }) => answer(Rules.list({ caller, workspace })),
  }),
  route({
    method: 'POST',
    path: '/v1/msgapp-label-rules',
    access: 'A',
    permission: 'contacts.manage',
    tag: 'Label rules',
    summary:
      'Add a rule: `contact_label` (value = contact label id), `assign_team` (Frontline team id) or `solve`',
    body: CreateBody,
    response: RuleSchema,
    handler: ({ caller, workspace, body }) => answer(Rules.create({ caller, workspace }, body)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/msgapp-label-rules/{id}',
    access: 'A',
    permission: 'contacts.manage',
    tag: 'Label rules',
    summary: 'Change a rule, including `active`',
    params: IdParam,
    body: UpdateBody,
    response: RuleSchema,
    handler: ({ caller, workspace, params, body }) =>
      answer(Rules.update({ caller, workspace }, params, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/msgapp-label-rules/{id}',
    access: 'A',
    permission: 'contacts.manage',
    tag: 'Label rules',
    summary: 'Delete a rule',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Rules.remove({ caller, workspace }, params)),
  }),
]
