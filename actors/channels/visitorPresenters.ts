import type { MessageView } from '../../store/messages'

/**
 * A message as the visitor sees it: no internal notes (callers drop them), no agent ids, no
 * delivery errors; an attachment by the visitor-only link `/v1/livechat/{key}/files/{id}`.
 */
export const visitorMessage = (m: MessageView, key: string) => ({
  id: m.id,
  direction: m.direction,
  from: m.direction === 'in' ? 'visitor' : 'agent',
  type: m.type,
  body: m.deleted_at ? '' : m.body,
  deleted: m.deleted_at !== null,
  media:
    m.file_id !== null && !m.deleted_at
      ? {
          url: `/v1/livechat/${key}/files/${m.file_id}`,
          name: m.file_name,
          mime: m.file_mime,
          size: m.file_size,
        }
      : null,
  sender: { name: typeof m.sender.name === 'string' ? m.sender.name : null },
  status: m.status === 'failed' ? 'failed' : m.status,
  client_id: m.direction === 'in' ? (m.client_id?.replace(/^lc:\d+:/, '') ?? null) : null,
  created_at: (m.sent_at ?? m.created_at).toISOString(),
})

/** A message the visitor should see (a note never; an automatic or agent reply or their own, yes). */
export const visibleToVisitor = (m: { readonly type: string }) => m.type !== 'note'
