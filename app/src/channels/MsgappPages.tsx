import { useEffect, useState } from 'preact/hooks'
import { Notice, Panel, SelectField, StatusBadge, TextField, when } from './common'
import { api, type Fail, go, got, onChannelUpdated, useLocale, useTr } from './kit'
import type { TextKey } from './texts'
import type { Channel, NumberStatus, Qr } from './types'

/** `/app/channels/new/msgapp`: name the number; linking happens on its page. */
export const NewMsgapp = () => {
  const tr = useTr()
  const [name, setName] = useState('')
  const [fields, setFields] = useState<Record<string, string>>({})
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      const r = await got<Channel>(api.post('/v1/channels', { body: { name } }))
      go(`/channels/${r.data.id}`)
    } catch (err) {
      const f = err as Fail
      setFields(f.fields ?? {})
      if (!f.fields) setError(f.message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <form class="k-form" onSubmit={submit}>
      <TextField
        label={tr('ch.name')}
        name="name"
        value={name}
        onValue={setName}
        hint={tr('ma.name_hint')}
        error={fields.name}
        required
        maxLength={100}
      />
      {error ? <Notice kind="bad">{error}</Notice> : null}
      <button class="k-btn k-primary" type="submit" disabled={busy}>
        {tr('ma.add')}
      </button>
    </form>
  )
}

/**
 * A number's page: live status from `channel.updated`; while unlinked, the QR (fetched again when
 * its lifetime runs out or the status changes) and the pairing-code form.
 */
export const MsgappDetail = ({ channel }: { channel: Channel }) => {
  const tr = useTr()
  const locale = useLocale()
  const [st, setSt] = useState<NumberStatus | null>(null)
  const [qr, setQr] = useState<Qr | null>(null)
  const [left, setLeft] = useState(0)
  const [error, setError] = useState<string | null>(null)
  const [tick, setTick] = useState(0)

  // Status: first from the API, then every `channel.updated` of this channel reloads it.
  useEffect(() => {
    let alive = true
    const load = () =>
      got<NumberStatus>(api.get('/v1/channels/{id}/status', { path: { id: channel.id } })).then(
        (r) => alive && setSt(r.data),
        (e: Fail) => alive && setError(e.message),
      )
    void load()
    const off = onChannelUpdated(
      (ev) => {
        if (ev.channel_id === channel.id) {
          void load()
          setTick((n) => n + 1)
        }
      },
      () => void load(),
    )
    return () => {
      alive = false
      off()
    }
  }, [channel.id])

  const status = st?.status ?? channel.status
  const neverLinked = st !== null && !st.linked_at
  // A new or logged-out number connects, then shows QR codes until a phone links it; a QR that
  // timed out (408) closes the connection, and until the next one the number is reconnecting, still
  // to be linked.
  const unlinked = status === 'qr' || ((status === 'connecting' || status === 'reconnecting') && neverLinked)
  const reason = st && status !== 'active' ? closeReason(st.last_close_code, neverLinked, status) : null

  // The QR: refetched when it expires, when the status changes, and every 2 s while none is ready
  // (a new code does not change the status, so there is no event to wait for).
  useEffect(() => {
    if (!unlinked) {
      setQr(null)
      return
    }
    let alive = true
    let timer: ReturnType<typeof setTimeout> | undefined
    const load = async () => {
      try {
        const r = await got<Qr>(api.get('/v1/channels/{id}/qr', { path: { id: channel.id } }))
        if (!alive) return
        setQr(r.data)
        setLeft(r.data.lifetime)
        timer = setTimeout(load, r.data.qr ? Math.max(1, r.data.lifetime) * 1000 : 2000)
      } catch {
        // 409 once linked: the status reload shows that.
        if (alive) timer = setTimeout(load, 3000)
      }
    }
    void load()
    return () => {
      alive = false
      clearTimeout(timer)
    }
  }, [channel.id, unlinked, tick])

  useEffect(() => {
    if (left <= 0) return
    const t = setTimeout(() => setLeft((s) => s - 1), 1000)
    return () => clearTimeout(t)
  }, [left])

  const act = async (path: 'logout' | 'reconnect') => {
    setError(null)
    try {
      const r = await got<NumberStatus>(
        api.post(path === 'logout' ? '/v1/channels/{id}/logout' : '/v1/channels/{id}/reconnect', {
          path: { id: channel.id },
        }),
      )
      setSt((s) => (s ? { ...s, ...r.data } : r.data))
    } catch (e) {
      setError((e as Fail).message)
    }
  }

  return (
    <div class="k-stack">
      <p class="k-row" aria-live="polite" data-testid="number-status">
        <StatusBadge status={status} />
        {st?.phone && status === 'active' ? <span>{tr('ma.linked', { phone: st.phone })}</span> : null}
        {st?.last_connected_at && status !== 'active' ? (
          <span class="k-muted">{tr('ma.last_connected', { at: when(st.last_connected_at, locale) })}</span>
        ) : null}
      </p>
      {reason ? (
        <p class={`k-notice k-notice-${reason.bad ? 'bad' : 'info'}`} data-testid="close-reason">
          {tr(reason.key, { code: st?.last_close_code ?? '' })}
        </p>
      ) : null}
      {error ? <Notice kind="bad">{error}</Notice> : null}
      {unlinked ? (
        <div class="chs-link">
          <Panel title={tr('ma.link_title')} id="ma-link">
            {neverLinked ? <p data-testid="never-linked">{tr('ma.never_linked')}</p> : null}
            <p>{tr('ma.qr_steps')}</p>
            <div class="chs-qr">
              {qr?.qr ? (
                <img src={qr.qr} alt={tr('ma.qr_alt')} width={260} height={260} data-testid="qr" />
              ) : (
                <div class="chs-qr-wait" role="status">
                  {tr('ma.qr_wait')}
                </div>
              )}
            </div>
            {qr?.qr && left > 0 ? <p class="k-muted">{tr('ma.qr_expires', { s: left })}</p> : null}
            {status === 'reconnecting' ? (
              <button class="k-btn" type="button" onClick={() => act('reconnect')}>
                {tr('ma.new_qr')}
              </button>
            ) : null}
          </Panel>
          <Pairing channelId={channel.id} />
        </div>
      ) : null}
      {!unlinked && st ? (
        <Panel title={tr('ma.number')} id="ma-number">
          <dl class="k-dl">
            <dt>{tr('ma.phone_label')}</dt>
            <dd>{st.phone ?? '—'}</dd>
            {st.linked_at ? (
              <>
                <dt>{tr('ma.linked_at')}</dt>
                <dd>{when(st.linked_at, locale)}</dd>
              </>
            ) : null}
            {st.health ? (
              <>
                <dt>{tr('ma.sent_24h')}</dt>
                <dd>{tr('ma.sent_counts', { sent: st.health.sent_24h, failed: st.health.failed_24h })}</dd>
              </>
            ) : null}
            {st.health?.warmup ? (
              <>
                <dt>{tr('ma.warmup')}</dt>
                <dd>
                  {tr('ma.warmup_text', {
                    remaining: st.health.warmup.remaining,
                    limit: st.health.warmup.limit,
                    until: when(st.health.warmup.ends_at, locale),
                  })}
                </dd>
              </>
            ) : null}
          </dl>
          {status === 'active' ? (
            <History channelId={channel.id} history={st.history} onStatus={setSt} />
          ) : null}
          <div class="k-row">
            {status === 'unreachable' || status === 'restricted' || status === 'reconnecting' ? (
              <button class="k-btn" type="button" onClick={() => act('reconnect')}>
                {tr('ma.reconnect')}
              </button>
            ) : null}
            <button class="k-btn" type="button" onClick={() => act('logout')}>
              {tr('ma.logout')}
            </button>
          </div>
        </Panel>
      ) : null}
      {status === 'logged_out' ? (
        <div class="k-row">
          <button class="k-btn k-primary" type="button" onClick={() => act('reconnect')}>
            {tr('ma.reconnect')}
          </button>
        </div>
      ) : null}
    </div>
  )
}

/** Close codes the page explains (Baileys' DisconnectReason); others read "closed (code n)". */
const EXPLAINED = new Set([401, 403, 408, 411, 428, 440, 500, 503, 515])
/** Codes after which the number needs the owner (link again, or it is refused), not just time. */
const NEEDS_OWNER = new Set([401, 403, 411, 500])

/**
 * Why the number's last connection closed, in words, with what to do (null when there is nothing
 * to explain: connected, or a new number that has not closed yet).
 */
const closeReason = (
  code: number | null,
  neverLinked: boolean,
  status: string,
): { key: TextKey; bad: boolean } | null => {
  if (code === null) return status === 'reconnecting' ? { key: 'ma.close.none', bad: false } : null
  if (code === 408 && neverLinked) return { key: 'ma.close.408_unlinked', bad: false }
  if (EXPLAINED.has(code)) return { key: `ma.close.${code}` as TextKey, bad: NEEDS_OWNER.has(code) }
  return { key: 'ma.close.other', bad: false }
}

const HISTORY_DAYS = [7, 30, 90] as const

/** Import chat history; its progress arrives with `channel.updated` (the status is reloaded). */
const History = (props: {
  channelId: number
  history: NumberStatus['history']
  onStatus: (s: NumberStatus) => void
}) => {
  const tr = useTr()
  const [days, setDays] = useState('7')
  const [error, setError] = useState<string | null>(null)
  const h = props.history
  const running = h !== null && (h.progress ?? 0) < 100
  const start = async () => {
    setError(null)
    try {
      const r = await got<NumberStatus>(
        api.post('/v1/channels/{id}/history', {
          path: { id: props.channelId },
          body: { days: HISTORY_DAYS.find((d) => String(d) === days) ?? 7 },
        }),
      )
      props.onStatus(r.data)
    } catch (e) {
      setError((e as Fail).message)
    }
  }
  return (
    <div class="chs-history">
      <div class="k-row">
        <SelectField
          label={tr('ma.history')}
          name="history_days"
          value={days}
          options={HISTORY_DAYS.map((d) => [String(d), tr('em.history_days', { n: d })] as const)}
          onValue={setDays}
        />
        <button class="k-btn k-end" type="button" onClick={start} disabled={running}>
          {tr('ma.history_start')}
        </button>
      </div>
      {h ? (
        <p role="status" data-testid="history">
          {running
            ? tr('ma.history_running', { days: h.days, progress: h.progress ?? 0, n: h.imported })
            : tr('ma.history_done', { days: h.days, n: h.imported })}
        </p>
      ) : null}
      {error ? <Notice kind="bad">{error}</Notice> : null}
    </div>
  )
}

const Pairing = ({ channelId }: { channelId: number }) => {
  const tr = useTr()
  const [phone, setPhone] = useState('')
  const [code, setCode] = useState<string | null>(null)
  const [fieldError, setFieldError] = useState<string | undefined>()
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    setFieldError(undefined)
    try {
      const r = await got<{ phone: string; code: string }>(
        api.post('/v1/channels/{id}/pair', { path: { id: channelId }, body: { phone } }),
      )
      setCode(r.data.code)
    } catch (err) {
      const f = err as Fail
      if (f.fields?.phone) setFieldError(f.fields.phone)
      else setError(f.message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <Panel title={tr('ma.pair_title')} id="ma-pair">
      <form class="k-form" onSubmit={submit}>
        <TextField
          label={tr('ma.phone')}
          name="phone"
          type="tel"
          autoComplete="tel"
          placeholder="+62 812 3456 7890"
          value={phone}
          onValue={setPhone}
          error={fieldError}
          required
        />
        {error ? <Notice kind="bad">{error}</Notice> : null}
        <button class="k-btn" type="submit" disabled={busy}>
          {tr('ma.pair')}
        </button>
      </form>
      {code ? (
        <div role="status">
          <p>{tr('ma.pair_code')}</p>
          <p class="chs-code" data-testid="pair-code">
            {code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code}
          </p>
        </div>
      ) : null}
    </Panel>
  )
}
