import { useState } from 'preact/hooks'
import { ApiError, api, can, Link, useLocale } from '../kit'
import { FailNotice, Notice, TextAreaField } from '../kit/ui'
import { fullTime } from '../lib/format'
import { SlaBadge, slaLine } from './common'
import type { ToolsProps } from './inConversation'
import { Dialog, RaiseDialog } from './RaiseDialog'
import { ensureStyles } from './styles'
import { useTr } from './texts'
import type { TicketBrief, TicketStatus } from './types'

/**
 * The conversation's dialogs (opened from its header, inConversation.tsx): its tickets, every one
 * raised there even those the agent cannot open (spec 2 §2 `tickets`), with a message to the
 * ticket's team and the update request (once per 15 minutes, active tickets only); raising a new
 * one citing messages; and the AI summary (spec 2 §4.1 `/summary`), with a note in words when the
 * server has no AI provider (503 `ai_unavailable`) or the plan has no AI (402).
 */

const STATUS_KEYS: readonly string[] = ['open', 'in_progress', 'waiting', 'resolved', 'closed']

const Brief = (props: {
  b: TicketBrief
  interactionId: number
  onTickets: (t: readonly TicketBrief[]) => void
}) => {
  const tr = useTr()
  const { b } = props
  const [text, setText] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const send = async (body: { text?: string; request_update?: boolean }) => {
    setBusy(true)
    setError(null)
    try {
      const r = await api.post('/v1/interactions/{id}/tickets/{ticket}/messages', {
        path: { id: props.interactionId, ticket: b.id },
        body,
      })
      props.onTickets(r.data.tickets)
      setText('')
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const reply = can('interactions.reply') && b.active
  const latest = b.thread.messages.slice(-3)
  return (
    <li data-ticket={b.number}>
      <div class="tk-row-end">
        {b.can_open ? (
          <Link to={`/tickets/${b.id}`}>
            #{b.number} {b.subject}
          </Link>
        ) : (
          <strong>
            #{b.number} {b.subject}
          </strong>
        )}
        <span class="k-badge">
          {STATUS_KEYS.includes(b.status) ? tr(`tk.status.${b.status as TicketStatus}`) : b.status}
        </span>
      </div>
      <span class="k-muted">
        {b.thread.team.name} · {tr('tk.assignee')}:{' '}
        {b.assignees.map((a) => a.name).join(', ') || tr('tk.nobody')}
      </span>
      {b.can_open ? null : <span class="k-muted">{tr('tk.cannot_open', { team: b.thread.team.name })}</span>}
      {b.sla ? (
        <span>
          <SlaBadge sla={b.sla} tr={tr} /> {slaLine(b.sla, tr)}
        </span>
      ) : null}
      {b.update_request ? (
        <span class="k-muted" data-testid="requested">
          {tr('tk.requested', { date: fullTime(b.update_request.requested_at) })}
        </span>
      ) : null}
      {latest.length > 0 ? (
        <div>
          <span class="k-muted">{tr('tk.latest')}</span>
          <ul class="tk-files" style={{ flexDirection: 'column' }}>
            {latest.map((m) => (
              <li key={m.id}>
                <strong>{m.sender?.name ?? tr('tk.someone')}</strong>: {m.body}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <FailNotice error={error} />
      {reply ? (
        <form
          class="k-stack"
          style={{ gap: '8px' }}
          onSubmit={(e) => {
            e.preventDefault()
            if (text.trim()) void send({ text })
          }}
        >
          <TextAreaField
            label={tr('tk.message_team', { team: b.thread.team.name })}
            name="text"
            value={text}
            onValue={setText}
            rows={2}
          />
          <div class="k-row">
            <button type="submit" class="k-btn" disabled={busy || !text.trim()}>
              {tr('tk.post')}
            </button>
            <button
              type="button"
              class="k-btn"
              disabled={busy}
              onClick={() => void send({ request_update: true, ...(text.trim() ? { text } : {}) })}
            >
              {tr('tk.request_update')}
            </button>
          </div>
        </form>
      ) : null}
    </li>
  )
}

export const TicketsDialog = (props: ToolsProps & { onClose: () => void }) => {
  ensureStyles()
  const tr = useTr()
  useLocale()
  const [raising, setRaising] = useState(false)
  const [tickets, setTickets] = useState<readonly TicketBrief[] | null>(null)
  const list = tickets ?? props.detail.tickets
  if (raising)
    return (
      <RaiseDialog
        interactionId={props.detail.id}
        messages={props.messages}
        onClose={() => setRaising(false)}
        onRaised={() => {
          setTickets(null)
          void props.reload()
        }}
      />
    )
  return (
    <Dialog label={tr('tk.conv_tickets')} onClose={props.onClose}>
      <div class="tk-dbody" data-testid="conversation-tickets">
        <div class="tk-row-end">
          <h2>{tr('tk.conv_tickets')}</h2>
          {can('tickets.create') ? (
            <button type="button" class="k-btn k-primary" onClick={() => setRaising(true)}>
              {tr('tk.raise')}
            </button>
          ) : null}
        </div>
        {list.length === 0 ? <p class="k-muted">{tr('tk.conv_none')}</p> : null}
        <ul class="tk-briefs">
          {list.map((b) => (
            <Brief key={b.id} b={b} interactionId={props.detail.id} onTickets={setTickets} />
          ))}
        </ul>
        <div class="k-row">
          <button type="button" class="k-btn" onClick={props.onClose}>
            {tr('tk.close')}
          </button>
        </div>
      </div>
    </Dialog>
  )
}

/** `ai_summary`'s bullet points, one per line (`- …`). */
const bullets = (s: string) =>
  s
    .split('\n')
    .map((l) => l.replace(/^\s*(?:[-*•·]|\d+[.)])\s*/, '').trim())
    .filter(Boolean)

export const SummaryDialog = (props: ToolsProps & { onClose: () => void }) => {
  ensureStyles()
  const tr = useTr()
  useLocale()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [fresh, setFresh] = useState<string | null>(null)
  const summary = fresh ?? props.detail.ai_summary
  const summarise = async () => {
    setBusy(true)
    setError(null)
    try {
      const r = await api.post('/v1/interactions/{id}/summary', { path: { id: props.detail.id } })
      const d = r.data as { ai_summary?: string | null; summary?: string | null } | null
      const text = d?.ai_summary ?? d?.summary ?? null
      if (typeof text === 'string') setFresh(text)
      await props.reload()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const code = error instanceof ApiError ? error.code : null
  return (
    <Dialog label={tr('tk.summary')} onClose={props.onClose}>
      <div class="tk-dbody" data-testid="ai-summary">
        <h2>{tr('tk.summary')}</h2>
        {summary ? (
          <ul class="tk-summary" data-testid="summary-points">
            {bullets(summary).map((b, i) => (
              <li key={i}>{b}</li>
            ))}
          </ul>
        ) : (
          <p class="k-muted">{tr('tk.no_summary')}</p>
        )}
        {busy ? (
          <p class="k-muted" role="status">
            {tr('tk.summarising')}
          </p>
        ) : null}
        {code === 'ai_unavailable' ? (
          <Notice kind="info">{tr('tk.ai_off')}</Notice>
        ) : code === 'plan_required' ? (
          <Notice kind="info">{tr('tk.ai_plan')}</Notice>
        ) : (
          <FailNotice error={error} />
        )}
        {!can('ai.use') ? <Notice kind="info">{tr('tk.ai_no_permission')}</Notice> : null}
        <div class="k-row">
          {can('ai.use') ? (
            <button type="button" class="k-btn k-primary" disabled={busy} onClick={() => void summarise()}>
              {summary ? tr('tk.resummarise') : tr('tk.summarise')}
            </button>
          ) : null}
          <button type="button" class="k-btn" onClick={props.onClose}>
            {tr('tk.close')}
          </button>
        </div>
      </div>
    </Dialog>
  )
}
