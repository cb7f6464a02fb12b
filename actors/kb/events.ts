import { publish, topics } from '../events'

/**
 * `kb.changed` on `ws:{workspace}` (spec 1 §6): `{category_id}` or `{article_id}`, with a
 * `reason`, published after the change committed, including finished (`embedded`) or failed
 * (`embedding_failed`) semantic processing. No content: clients reload through the API, where
 * visibility applies.
 */
export type ArticleReason = 'created' | 'updated' | 'deleted' | 'embedding' | 'embedded' | 'embedding_failed'
export type CategoryReason = 'created' | 'updated' | 'deleted'

export const articleChanged = (workspaceId: number, articleId: number, reason: ArticleReason) =>
  publish(topics.workspace(workspaceId), 'kb.changed', { article_id: articleId, reason })

export const categoryChanged = (workspaceId: number, categoryId: number, reason: CategoryReason) =>
  publish(topics.workspace(workspaceId), 'kb.changed', { category_id: categoryId, reason })
