import type { ComponentType } from 'preact'
import { useState } from 'preact/hooks'
import type { InteractionDetail, Message } from '../api/types'
import { extend, t } from '../lib/i18n'
import { can } from '../lib/session'

/**
 * The conversation header's two actions (components/conversation.tsx): its tickets (the linked
 * ones, raising one that cites messages, asking for an update) and the AI summary. Only these
 * buttons and their labels are in the inbox's code; the dialogs load on first use
 * (conversationPanel.tsx, in the tickets chunk).
 */
extend({
  en: { 'tkc.tickets': 'Tickets', 'tkc.summary': 'AI summary', 'tkc.count': 'Tickets ({n})' },
  id: { 'tkc.tickets': 'Tiket', 'tkc.summary': 'Ringkasan AI', 'tkc.count': 'Tiket ({n})' },
})

export interface ToolsProps {
  readonly detail: InteractionDetail
  readonly messages: readonly Message[]
  /** Reads the conversation again (its `tickets` and `ai_summary`). */
  readonly reload: () => Promise<void> | void
}

type Which = 'tickets' | 'summary'
interface Dialogs {
  readonly TicketsDialog: ComponentType<ToolsProps & { onClose: () => void }>
  readonly SummaryDialog: ComponentType<ToolsProps & { onClose: () => void }>
}

const STYLE = { display: 'flex', gap: '6px', marginLeft: 'auto', alignSelf: 'center', flexShrink: 0 }

/** On a phone the two actions take their own row under the name, which keeps its room. */
if (typeof document !== 'undefined') {
  const el = document.createElement('style')
  el.textContent =
    '@media (max-width:640px){.conv-title{flex-wrap:wrap}.conv-title .tk-tools{order:9;width:100%;margin-left:0!important}.conv-title .tk-tools button{flex:1;min-height:40px}}'
  document.head.append(el)
}

export const ConversationTools = (props: ToolsProps) => {
  const [open, setOpen] = useState<Which | null>(null)
  const [dialogs, setDialogs] = useState<Dialogs | null>(null)
  const show = (which: Which) => {
    setOpen(which)
    if (!dialogs) void import('./conversationPanel').then((m) => setDialogs(m))
  }
  const n = props.detail.tickets.length
  const summary = can('ai.use') || Boolean(props.detail.ai_summary)
  const close = () => setOpen(null)
  return (
    <span class="tk-tools" style={STYLE}>
      <button type="button" aria-haspopup="dialog" onClick={() => show('tickets')} data-testid="conv-tickets">
        {n > 0 ? t('tkc.count', { n }) : t('tkc.tickets')}
      </button>
      {summary ? (
        <button
          type="button"
          aria-haspopup="dialog"
          onClick={() => show('summary')}
          data-testid="conv-summary"
        >
          {t('tkc.summary')}
        </button>
      ) : null}
      {dialogs && open === 'tickets' ? <dialogs.TicketsDialog {...props} onClose={close} /> : null}
      {dialogs && open === 'summary' ? <dialogs.SummaryDialog {...props} onClose={close} /> : null}
    </span>
  )
}
