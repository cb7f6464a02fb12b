import { useEffect, useState } from 'preact/hooks'
import { CheckField, CopyBox, Notice, Panel, SelectField, TextField, when } from './common'
import { api, type Fail, go, got, useLocale, useTr } from './kit'
import type { ApiChannel, Channel } from './types'

const RETRIES = [0, 1, 2, 3, 4, 5].map((n) => [String(n), String(n)] as const)

/**
 * `/app/channels/new/api`: create, then show the channel key and webhook secret this once. They
 * live only in this component's state: the channel's page never shows the key again (only its
 * prefix), and replacing either shows the new value once the same way.
 */
export const NewApi = () => {
  const tr = useTr()
  const [name, setName] = useState('')
  const [url, setUrl] = useState('')
  const [retries, setRetries] = useState('3')
  const [convEvents, setConvEvents] = useState(false)
  const [fields, setFields] = useState<Record<string, string>>({})
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [made, setMade] = useState<ApiChannel | null>(null)

  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    setFields({})
    try {
      const r = await got<ApiChannel>(
        api.post('/v1/channels/api', {
          body: {
            name,
            webhook_url: url.trim() || null,
            retries: Number(retries),
            events: convEvents ? ['message.created', 'conversation.updated'] : ['message.created'],
          },
        }),
      )
      setMade(r.data)
    } catch (err) {
      const f = err as Fail
      setFields(f.fields ?? {})
      setError(f.fields ? null : f.message)
    } finally {
      setBusy(false)
    }
  }

  if (made?.credentials)
    return (
      <OnceCredentials
        keyValue={made.credentials.key}
        secret={made.credentials.webhook_secret}
        onDone={() => go(`/channels/${made.id}`)}
      />
    )
  return (
    <form class="k-form" onSubmit={submit}>
      <TextField
        label={tr('ch.name')}
        name="name"
        value={name}
        onValue={setName}
        error={fields.name}
        required
      />
      <TextField
        label={tr('api.webhook_url')}
        name="webhook_url"
        type="url"
        placeholder="https://example.com/kotak/webhook"
        value={url}
        onValue={setUrl}
        hint={tr('api.webhook_hint')}
        error={fields.webhook_url}
      />
      <SelectField
        label={tr('api.retries')}
        name="retries"
        value={retries}
        options={RETRIES}
        onValue={setRetries}
        error={fields.retries}
      />
      <CheckField name="events" label={tr('api.events_conv')} checked={convEvents} onValue={setConvEvents} />
      {error ? <Notice kind="bad">{error}</Notice> : null}
      <button class="k-btn k-primary" type="submit" disabled={busy}>
        {tr('ch.create')}
      </button>
    </form>
  )
}

const OnceCredentials = (props: { keyValue?: string; secret?: string; onDone: () => void }) => {
  const tr = useTr()
  return (
    <section class="k-panel chs-once" aria-labelledby="api-once" data-testid="once-credentials">
      <h2 id="api-once">{tr('api.once_title')}</h2>
      <Notice kind="info">{tr('api.once_text')}</Notice>
      {props.keyValue ? <CopyBox label={tr('api.key')} name="channel_key" value={props.keyValue} /> : null}
      {props.secret ? <CopyBox label={tr('api.secret')} name="webhook_secret" value={props.secret} /> : null}
      <button class="k-btn k-primary" type="button" onClick={props.onDone}>
        {tr('api.saved_it')}
      </button>
    </section>
  )
}

/** An API channel's page: settings, the key's prefix and last use, tests, the delivery log. */
export const ApiDetail = ({ channel }: { channel: Channel }) => {
  const tr = useTr()
  const locale = useLocale()
  const [info, setInfo] = useState<ApiChannel | null>(null)
  const [url, setUrl] = useState('')
  const [retries, setRetries] = useState('3')
  const [convEvents, setConvEvents] = useState(false)
  const [fields, setFields] = useState<Record<string, string>>({})
  const [note, setNote] = useState<{ kind: 'ok' | 'bad' | 'info'; text: string } | null>(null)
  const [once, setOnce] = useState<{ key?: string; secret?: string } | null>(null)

  const load = async () => {
    const r = await got<ApiChannel>(api.get('/v1/channels/{id}/api', { path: { id: channel.id } }))
    setInfo(r.data)
    return r.data
  }
  useEffect(() => {
    load().then(
      (a) => {
        setUrl(a.api.webhook_url ?? '')
        setRetries(String(a.api.retries))
        setConvEvents(a.api.events.includes('conversation.updated'))
      },
      (e: Fail) => setNote({ kind: 'bad', text: e.message }),
    )
  }, [channel.id])

  const run = async (f: () => Promise<void>) => {
    setNote(null)
    setFields({})
    try {
      await f()
    } catch (err) {
      const e = err as Fail
      setFields(e.fields ?? {})
      if (!e.fields) setNote({ kind: 'bad', text: e.message })
    }
  }
  const save = (e: Event) => {
    e.preventDefault()
    return run(async () => {
      await got(
        api.patch('/v1/channels/{id}/api', {
          path: { id: channel.id },
          body: {
            webhook_url: url.trim() || null,
            retries: Number(retries),
            events: convEvents ? ['message.created', 'conversation.updated'] : ['message.created'],
          },
        }),
      )
      await load()
      setNote({ kind: 'ok', text: tr('ch.saved') })
    })
  }
  const replaceKey = () =>
    run(async () => {
      if (!confirm(tr('api.replace_key_confirm'))) return
      const r = await got<{ key: string }>(
        api.post('/v1/channels/{id}/api/key', { path: { id: channel.id } }),
      )
      setOnce({ key: r.data.key })
      await load()
    })
  const replaceSecret = () =>
    run(async () => {
      const r = await got<{ webhook_secret: string }>(
        api.post('/v1/channels/{id}/api/secret', { path: { id: channel.id } }),
      )
      setOnce({ secret: r.data.webhook_secret })
    })
  const ping = () =>
    run(async () => {
      const r = await got<{
        status: string
        http_status: number | null
        duration_ms: number
        error: string | null
      }>(api.post('/v1/channels/{id}/api/test-webhook', { path: { id: channel.id } }))
      const d = r.data
      setNote({
        kind: d.status === 'delivered' ? 'ok' : 'bad',
        text:
          tr('api.test_result', { status: d.status, http: d.http_status ?? '', ms: d.duration_ms }) +
          (d.error ? ` — ${d.error}` : ''),
      })
      await load()
    })
  const testMessage = () =>
    run(async () => {
      await got(api.post('/v1/channels/{id}/api/test-message', { path: { id: channel.id }, body: {} }))
      setNote({ kind: 'ok', text: tr('api.test_message_done') })
    })

  if (once) return <OnceCredentials keyValue={once.key} secret={once.secret} onDone={() => setOnce(null)} />
  if (!info)
    return note ? <Notice kind={note.kind}>{note.text}</Notice> : <p class="k-muted">{tr('ch.loading')}</p>
  const k = info.api.key
  return (
    <div class="k-stack">
      <Panel title={tr('api.key')} id="api-key">
        <p data-testid="key-prefix">
          {tr('api.key_prefix', { prefix: k.prefix })}{' '}
          <span class="k-muted">
            (
            {k.last_used_at
              ? tr('api.key_last_used', { at: when(k.last_used_at, locale) })
              : tr('api.key_never_used')}
            )
          </span>
        </p>
        <CopyBox label={tr('api.inbound')} name="inbound_url" value={info.api.inbound_url} />
        <div class="k-row">
          <button class="k-btn" type="button" onClick={replaceKey}>
            {tr('api.replace_key')}
          </button>
          <button class="k-btn" type="button" onClick={replaceSecret}>
            {tr('api.replace_secret')}
          </button>
        </div>
      </Panel>
      <form class="k-form k-panel" onSubmit={save} aria-labelledby="api-webhook">
        <h2 id="api-webhook">{tr('api.webhook')}</h2>
        <TextField
          label={tr('api.webhook_url')}
          name="webhook_url"
          type="url"
          value={url}
          onValue={setUrl}
          error={fields.webhook_url}
        />
        <SelectField
          label={tr('api.retries')}
          name="retries"
          value={retries}
          options={RETRIES}
          onValue={setRetries}
          error={fields.retries}
        />
        <CheckField
          name="events"
          label={tr('api.events_conv')}
          checked={convEvents}
          onValue={setConvEvents}
        />
        <div class="k-row">
          <button class="k-btn k-primary" type="submit">
            {tr('ch.save')}
          </button>
          <button class="k-btn" type="button" onClick={ping}>
            {tr('api.test_webhook')}
          </button>
          <button class="k-btn" type="button" onClick={testMessage}>
            {tr('api.test_message')}
          </button>
        </div>
        {note ? <Notice kind={note.kind}>{note.text}</Notice> : null}
      </form>
      <Panel title={tr('api.deliveries')} id="api-deliveries">
        {info.api.deliveries.length === 0 ? (
          <p class="k-muted">{tr('api.deliveries_empty')}</p>
        ) : (
          <table class="k-table" data-testid="deliveries">
            <thead>
              <tr>
                <th scope="col">{tr('api.col.time')}</th>
                <th scope="col">{tr('api.col.event')}</th>
                <th scope="col">{tr('api.col.result')}</th>
                <th scope="col">{tr('api.col.attempts')}</th>
                <th scope="col">{tr('api.col.error')}</th>
              </tr>
            </thead>
            <tbody>
              {info.api.deliveries.map((d) => (
                <tr key={d.id}>
                  <td>{when(d.created_at, locale)}</td>
                  <td>
                    <code>{d.event}</code>
                  </td>
                  <td>
                    <span
                      class={`k-badge k-${d.status === 'delivered' ? 'ok' : d.status === 'failed' ? 'bad' : 'wait'}`}
                    >
                      {tr(`api.delivery.${d.status}`)}
                      {d.http_status ? ` (${d.http_status})` : ''}
                    </span>
                  </td>
                  <td>{d.attempts}</td>
                  <td>{d.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
    </div>
  )
}
