import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { InteractionDetail, Message, Named, Status } from '../api/types'
import { ApiError, api } from '../lib/api'
import { t } from '../lib/i18n'
import * as Session from '../lib/session'
import * as Socket from '../lib/socket'
import { use } from '../lib/state'
import { ConversationTools } from '../tickets/inConversation'
import { Composer } from './composer'
import { ContactPanel } from './contactPanel'
import { BackArrow } from './icons'
import { type MessageActions, MessageView } from './message'

/**
 * One conversation: its header (status, team, assignee, category, live-chat pickup), messages
 * with live updates from `conv:{id}`, typing both ways, read marking, and the composer. After a
 * reconnect, or when the server cannot replay, it asks for the messages after the last one it
 * holds: messages are kept by id, so whatever arrives twice is shown once.
 */
interface Assignee extends Named {
  readonly team_ids: readonly number[]
}

const byId = (list: readonly Message[], more: readonly Message[]) => {
  const map = new Map(list.map((m) => [m.id, m]))
  for (const m of more) map.set(m.id, m)
  return [...map.values()].sort((a, b) => a.seq - b.seq || a.id - b.id)
}

/** The back control of the phone's one-column inbox (hidden on wider screens, styles.css). */
const Back = ({ back }: { back?: () => void }) =>
  back ? (
    <button type="button" class="back-button" aria-label={t('conv.back')} onClick={back}>
      <BackArrow />
    </button>
  ) : null

export const Conversation = ({ id, back }: { id: number; back?: () => void }) => {
  const me = use(Session.me)
  const liveNow = use(Socket.live)
  const userId = me ? me.user.id : 0
  const [detail, setDetail] = useState<InteractionDetail | null>(null)
  const [messages, setMessages] = useState<readonly Message[]>([])
  const [older, setOlder] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [typing, setTyping] = useState<Readonly<Record<string, string>>>({})
  const [assignees, setAssignees] = useState<readonly Assignee[]>([])
  const [teams, setTeams] = useState<readonly Named[]>([])
  const [categories, setCategories] = useState<readonly Named[]>([])
  const [quoting, setQuoting] = useState<Message | null>(null)
  const [now, setNow] = useState(Date.now())
  /** The contact shown as a sheet over the conversation where there is no room for its column. */
  const [sheet, setSheet] = useState(false)
  const contactButton = useRef<HTMLButtonElement>(null)
  const closeSheet = useCallback(() => {
    setSheet(false)
    contactButton.current?.focus()
  }, [])
  const list = useRef<HTMLOListElement>(null)
  const stick = useRef(true)
  const latest = useRef<readonly Message[]>([])
  latest.current = messages
  const conn = use(Socket.connection)
  const wasDown = useRef(false)

  const loadDetail = useCallback(async () => {
    try {
      // Out of sight is a 404 here (caught below); only a change answers `{visible: false}`.
      setDetail((await api.get('/v1/interactions/{id}', { path: { id } })).data)
    } catch (e) {
      setError(e instanceof ApiError && e.status === 404 ? '404' : e instanceof Error ? e.message : String(e))
    }
  }, [id])

  /** Everything after the last message held (a resume), or the latest page (first load). */
  const catchUp = useCallback(async () => {
    try {
      await readAfterLast()
    } catch (e) {
      // The detail's own load reports what is wrong (not visible, signed out); nothing to add.
      if (!(e instanceof ApiError)) throw e
    }
  }, [id])
  const readAfterLast = async () => {
    const have = latest.current
    const last = have[have.length - 1]
    let after = last?.id
    for (let i = 0; i < 20; i++) {
      const r = await api.get('/v1/interactions/{id}/messages', {
        path: { id },
        query: after === undefined ? { limit: 50 } : { after, limit: 100 },
      })
      const got = r.data
      if (after === undefined) setOlder(r.meta.has_more === true)
      setMessages((old) => byId(old, got))
      if (after === undefined || r.meta.has_more !== true || got.length === 0) break
      after = got[got.length - 1]!.id
    }
  }

  const markRead = useCallback(() => {
    if (document.visibilityState === 'visible')
      void api.post('/v1/interactions/{id}/read', { path: { id } }).catch(() => null)
  }, [id])

  useEffect(() => {
    const release = Socket.hold(Socket.topics.conversation(id), () => {
      void loadDetail()
      void catchUp()
    })
    const off = Socket.onEvent((e) => {
      // Destructured, `event` narrows `data` to that event's payload.
      const { event, data } = e
      if (event === 'message.created' || event === 'message.updated') {
        if (data.interaction_id !== id) return
        setMessages((old) => byId(old, [data as unknown as Message]))
        if (event === 'message.created') {
          // Whoever sent it has stopped typing: their indicator goes now, not when it expires.
          const sender = data.sender as { user_id?: number | null } | undefined
          const who = data.direction === 'in' ? 'customer' : String(sender?.user_id ?? '')
          setTyping((old) => {
            if (!(who in old)) return old
            const next = { ...old }
            delete next[who]
            return next
          })
          if (data.direction === 'in') markRead()
        }
      } else if (event === 'interaction.updated') {
        if (data.id === id) void loadDetail()
      } else if (event === 'typing') {
        if (data.user_id === userId) return
        const who = String(data.customer ? 'customer' : data.user_id)
        const name = typeof data.name === 'string' && data.name ? data.name : t('conv.customer')
        setTyping((old) => {
          const next = { ...old }
          if (data.typing) next[who] = name
          else delete next[who]
          return next
        })
      }
    })
    void loadDetail()
    void catchUp().then(markRead)
    void api
      .get('/v1/interactions/{id}/assignees', { path: { id } })
      .then((r) => {
        setAssignees(r.data as readonly Assignee[])
        setTeams((r.meta.teams ?? []) as readonly Named[])
      })
      .catch(() => null)
    void api
      .get('/v1/conversation-categories')
      .then((r) => setCategories(r.data as readonly Named[]))
      .catch(() => null)
    const tick = setInterval(() => setNow(Date.now()), 30000)
    return () => {
      release()
      off()
      clearInterval(tick)
    }
  }, [id, userId, loadDetail, catchUp, markRead])

  // Back from a dropped connection: whatever the replay did not bring, the API does.
  useEffect(() => {
    if (conn === 'down') wasDown.current = true
    else if (conn === 'open' && wasDown.current) {
      wasDown.current = false
      void catchUp()
      void loadDetail()
    }
  }, [conn, catchUp, loadDetail])

  useLayoutEffect(() => {
    const el = list.current
    if (el && stick.current) el.scrollTop = el.scrollHeight
  }, [messages])

  const loadOlder = async () => {
    const first = messages[0]
    if (!first) return
    const r = await api.get('/v1/interactions/{id}/messages', {
      path: { id },
      query: { before: first.id, limit: 50 },
    })
    stick.current = false
    setOlder(r.meta.has_more === true)
    setMessages((old) => byId(old, r.data))
  }

  const act = async (f: () => Promise<unknown>) => {
    setNotice(null)
    try {
      await f()
    } catch (e) {
      setNotice(e instanceof Error ? e.message : String(e))
    }
  }
  const patch = (body: Record<string, unknown>) =>
    act(async () => {
      const r = await api.patch('/v1/interactions/{id}', { path: { id }, body: body as never })
      const d = r.data as InteractionDetail | { visible: false }
      if ('visible' in d && d.visible === false) setError('404')
      else setDetail(d as InteractionDetail)
    })
  const pickup = () =>
    act(async () => {
      try {
        await api.post('/v1/interactions/{id}/pickup', { path: { id } })
      } finally {
        await loadDetail()
      }
    })
  const actions: MessageActions = {
    retry: (m) =>
      void act(async () => {
        const r = await api.post('/v1/interactions/{id}/messages/{message}/retry', {
          path: { id, message: m.id },
        })
        setMessages((old) => byId(old, [r.data as unknown as Message]))
      }),
    edit: (m, text) =>
      void act(async () => {
        const r = await api.patch('/v1/interactions/{id}/messages/{message}', {
          path: { id, message: m.id },
          body: { text },
        })
        setMessages((old) => byId(old, [r.data as unknown as Message]))
      }),
    unsend: (m) =>
      void act(async () => {
        const r = await api.delete('/v1/interactions/{id}/messages/{message}', {
          path: { id, message: m.id },
        })
        if (r.data && typeof r.data === 'object' && 'id' in r.data)
          setMessages((old) => byId(old, [r.data as unknown as Message]))
      }),
    react: (m, emoji) =>
      void act(() =>
        api.post('/v1/interactions/{id}/messages/{message}/reaction', {
          path: { id, message: m.id },
          body: { emoji },
        }),
      ),
    quote: (m) => setQuoting(m),
  }

  if (error === '404' || (error && !detail))
    return (
      <div class="conv pad muted" role="status">
        <Back back={back} />
        {error === '404' ? t('conv.gone') : t('error.generic', { message: error ?? '' })}
      </div>
    )
  if (!detail)
    return (
      <div class="conv pad muted">
        <Back back={back} />
        {t('list.loading')}
      </div>
    )

  const livechat = detail.channel?.type === 'livechat'
  const queued = livechat && !detail.picked_up && detail.status === 'open'
  const takenByOther = livechat && detail.picked_up && detail.assignee && detail.assignee.id !== userId
  const teamMembers = detail.team ? assignees.filter((a) => a.team_ids.includes(detail.team!.id)) : assignees
  const typers = Object.values(typing)
  const name = detail.contact?.name || detail.group?.name || `#${detail.id}`

  return (
    <div class={sheet ? 'conv-wrap sheet' : 'conv-wrap'}>
      <section
        class="conv"
        aria-label={name}
        data-live={liveNow.has(Socket.topics.conversation(id)) ? 'true' : 'false'}
      >
        <header class="conv-head">
          <div class="conv-title">
            <Back back={back} />
            <h2>{name}</h2>
            <span class="muted small conv-channel">
              {detail.channel?.name} · {detail.channel?.type}
            </span>
            <button
              type="button"
              class="contact-button"
              ref={contactButton}
              aria-expanded={sheet}
              aria-haspopup="dialog"
              onClick={() => setSheet(true)}
            >
              {t('panel.contact')}
            </button>
            <ConversationTools detail={detail} messages={messages} reload={loadDetail} />
          </div>
          <div class="conv-controls">
            <label>
              <span class="sr-only">{t('conv.status')}</span>
              <select
                aria-label={t('conv.status')}
                value={detail.status}
                onChange={(e) => void patch({ status: e.currentTarget.value as Status })}
                data-testid="status"
              >
                {(['open', 'solved', 'closed'] as const).map((s) => (
                  <option key={s} value={s}>
                    {t(`status.${s}`)}
                  </option>
                ))}
              </select>
            </label>
            <select
              aria-label={t('conv.team')}
              value={detail.team?.id ?? ''}
              onChange={(e) =>
                void patch({ team_id: e.currentTarget.value === '' ? null : Number(e.currentTarget.value) })
              }
            >
              <option value="">{t('conv.no_team')}</option>
              {teams.map((x) => (
                <option key={x.id} value={x.id}>
                  {x.name}
                </option>
              ))}
            </select>
            <select
              aria-label={t('conv.assignee')}
              value={detail.assignee?.id ?? ''}
              onChange={(e) =>
                void patch({
                  assignee_id: e.currentTarget.value === '' ? null : Number(e.currentTarget.value),
                })
              }
              data-testid="assignee"
            >
              <option value="">{t('conv.unassigned')}</option>
              {detail.assignee && !teamMembers.some((a) => a.id === detail.assignee!.id) && (
                <option value={detail.assignee.id}>{detail.assignee.name}</option>
              )}
              {teamMembers.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
            </select>
            <select
              aria-label={t('conv.category')}
              value={detail.category?.id ?? ''}
              onChange={(e) =>
                void patch({
                  category_id: e.currentTarget.value === '' ? null : Number(e.currentTarget.value),
                })
              }
            >
              <option value="">{t('conv.no_category')}</option>
              {categories.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          </div>
        </header>
        {queued && (
          <div class="banner queue" data-testid="queue">
            <span>{t('conv.queue')}</span>
            <button type="button" class="primary" onClick={() => void pickup()} data-testid="pickup">
              {t('conv.pickup')}
            </button>
          </div>
        )}
        {takenByOther && (
          <div class="banner taken" data-testid="taken">
            {t('conv.taken', { name: detail.assignee!.name })}
          </div>
        )}
        {notice && (
          <div class="banner error" role="alert">
            {notice}
          </div>
        )}
        <ol
          class="messages"
          ref={list}
          aria-label={t('list.label')}
          aria-live="polite"
          onScroll={(e) => {
            const el = e.currentTarget
            stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40
          }}
        >
          {older && (
            <li class="older">
              <button type="button" onClick={() => void loadOlder()}>
                {t('conv.older')}
              </button>
            </li>
          )}
          {messages.map((m) => (
            <MessageView
              key={m.id}
              m={m}
              mine={m.direction === 'out' && m.sender.user_id === userId}
              now={now}
              actions={actions}
            />
          ))}
        </ol>
        <div class="typing" aria-live="polite" data-testid="typing">
          {typers.length > 0 ? t('conv.typing', { name: typers.join(', ') }) : ''}
        </div>
        <Composer
          interactionId={id}
          heldBy={detail.assignee && detail.assignee.id !== userId ? detail.assignee : null}
          takeOver={async () => {
            const r = await api.patch('/v1/interactions/{id}', {
              path: { id },
              body: { assignee_id: userId } as never,
            })
            const d = r.data as InteractionDetail | { visible: false }
            if (!('visible' in d)) setDetail(d as InteractionDetail)
          }}
          quoting={quoting}
          clearQuote={() => setQuoting(null)}
          onSent={(m) => {
            stick.current = true
            setMessages((old) => byId(old, [m]))
          }}
        />
      </section>
      <ContactPanel detail={detail} sheet={sheet} close={closeSheet} />
    </div>
  )
}
