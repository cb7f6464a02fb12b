import { Conversation } from '../components/conversation'
import { InboxList } from '../components/inboxList'
import { t } from '../lib/i18n'
import type { PageProps } from '../routes'

/** The inbox: the list on the left, the open conversation and its contact on the right. */
export default function Inbox({ params }: PageProps) {
  const id = params.id ? Number(params.id) : null
  return (
    <div class="inbox">
      <InboxList selected={id} />
      {id ? <Conversation key={id} id={id} /> : <div class="conv-empty muted">{t('conv.pick')}</div>}
    </div>
  )
}
