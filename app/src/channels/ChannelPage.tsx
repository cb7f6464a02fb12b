import { useEffect, useState } from 'preact/hooks'
import { ApiDetail, NewApi } from './ApiPages'
import { Notice, StatusBadge } from './common'
import { EmailDetail, NewEmail } from './EmailPages'
import { api, canManage, type Fail, go, got, Link, onChannelUpdated, useTr } from './kit'
import { LivechatDetail, NewLivechat } from './LivechatPages'
import { MsgappDetail, NewMsgapp } from './MsgappPages'
import { CommonSettings } from './SettingsPanels'
import { ensureStyles } from './styles'
import type { TextKey } from './texts'
import type { Channel, ChannelType } from './types'

const Back = () => {
  const tr = useTr()
  return (
    <Link class="k-back" to="/channels">
      ← {tr('ch.back')}
    </Link>
  )
}

const NEW_TITLE: Record<ChannelType, TextKey> = {
  msgapp: 'ma.new_title',
  email: 'em.new_title',
  livechat: 'lc.new_title',
  api: 'api.new_title',
}

/** `/app/channels/new/{type}`. */
export const NewChannelPage = ({ type }: { type: string }) => {
  ensureStyles()
  const tr = useTr()
  const t = (type in NEW_TITLE ? type : 'msgapp') as ChannelType
  return (
    <div class="k-page k-narrow">
      <Back />
      <header class="k-head">
        <h1>{tr(NEW_TITLE[t])}</h1>
      </header>
      {t === 'msgapp' ? (
        <NewMsgapp />
      ) : t === 'email' ? (
        <NewEmail />
      ) : t === 'livechat' ? (
        <NewLivechat />
      ) : (
        <NewApi />
      )}
    </div>
  )
}

/** `/app/channels/{id}`: the channel's own page by type, its name and status live. */
export const ChannelPage = ({ id }: { id: number }) => {
  ensureStyles()
  const tr = useTr()
  const [channel, setChannel] = useState<Channel | null>(null)
  const [status, setStatus] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    let alive = true
    setChannel(null)
    const load = (first: boolean) =>
      got<Channel>(api.get('/v1/channels/{id}', { path: { id } })).then(
        (r) => {
          if (!alive) return
          setChannel(r.data)
          setStatus(r.data.status)
        },
        // A reload that fails (the channel just deleted, a network gap) leaves the page as it was.
        (e: Fail) => alive && first && setError(e.message),
      )
    void load(true)
    // The event says the status; a change of name or settings (by someone else, or in another
    // tab) is read again, so the header and unedited forms show it.
    const off = onChannelUpdated(
      (ev) => {
        if (ev.channel_id !== id) return
        if (typeof ev.status === 'string') setStatus(ev.status)
        void load(false)
      },
      () => void load(false),
    )
    return () => {
      alive = false
      off()
    }
  }, [id])

  const remove = async () => {
    if (!confirm(tr('ch.delete_confirm'))) return
    try {
      await api.delete('/v1/channels/{id}', { path: { id } })
      go('/channels')
    } catch (e) {
      setError((e as Fail).message)
    }
  }

  return (
    <div class="k-page">
      <Back />
      {error && !channel ? (
        // Refused or gone: the page still says what it is, then the server's words for why.
        <header class="k-head">
          <h1>{tr('ch.channel')}</h1>
        </header>
      ) : null}
      {error ? <Notice kind="bad">{error}</Notice> : null}
      {!channel && !error ? <p class="k-muted">{tr('ch.loading')}</p> : null}
      {channel ? (
        <>
          <header class="k-head">
            <h1>{channel.name}</h1>
            <span class="k-muted">{tr(`ch.type.${channel.type}` as TextKey)}</span>
            {channel.type !== 'msgapp' && status ? (
              <StatusBadge status={status} linked={channel.type === 'email'} />
            ) : null}
          </header>
          <div class="k-stack">
            {channel.type === 'msgapp' ? (
              <MsgappDetail channel={channel} />
            ) : channel.type === 'email' ? (
              <EmailDetail channel={channel} onSaved={setChannel} />
            ) : channel.type === 'livechat' ? (
              <LivechatDetail channel={channel} />
            ) : (
              <ApiDetail channel={channel} />
            )}
            {canManage() ? <CommonSettings channel={channel} onSaved={setChannel} /> : null}
          </div>
          <div class="k-danger">
            <button class="k-btn k-btn-danger" type="button" onClick={remove}>
              {tr('ch.delete')}
            </button>
          </div>
        </>
      ) : null}
    </div>
  )
}
