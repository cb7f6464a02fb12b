import type { PermissionRule } from '../../actors/admin/caller'
import * as Clients from '../../actors/pipeline/clients'
import { answer, type Route, route } from '../route'

/**
 * Spec 2 §4.7, clients: the list (not limited by team), search, the profile (linked contacts,
 * visible leads, deal summary), create, change, delete (contacts and leads stay, unlinked) and
 * linking contacts. The rules are in actors/pipeline/clients.ts.
 */
const VIEW: PermissionRule = ['contacts.view', 'leads.view']

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/clients',
    access: 'K',
    permission: VIEW,
    tag: 'Clients',
    summary: 'Clients with `contacts_count`; `q`, `industry`; `meta.industries`',
    query: Clients.ListQuery,
    handler: ({ caller, workspace, query }) => answer(Clients.list({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/clients/search',
    access: 'K',
    permission: VIEW,
    tag: 'Clients',
    summary: 'Clients whose name contains `q` (names starting with it first), at most `limit` (20)',
    query: Clients.SearchQuery,
    handler: ({ caller, workspace, query }) => answer(Clients.search({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/clients/{id}',
    access: 'K',
    permission: VIEW,
    tag: 'Clients',
    summary: 'Profile with linked contacts, the leads you may see and a deal summary over them',
    params: Clients.IdParam,
    handler: ({ caller, workspace, params }) => answer(Clients.detail({ caller, workspace }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/clients',
    access: 'K',
    permission: 'clients.manage',
    tag: 'Clients',
    summary: 'Create a client; the name is unique per workspace regardless of case',
    body: Clients.CreateBody,
    handler: ({ caller, workspace, body }) => answer(Clients.create({ caller, workspace }, body)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/clients/{id}',
    access: 'K',
    permission: 'clients.manage',
    tag: 'Clients',
    summary: 'Change the sent fields',
    params: Clients.IdParam,
    body: Clients.PatchBody,
    handler: ({ caller, workspace, params, body }) =>
      answer(Clients.update({ caller, workspace }, params, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/clients/{id}',
    access: 'A',
    permission: 'clients.manage',
    tag: 'Clients',
    summary: 'Delete a client; its contacts and leads stay, unlinked',
    params: Clients.IdParam,
    handler: ({ caller, workspace, params }) => answer(Clients.remove({ caller, workspace }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/clients/{id}/contacts',
    access: 'A',
    permission: 'clients.manage',
    tag: 'Clients',
    summary:
      "`{contact_id, link}`: link (default) or unlink a contact; linking also links the contact's leads without a client",
    params: Clients.IdParam,
    body: Clients.LinkBody,
    handler: ({ caller, workspace, params, body }) =>
      answer(Clients.linkContact({ caller, workspace }, params, body)),
  }),
]
