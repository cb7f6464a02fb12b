import { useEffect, useState } from 'preact/hooks'
import { ApiDetail, NewApi } from './ApiPages'
import { Notice, StatusBadge } from './common'
import { EmailDetail, NewEmail } from './EmailPages'
import { api, type Fail, go, got, Link, onChannelUpdated, useTr } from './kit'
import { LivechatDetail, NewLivechat } from './LivechatPages'
import { MsgappDetail, NewMsgapp } from './MsgappPages'
import { ensureStyles } from './styles'
import type { TextKey } from './texts'
import type { Channel, ChannelType } from './types'

const Back = () => {
  const tr = useTr()
  return (
    <Link class="chs-back" to="/channels">
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
    <div class="chs-page chs-narrow">
      <Back />
      <header class="chs-head">
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
    got<Channel>(api.get('/v1/channels/{id}', { path: { id } })).then(
      (r) => {
        if (!alive) return
        setChannel(r.data)
        setStatus(r.data.status)
      },
      (e: Fail) => alive && setError(e.message),
    )
    const off = onChannelUpdated((ev) => {
      if (ev.channel_id === id && typeof ev.status === 'string') setStatus(ev.status)
    })
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
    <div class="chs-page">
      <Back />
      {error ? <Notice kind="bad">{tr('ch.error', { message: error })}</Notice> : null}
      {!channel && !error ? <p class="chs-muted">{tr('ch.loading')}</p> : null}
      {channel ? (
        <>
          <header class="chs-head">
            <h1>{channel.name}</h1>
            <span class="chs-muted">{tr(`ch.type.${channel.type}` as TextKey)}</span>
            {channel.type !== 'msgapp' && status ? (
              <StatusBadge status={status} linked={channel.type === 'email'} />
            ) : null}
          </header>
          {channel.type === 'msgapp' ? (
            <MsgappDetail channel={channel} />
          ) : channel.type === 'email' ? (
            <EmailDetail channel={channel} />
          ) : channel.type === 'livechat' ? (
            <LivechatDetail channel={channel} />
          ) : (
            <ApiDetail channel={channel} />
          )}
          <div class="chs-danger">
            <button class="chs-btn chs-btn-danger" type="button" onClick={remove}>
              {tr('ch.delete')}
            </button>
          </div>
        </>
      ) : null}
    </div>
  )
}
