import { Schema } from 'effect'
import * as Categories from '../../actors/inbox/categories'
import { CategorySchema, CreateBody, IdParam, UpdateBody } from '../../actors/inbox/categories'
import { answer, type Route, route } from '../route'

/** Spec 2 §4.2 conversation categories; the tree's rules are actors/inbox/categories.ts. */
export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/conversation-categories',
    access: 'K',
    permission: ['interactions.view', 'contacts.view'],
    tag: 'Conversation categories',
    summary: 'Categories in tree order: each parent, then its children',
    response: Schema.Array(CategorySchema),
    handler: ({ caller, workspace }) => answer(Categories.list({ caller, workspace })),
  }),
  route({
    method: 'POST',
    path: '/v1/conversation-categories',
    access: 'A',
    permission: 'contacts.manage',
    tag: 'Conversation categories',
    summary: 'Create a category (at most 3 levels and 200 categories; names unique within a parent)',
    body: CreateBody,
    response: CategorySchema,
    handler: ({ caller, workspace, body }) => answer(Categories.create({ caller, workspace }, body)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/conversation-categories/{id}',
    access: 'A',
    permission: 'contacts.manage',
    tag: 'Conversation categories',
    summary:
      'Rename, recolor, reorder or move a category (`parent_id` null = top level; never into itself or below)',
    params: IdParam,
    body: UpdateBody,
    response: CategorySchema,
    handler: ({ caller, workspace, params, body }) =>
      answer(Categories.update({ caller, workspace }, params, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/conversation-categories/{id}',
    access: 'A',
    permission: 'contacts.manage',
    tag: 'Conversation categories',
    summary:
      'Delete a category; its subcategories and conversations move to its parent (uncategorized at top level)',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Categories.remove({ caller, workspace }, params)),
  }),
]
