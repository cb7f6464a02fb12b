import { useEffect, useState } from 'preact/hooks'
import { Notice, StatusBadge } from './common'
import { api, canManage, type Fail, got, Link, onChannelUpdated, useTr } from './kit'
import { ensureStyles } from './styles'
import type { TextKey } from './texts'
import type { Channel, Quota } from './types'

const ADD = [
  ['msgapp', 'ch.add.msgapp', 'ch.add.msgapp_hint'],
  ['email', 'ch.add.email', 'ch.add.email_hint'],
  ['livechat', 'ch.add.livechat', 'ch.add.livechat_hint'],
  ['api', 'ch.add.api', 'ch.add.api_hint'],
] as const satisfies readonly (readonly [string, TextKey, TextKey])[]

/** `/app/channels`: every channel the user can reach, its live status, and the ways to add one. */
export const ChannelsPage = () => {
  ensureStyles()
  const tr = useTr()
  const [channels, setChannels] = useState<readonly Channel[] | null>(null)
  const [quota, setQuota] = useState<Quota | null>(null)
  const [error, setError] = useState<string | null>(null)
  const manage = canManage()

  useEffect(() => {
    let alive = true
    // The ids shown, so an event about another channel (new, or newly visible) reloads the list.
    let shown = new Set<number>()
    const load = () =>
      got<Channel[]>(api.get('/v1/channels')).then(
        (r) => {
          if (!alive) return
          shown = new Set(r.data.map((c) => c.id))
          setChannels(r.data)
          setQuota((r.meta.quota as Quota | undefined) ?? null)
        },
        (e: Fail) => alive && setError(e.message),
      )
    void load()
    // The event carries the new status, shown at once; the rest (a new name, a channel new or
    // newly visible) comes with the reload.
    const off = onChannelUpdated((ev) => {
      const status = ev.status
      if (typeof status === 'string' && shown.has(ev.channel_id))
        setChannels((cs) => (cs ? cs.map((c) => (c.id === ev.channel_id ? { ...c, status } : c)) : cs))
      void load()
    }, load)
    return () => {
      alive = false
      off()
    }
  }, [])

  return (
    <div class="k-page">
      <header class="k-head">
        <h1>{tr('ch.title')}</h1>
        {quota ? (
          <span class="k-muted" data-testid="channel-quota">
            {quota.limit
              ? tr('ch.quota', { used: quota.used, limit: quota.limit })
              : tr('ch.quota_unlimited', { used: quota.used })}
          </span>
        ) : null}
      </header>
      {error ? <Notice kind="bad">{tr('ch.error', { message: error })}</Notice> : null}
      {channels === null && !error ? <p class="k-muted">{tr('ch.loading')}</p> : null}
      {channels && channels.length === 0 ? <p class="k-muted">{tr('ch.empty')}</p> : null}
      {channels && channels.length > 0 ? (
        <table class="k-table" aria-label={tr('ch.title')}>
          <thead>
            <tr>
              <th scope="col">{tr('ch.col.name')}</th>
              <th scope="col">{tr('ch.col.type')}</th>
              <th scope="col">{tr('ch.col.status')}</th>
            </tr>
          </thead>
          <tbody>
            {channels.map((c) => (
              <tr key={c.id} data-channel-id={c.id}>
                <td>{manage ? <Link to={`/channels/${c.id}`}>{c.name}</Link> : c.name}</td>
                <td>{tr(`ch.type.${c.type}` as TextKey)}</td>
                <td>
                  <StatusBadge status={c.status} linked={c.type === 'msgapp' || c.type === 'email'} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {manage ? (
        <>
          <h2 class="k-sub">{tr('ch.add')}</h2>
          <ul class="k-cards">
            {ADD.map(([type, title, hint]) => (
              <li key={type}>
                <Link class="k-card" to={`/channels/new/${type}`}>
                  <strong>{tr(title)}</strong>
                  <span>{tr(hint)}</span>
                </Link>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  )
}
