import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, api, can, got, Link, me, useLocale, useWorkspaceEvents } from '../kit'
import { ConfirmButton, FailNotice, Notice, Panel, SelectField, TextAreaField } from '../kit/ui'
import { bytes, fullTime } from '../lib/format'
import { hold, live, onEvent, topics } from '../lib/socket'
import { use } from '../lib/state'
import type { PageProps } from '../routes'
import { duration, PriorityBadge, SlaBadge, StatusBadge, slaLine } from './common'
import { ensureStyles } from './styles'
import { type Tr, useTr } from './texts'
import {
  type Candidate,
  PRIORITIES,
  type Priority,
  STATUSES,
  type Ticket,
  type TicketEvent,
  type TicketMessage,
  type TicketStatus,
} from './types'

/**
 * `/tickets/:id`: one ticket. Its data (status, priority, SLA in business hours, update request,
 * source conversation), participants (add an assignee, remove; a follower unfollows themselves),
 * the discussion with mentions and files, feedback into the conversation, the conclusion, and the
 * change log; live through `ticket:{id}` (messages, log entries, changes) and `tickets.changed`.
 * What the caller may not see answers 404 and reads "not found".
 */

const byId = <T extends { readonly id: number }>(old: readonly T[], more: readonly T[]) => {
  const map = new Map(old.map((x) => [x.id, x]))
  for (const x of more) map.set(x.id, x)
  return [...map.values()].sort((a, b) => a.id - b.id)
}

/** The text with its mentions (`@Name` of a mentioned person) marked. */
const Body = ({ m }: { m: TicketMessage }) => {
  const names = m.mentions.map((x) => `@${x.name}`).filter(Boolean)
  if (names.length === 0) return <p class="tk-body">{m.body}</p>
  const escaped = names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  const parts = m.body.split(new RegExp(`(${escaped.join('|')})`, 'g'))
  return (
    <p class="tk-body">
      {parts.map((p, i) =>
        names.includes(p) ? (
          <span key={i} class="tk-mention">
            {p}
          </span>
        ) : (
          p
        ),
      )}
    </p>
  )
}

const eventLine = (e: TicketEvent, tr: Tr) => {
  const who = e.actor?.name ?? tr('tk.someone')
  const status = (v: unknown) =>
    typeof v === 'string' && (STATUSES as readonly string[]).includes(v)
      ? tr(`tk.status.${v as TicketStatus}`)
      : String(v ?? '')
  switch (e.kind) {
    case 'status':
      return tr('tk.ev.status', { who, old: status(e.old), new: status(e.new) })
    case 'assigned': {
      const n = e.new as { name?: string } | null
      return tr('tk.ev.assigned', { who, name: n?.name ?? '' })
    }
    case 'field':
      return tr('tk.ev.field', { who, field: e.field ?? '' })
    case 'unassigned':
    case 'participant_removed':
    case 'mentioned':
    case 'update_request':
    case 'update_request_cleared':
    case 'feedback':
    case 'conclusion':
      return tr(`tk.ev.${e.kind}`, { who })
    default:
      return tr('tk.ev.other', { who, kind: e.kind })
  }
}

export default function TicketDetailPage({ params }: PageProps) {
  ensureStyles()
  const tr = useTr()
  useLocale()
  const liveNow = use(live)
  const id = /^\d+$/.test(params.id ?? '') ? Number(params.id) : 0
  const who = me.get()
  const userId = who ? who.user.id : 0
  const [ticket, setTicket] = useState<Ticket | null>(null)
  const [missing, setMissing] = useState(false)
  // The caller's own change (unfollow, an assignee who is not them) took the ticket out of sight.
  const [out, setOut] = useState(false)
  const [messages, setMessages] = useState<readonly TicketMessage[]>([])
  const [events, setEvents] = useState<readonly TicketEvent[]>([])
  const [people, setPeople] = useState<readonly Candidate[]>([])
  const [error, setError] = useState<unknown>(null)
  const [notice, setNotice] = useState<string | null>(null)

  const loadTicket = async () => {
    try {
      setTicket((await api.get('/v1/tickets/{id}', { path: { id } })).data)
      setMissing(false)
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) setMissing(true)
      else setError(e)
    }
  }
  const loadMessages = async () => {
    try {
      const r = await got<TicketMessage[]>(api.get('/v1/tickets/{id}/messages', { path: { id } }))
      setMessages((old) => byId(old, r.data))
      setEvents((old) => byId(old, (r.meta.events ?? []) as readonly TicketEvent[]))
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 404)) setError(e)
    }
  }

  useEffect(() => {
    if (id === 0) {
      setMissing(true)
      return
    }
    setTicket(null)
    setOut(false)
    setMessages([])
    setEvents([])
    void loadTicket()
    void loadMessages()
    if (can('tickets.create'))
      void got<Candidate[]>(api.get('/v1/tickets/candidates'))
        .then((r) => setPeople(r.data))
        .catch(() => null)
    const release = hold(topics.ticket(id), () => {
      void loadTicket()
      void loadMessages()
    })
    const off = onEvent((e) => {
      // Read as plain records: each of the ticket's events names its ticket.
      const data = e.data as unknown as Readonly<Record<string, unknown>>
      if (e.event === 'ticket.message' || e.event === 'ticket.message.updated') {
        if (data.ticket_id === id) setMessages((old) => byId(old, [data as unknown as TicketMessage]))
      } else if (e.event === 'ticket.event') {
        if (data.ticket_id === id) setEvents((old) => byId(old, [data as unknown as TicketEvent]))
      } else if (e.event === 'ticket.updated' && data.id === id) void loadTicket()
    })
    return () => {
      off()
      release()
    }
  }, [id])
  // A change that moves the ticket in or out of sight comes on the workspace's channel.
  useWorkspaceEvents(['tickets.changed'], (d) => {
    if (d.ticket_id === undefined || d.ticket_id === id) void loadTicket()
  })

  const act = async (f: () => Promise<unknown>, done?: string) => {
    setError(null)
    setNotice(null)
    try {
      await f()
      if (done) setNotice(done)
    } catch (e) {
      setError(e)
    }
  }
  /** A change's answer: the ticket, or `{visible: false}` when the caller no longer sees it. */
  const took = (data: unknown) => {
    const d = data as Ticket | { visible: false }
    if ('visible' in d) {
      setOut(true)
      setMissing(true)
    } else setTicket(d)
  }
  const leave = async (user: number) =>
    took((await api.delete('/v1/tickets/{id}/participants/{user}', { path: { id, user } })).data)
  const patch = (body: { status?: TicketStatus; priority?: Priority }) =>
    act(async () => took((await api.patch('/v1/tickets/{id}', { path: { id }, body })).data))

  if (missing)
    return (
      <div class="k-page" data-testid="ticket">
        <Link to="/tickets" class="k-back">
          {tr('tk.back')}
        </Link>
        {out ? (
          <Notice kind="ok">
            {notice ? `${notice} ` : ''}
            {tr('tk.out_of_sight')}
          </Notice>
        ) : (
          <Notice kind="info">{tr('tk.not_found')}</Notice>
        )}
      </div>
    )
  if (!ticket)
    return (
      <div class="k-page" data-testid="ticket" aria-busy="true">
        <FailNotice error={error} />
      </div>
    )

  const t = ticket
  const teamPeople = people.filter((p) => (p.can_view && p.team_ids.includes(t.team.id)) || p.is_admin)
  const addable = teamPeople.filter((p) => !t.assignees.some((a) => a.id === p.id))

  return (
    <div class="k-page" data-testid="ticket" data-live={liveNow.has(topics.ticket(id)) ? 'true' : 'false'}>
      <Link to="/tickets" class="k-back">
        {tr('tk.back')}
      </Link>
      <div class="k-head">
        <h1 class="tk-title">
          #{t.number} {t.subject}
        </h1>
        <StatusBadge status={t.status} tr={tr} />
        <PriorityBadge priority={t.priority} tr={tr} />
      </div>
      <div class="tk-grid">
        <div class="tk-main">
          {t.update_request ? (
            <p class="tk-banner" role="status" data-testid="update-request">
              {tr('tk.update_request', {
                name: t.update_request.by?.name ?? tr('tk.someone'),
                date: fullTime(t.update_request.requested_at),
              })}
            </p>
          ) : null}
          {notice ? <Notice kind="ok">{notice}</Notice> : null}
          <FailNotice error={error} />
          <Panel title={tr('tk.description')} id="tk-desc">
            <p class="tk-body">{t.description || tr('tk.no_description')}</p>
          </Panel>
          <Discussion
            ticket={t}
            messages={messages}
            people={people}
            tr={tr}
            onSent={(m) => setMessages((old) => byId(old, [m]))}
            act={act}
          />
          <Conclusion ticket={t} tr={tr} act={act} onSent={(m) => setMessages((old) => byId(old, [m]))} />
          <Panel title={tr('tk.history')} id="tk-history">
            <ol class="tk-log" data-testid="ticket-log">
              {events.map((e) => (
                <li key={e.id}>
                  <span class="k-muted">{fullTime(e.created_at)}</span> {eventLine(e, tr)}
                </li>
              ))}
            </ol>
          </Panel>
        </div>
        <div class="tk-side">
          <Panel title={tr('tk.details')} id="tk-details">
            {t.can.manage ? (
              <div class="tk-controls">
                <SelectField
                  label={tr('tk.status')}
                  name="status"
                  value={t.status}
                  onValue={(v) => void patch({ status: v as TicketStatus })}
                  options={STATUSES.map((s) => [s, tr(`tk.status.${s}`)] as const)}
                />
                <SelectField
                  label={tr('tk.priority')}
                  name="priority"
                  value={t.priority}
                  onValue={(v) => void patch({ priority: v as Priority })}
                  options={PRIORITIES.map((p) => [p, tr(`tk.priority.${p}`)] as const)}
                />
              </div>
            ) : null}
            <dl class="k-dl" style={{ marginTop: '10px' }}>
              <dt>{tr('tk.team')}</dt>
              <dd>{t.team.name}</dd>
              {t.due_date ? (
                <>
                  <dt>{tr('tk.due')}</dt>
                  <dd>
                    {t.due_date}{' '}
                    {t.overdue ? <span class="k-badge k-bad">{tr('tk.overdue_badge')}</span> : null}
                  </dd>
                </>
              ) : null}
              {t.contact ? (
                <>
                  <dt>{tr('tk.contact')}</dt>
                  <dd>{t.contact.name}</dd>
                </>
              ) : null}
            </dl>
            <p class="k-muted" style={{ marginTop: '8px' }}>
              {tr('tk.created_by', {
                name: t.creator?.name ?? tr('tk.someone'),
                date: fullTime(t.created_at),
              })}
            </p>
          </Panel>
          <Panel title={tr('tk.sla')} id="tk-sla">
            {t.sla ? (
              <div class="tk-sla" data-testid="ticket-sla">
                <span>
                  <SlaBadge sla={t.sla} tr={tr} />
                </span>
                <strong>{slaLine(t.sla, tr)}</strong>
                <span class="k-muted">
                  {tr('tk.sla.target', {
                    time: duration(t.sla.target_minutes, tr),
                    date: fullTime(t.sla.due_at),
                  })}
                </span>
              </div>
            ) : (
              <p class="k-muted">{tr('tk.sla.none')}</p>
            )}
          </Panel>
          {t.interaction ? (
            <Panel title={tr('tk.source')} id="tk-source">
              {t.interaction.can_open ? (
                <div class="k-stack" style={{ gap: '6px' }}>
                  <span>
                    {t.interaction.contact_name ?? ''}
                    {t.interaction.channel ? ` · ${t.interaction.channel.name}` : ''}
                  </span>
                  {t.interaction.preview ? <span class="k-muted">{t.interaction.preview}</span> : null}
                  <Link to={`/inbox/${t.interaction.id}`}>{tr('tk.source_open')}</Link>
                </div>
              ) : (
                <p class="k-muted">{tr('tk.source_hidden')}</p>
              )}
            </Panel>
          ) : null}
          <Panel title={tr('tk.participants')} id="tk-people">
            <ul class="tk-people" data-testid="participants">
              {t.participants.map((p) => (
                <li key={`${p.id}-${p.role}`} data-person={p.name}>
                  <span class="tk-who">
                    {p.name} <span class="k-muted">· {tr(`tk.role.${p.role}`)}</span>
                  </span>
                  {p.id === userId && p.role === 'mentioned' ? (
                    <ConfirmButton
                      label={tr('tk.unfollow')}
                      question={tr('tk.unfollow_q')}
                      danger={false}
                      onConfirm={() => act(() => leave(p.id), tr('tk.unfollowed'))}
                    />
                  ) : t.can.manage ? (
                    <ConfirmButton
                      label={tr('tk.remove')}
                      question={tr('tk.remove_q', { name: p.name })}
                      onConfirm={() => act(() => leave(p.id))}
                    />
                  ) : null}
                </li>
              ))}
            </ul>
            {t.can.manage && addable.length > 0 ? (
              <AddAssignee
                people={addable}
                tr={tr}
                onAdd={(userId) =>
                  act(async () =>
                    took(
                      (
                        await api.post('/v1/tickets/{id}/assignees', {
                          path: { id },
                          body: { user_id: userId },
                        })
                      ).data,
                    ),
                  )
                }
              />
            ) : null}
          </Panel>
        </div>
      </div>
    </div>
  )
}

const AddAssignee = (props: {
  people: readonly Candidate[]
  tr: Tr
  onAdd: (id: number) => Promise<void>
}) => {
  const [pick, setPick] = useState('')
  return (
    <form
      class="k-row"
      style={{ marginTop: '12px', alignItems: 'flex-end' }}
      onSubmit={(e) => {
        e.preventDefault()
        if (pick) void props.onAdd(Number(pick)).then(() => setPick(''))
      }}
    >
      <SelectField
        label={props.tr('tk.add_assignee')}
        name="assignee"
        value={pick}
        onValue={setPick}
        options={[['', props.tr('tk.choose')], ...props.people.map((p) => [String(p.id), p.name] as const)]}
      />
      <button type="submit" class="k-btn" disabled={!pick}>
        {props.tr('tk.add')}
      </button>
    </form>
  )
}

const Discussion = (props: {
  ticket: Ticket
  messages: readonly TicketMessage[]
  people: readonly Candidate[]
  tr: Tr
  onSent: (m: TicketMessage) => void
  act: (f: () => Promise<unknown>, done?: string) => Promise<void>
}) => {
  const { ticket: t, tr } = props
  const [body, setBody] = useState('')
  const [mentions, setMentions] = useState<readonly Candidate[]>([])
  const [pick, setPick] = useState('')
  const [fileError, setFileError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const files = useRef<HTMLInputElement>(null)
  // People to mention: every candidate (when the caller may list them) and the participants.
  const mentionable = [
    ...props.people,
    ...t.participants
      .filter((p) => !props.people.some((x) => x.id === p.id))
      .map((p) => ({ id: p.id, name: p.name, is_admin: false, can_view: true, team_ids: [] })),
  ].filter((p, i, all) => all.findIndex((x) => x.id === p.id) === i)

  const send = async (e: Event) => {
    e.preventDefault()
    const chosen = [...(files.current?.files ?? [])]
    if (chosen.length > 5) {
      setFileError(tr('tk.too_many_files'))
      return
    }
    setFileError(null)
    const ids = mentions.filter((m) => body.includes(`@${m.name}`)).map((m) => m.id)
    setBusy(true)
    await props.act(async () => {
      let r: { data: unknown }
      if (chosen.length > 0) {
        const form = new FormData()
        form.set('body', body)
        if (ids.length > 0) form.set('mention_ids', ids.join(','))
        for (const f of chosen) form.append('files[]', f)
        r = await api.post('/v1/tickets/{id}/messages', { path: { id: t.id }, body: form })
      } else {
        r = await api.post('/v1/tickets/{id}/messages', {
          path: { id: t.id },
          body: { body, ...(ids.length > 0 ? { mention_ids: ids } : {}) },
        })
      }
      props.onSent(r.data as TicketMessage)
      setBody('')
      setMentions([])
      if (files.current) files.current.value = ''
    })
    setBusy(false)
  }

  return (
    <Panel title={tr('tk.discussion')} id="tk-discussion">
      <ol class="tk-msgs" data-testid="discussion" aria-live="polite">
        {props.messages.length === 0 ? <li class="k-muted">{tr('tk.no_messages')}</li> : null}
        {props.messages.map((m) => (
          <li key={m.id} class={`tk-msg tk-k-${m.kind}`} data-message={m.id}>
            <div class="tk-msg-head">
              <strong>{m.sender?.name ?? tr('tk.someone')}</strong>
              <span>{fullTime(m.created_at)}</span>
              {m.kind !== 'comment' ? <span class="k-badge">{tr(`tk.kind.${m.kind}`)}</span> : null}
              {m.feedback ? <span class="k-badge k-ok">{tr('tk.feedback_sent')}</span> : null}
            </div>
            {m.body ? (
              <Body m={m} />
            ) : m.kind === 'update_request' ? (
              <p class="tk-body k-muted">
                {tr('tk.ev.update_request', { who: m.sender?.name ?? tr('tk.someone') })}
              </p>
            ) : null}
            {m.files.length > 0 ? (
              <ul class="tk-files">
                {m.files.map((f) => (
                  <li key={f.index}>
                    <a href={f.url} target="_blank" rel="noopener">
                      {f.name}
                    </a>{' '}
                    <span class="k-muted">{bytes(f.size)}</span>
                  </li>
                ))}
              </ul>
            ) : null}
            {t.can.feedback && !m.feedback && m.kind === 'comment' ? (
              <button
                type="button"
                class="k-btn"
                style={{ marginTop: '6px' }}
                onClick={() =>
                  void props.act(async () => {
                    const r = await api.post('/v1/tickets/{id}/messages/{message}/feedback', {
                      path: { id: t.id, message: m.id },
                    })
                    props.onSent(r.data as TicketMessage)
                  })
                }
              >
                {tr('tk.feedback')}
              </button>
            ) : null}
          </li>
        ))}
      </ol>
      {t.can.message ? (
        <form
          class="k-form"
          style={{ marginTop: '14px', maxWidth: 'none' }}
          onSubmit={send}
          data-testid="comment-form"
        >
          <TextAreaField
            label={tr('tk.comment')}
            name="body"
            value={body}
            onValue={setBody}
            hint={tr('tk.comment_hint')}
            rows={3}
            maxLength={10000}
          />
          {mentionable.length > 0 ? (
            <div class="k-row" style={{ alignItems: 'flex-end' }}>
              <SelectField
                label={tr('tk.mention')}
                name="mention"
                value={pick}
                onValue={(v) => {
                  const p = mentionable.find((x) => String(x.id) === v)
                  if (!p) return
                  setPick('')
                  setMentions((old) => (old.some((x) => x.id === p.id) ? old : [...old, p]))
                  setBody((old) => `${old}${old && !old.endsWith(' ') ? ' ' : ''}@${p.name} `)
                }}
                options={[['', tr('tk.choose')], ...mentionable.map((p) => [String(p.id), p.name] as const)]}
              />
            </div>
          ) : null}
          <div class="k-field">
            <label for="tk-files">{tr('tk.files')}</label>
            <input id="tk-files" type="file" name="files" multiple ref={files} />
            {fileError ? (
              <small class="k-error" role="alert">
                {fileError}
              </small>
            ) : null}
          </div>
          <button type="submit" class="k-btn k-primary" disabled={busy}>
            {tr('tk.send')}
          </button>
        </form>
      ) : null}
    </Panel>
  )
}

const Conclusion = (props: {
  ticket: Ticket
  tr: Tr
  act: (f: () => Promise<unknown>, done?: string) => Promise<void>
  onSent: (m: TicketMessage) => void
}) => {
  const { ticket: t, tr } = props
  const [text, setText] = useState('')
  const [resolve, setResolve] = useState(false)
  if (t.interaction_id === null) return null
  return (
    <Panel title={tr('tk.conclusion')} id="tk-conclusion">
      <form
        class="k-form"
        style={{ maxWidth: 'none' }}
        onSubmit={(e) => {
          e.preventDefault()
          void props.act(async () => {
            const r = await api.post('/v1/tickets/{id}/conclusion', {
              path: { id: t.id },
              body: { conclusion: text, ...(resolve && t.can.resolve ? { resolve: true } : {}) },
            })
            props.onSent(r.data as TicketMessage)
            setText('')
            setResolve(false)
          })
        }}
      >
        <TextAreaField
          label={tr('tk.conclusion')}
          name="conclusion"
          value={text}
          onValue={setText}
          hint={tr('tk.conclusion_hint')}
          rows={3}
          required
        />
        {t.can.resolve ? (
          <label class="k-check">
            <input
              type="checkbox"
              name="resolve"
              checked={resolve}
              onChange={(e) => setResolve(e.currentTarget.checked)}
            />
            {tr('tk.resolve')}
          </label>
        ) : null}
        <button type="submit" class="k-btn" disabled={!text.trim()}>
          {tr('tk.conclude')}
        </button>
      </form>
    </Panel>
  )
}
