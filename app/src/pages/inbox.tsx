import { useCallback, useEffect, useRef } from 'preact/hooks'
import { Conversation } from '../components/conversation'
import { InboxList } from '../components/inboxList'
import { t } from '../lib/i18n'
import { navigate } from '../lib/router'
import type { PageProps } from '../routes'

/**
 * The inbox: the list on the left, the open conversation and its contact on the right. On a phone
 * (≤ 640 px, styles.css) one of the two at a time: the list stays mounted under the conversation
 * (hidden, its scroll and filters kept), and the conversation's back control returns to it.
 */
export default function Inbox({ params }: PageProps) {
  const id = params.id ? Number(params.id) : null
  /** Opened from the list shown here: the entry before this one in the history is the list. */
  const fromList = useRef(false)
  const last = useRef<number | null | undefined>(undefined)
  useEffect(() => {
    fromList.current = id !== null && last.current === null
    last.current = id
  }, [id])
  const back = useCallback(() => {
    if (fromList.current) history.back()
    else navigate('/inbox')
  }, [])
  return (
    <div class={id ? 'inbox has-conv' : 'inbox'}>
      <InboxList selected={id} />
      {id ? (
        <Conversation key={id} id={id} back={back} />
      ) : (
        <div class="conv-empty muted">{t('conv.pick')}</div>
      )}
    </div>
  )
}
