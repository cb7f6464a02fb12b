import { useEffect, useState } from 'preact/hooks'
import { CheckField, CopyBox, Field, Notice, Panel, SelectField, TextField } from './common'
import { api, type Fail, go, got, useTr } from './kit'
import { PanelForm, useSave, useSynced } from './SettingsPanels'
import {
  ATTACHMENTS,
  type Channel,
  FONTS,
  LAUNCHER_ICONS,
  POSITIONS,
  PRECHAT_FIELDS,
  PRECHAT_MODES,
  type PrechatMode,
  WIDGET_LOCALES,
  type Widget,
} from './types'

const DEFAULT_COLOR = '#2563eb'

/** `/app/channels/new/livechat`: name, title and colour; the rest is styled on the channel's page. */
export const NewLivechat = () => {
  const tr = useTr()
  const [name, setName] = useState('')
  const [title, setTitle] = useState('')
  const [color, setColor] = useState(DEFAULT_COLOR)
  const [fields, setFields] = useState<Record<string, string>>({})
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      const r = await got<Channel>(
        api.post('/v1/channels/livechat', {
          body: {
            name,
            ...(title ? { title } : {}),
            color,
          },
        }),
      )
      go(`/channels/${r.data.id}`)
    } catch (err) {
      const f = err as Fail
      setFields(f.fields ?? {})
      setError(f.fields ? null : f.message)
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
        error={fields.name}
        required
      />
      <TextField label={tr('lc.title')} name="title" value={title} onValue={setTitle} error={fields.title} />
      <ColorField value={color} onValue={setColor} error={fields.color} />
      {error ? <Notice kind="bad">{error}</Notice> : null}
      <button class="k-btn k-primary" type="submit" disabled={busy}>
        {tr('ch.create')}
      </button>
    </form>
  )
}

const ColorField = (props: { value: string; onValue: (v: string) => void; error?: string | undefined }) => {
  const tr = useTr()
  return (
    <Field label={tr('lc.color')} error={props.error}>
      {(id, described) => (
        <div class="chs-color">
          <input
            id={id}
            name="color"
            type="color"
            value={/^#[0-9a-f]{6}$/i.test(props.value) ? props.value : DEFAULT_COLOR}
            aria-describedby={described}
            onInput={(e) => props.onValue((e.currentTarget as HTMLInputElement).value)}
          />
          <input
            aria-label={`${tr('lc.color')} (hex)`}
            name="color_hex"
            value={props.value}
            maxLength={7}
            onInput={(e) => props.onValue((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
      )}
    </Field>
  )
}

type Form = Omit<Widget, 'allowed_domains' | 'radius'> & { allowed_domains: string; radius: string }

const toForm = (w: Widget): Form => ({
  ...w,
  radius: String(w.radius),
  allowed_domains: w.allowed_domains.join('\n'),
})

const FONT_STACKS: Record<string, string> = {
  system: 'system-ui,-apple-system,"Segoe UI",Roboto,sans-serif',
  'sans-serif': 'Helvetica,Arial,sans-serif',
  serif: 'Georgia,"Times New Roman",serif',
  monospace: 'ui-monospace,Menlo,Consolas,monospace',
  rounded: '"Nunito","Varela Round",system-ui,sans-serif',
}

/**
 * A live chat channel's page: every widget setting with a preview that follows the form as it is
 * typed (before saving), the embed code with a copy button, and replacing the key.
 */
export const LivechatDetail = ({ channel }: { channel: Channel }) => {
  const tr = useTr()
  const [lc, setLc] = useState(channel.livechat!)
  // The page reloads the channel on `channel.updated`: a change made elsewhere shows here, and in
  // the form unless it is being edited.
  useEffect(() => setLc(channel.livechat!), [channel.livechat])
  const [form, setForm] = useSynced<Form>(toForm(channel.livechat!))
  const [fields, setFields] = useState<Record<string, string>>({})
  const [note, setNote] = useState<{ kind: 'ok' | 'bad'; text: string } | null>(null)
  const [busy, setBusy] = useState(false)
  const [logo, setLogo] = useState(channel.icon_url)
  const set = (k: keyof Form) => (v: string | boolean) => setForm((f) => ({ ...f, [k]: v }))
  /** A select's value back to its literal type (the select only offers those). */
  const pick =
    <K extends 'font' | 'position' | 'launcher_icon' | 'attachments' | 'locale'>(
      k: K,
      allowed: readonly Form[K][],
    ) =>
    (v: string) => {
      const found = allowed.find((a) => a === v)
      if (found !== undefined) setForm((f) => ({ ...f, [k]: found }))
    }
  const pickPrechat = (k: (typeof PRECHAT_FIELDS)[number]) => (v: string) => {
    const found = PRECHAT_MODES.find((m) => m === v)
    if (found !== undefined) setForm((f) => ({ ...f, prechat: { ...f.prechat, [k]: found } }))
  }

  const save = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setNote(null)
    setFields({})
    try {
      const r = await got<Channel>(
        api.patch('/v1/channels/{id}/livechat', {
          path: { id: channel.id },
          body: {
            title: form.title,
            subtitle: form.subtitle,
            color: form.color,
            font: form.font,
            radius: Number(form.radius),
            position: form.position,
            launcher_icon: form.launcher_icon,
            intro: form.intro,
            consent: form.consent,
            start_label: form.start_label,
            attachments: form.attachments,
            prechat: form.prechat,
            locale: form.locale,
            allowed_domains: form.allowed_domains
              .split(/[\s,]+/)
              .map((d) => d.trim())
              .filter(Boolean),
          },
        }),
      )
      if (r.data.livechat) {
        setLc(r.data.livechat)
        setForm(toForm(r.data.livechat))
      }
      setNote({ kind: 'ok', text: tr('ch.saved') })
    } catch (err) {
      const f = err as Fail
      setFields(f.fields ?? {})
      setNote(f.fields ? null : { kind: 'bad', text: f.message })
    } finally {
      setBusy(false)
    }
  }

  const replaceKey = async () => {
    if (!confirm(tr('lc.replace_key_confirm'))) return
    try {
      const r = await got<Channel>(api.post('/v1/channels/{id}/livechat/key', { path: { id: channel.id } }))
      if (r.data.livechat) setLc(r.data.livechat)
    } catch (err) {
      setNote({ kind: 'bad', text: (err as Fail).message })
    }
  }

  return (
    <div class="k-stack">
      <Panel title={tr('lc.snippet_title')} id="lc-snippet">
        <p class="k-muted">{tr('lc.snippet_hint')}</p>
        <CopyBox label={tr('lc.snippet')} name="embed_code" value={lc.embed_code} multiline />
        <button class="k-btn" type="button" onClick={replaceKey}>
          {tr('lc.replace_key')}
        </button>
      </Panel>
      <div class="chs-split">
        <form class="k-form k-panel" onSubmit={save} aria-labelledby="lc-look">
          <h2 id="lc-look">{tr('lc.look')}</h2>
          <Logo channelId={channel.id} url={logo} onUrl={setLogo} />
          <TextField
            label={tr('lc.title')}
            name="title"
            value={form.title}
            onValue={set('title')}
            error={fields.title}
          />
          <TextField
            label={tr('lc.subtitle')}
            name="subtitle"
            value={form.subtitle}
            onValue={set('subtitle')}
            error={fields.subtitle}
          />
          <ColorField value={form.color} onValue={set('color')} error={fields.color} />
          <div class="k-grid3">
            <SelectField
              label={tr('lc.font')}
              name="font"
              value={form.font}
              options={FONTS.map((f) => [f, tr(`lc.font.${f}`)] as const)}
              onValue={pick('font', FONTS)}
              error={fields.font}
            />
            <TextField
              label={tr('lc.radius')}
              name="radius"
              type="number"
              min={0}
              max={24}
              value={form.radius}
              onValue={set('radius')}
              error={fields.radius}
            />
            <SelectField
              label={tr('lc.position')}
              name="position"
              value={form.position}
              options={[
                ['right', tr('lc.position.right')],
                ['left', tr('lc.position.left')],
              ]}
              onValue={pick('position', POSITIONS)}
              error={fields.position}
            />
          </div>
          <TextField
            label={tr('lc.intro')}
            name="intro"
            value={form.intro}
            onValue={set('intro')}
            error={fields.intro}
          />
          <TextField
            label={tr('lc.start_label')}
            name="start_label"
            value={form.start_label}
            onValue={set('start_label')}
            error={fields.start_label}
          />
          <TextField
            label={tr('lc.consent')}
            name="consent"
            value={form.consent}
            onValue={set('consent')}
            error={fields.consent}
          />
          <fieldset class="k-fieldset" data-testid="prechat">
            <legend>{tr('lc.prechat')}</legend>
            <p class="k-hint">{tr('lc.prechat_hint')}</p>
            <div class="k-grid3eq">
              {PRECHAT_FIELDS.map((k) => (
                <SelectField
                  key={k}
                  label={tr(`lc.preview_${k}`)}
                  name={`prechat_${k}`}
                  value={form.prechat[k]}
                  options={PRECHAT_MODES.map((m) => [m, tr(`lc.prechat.${m}`)] as const)}
                  onValue={pickPrechat(k)}
                  error={fields[`prechat.${k}`]}
                />
              ))}
            </div>
          </fieldset>
          <SelectField
            label={tr('lc.locale')}
            name="locale"
            value={form.locale}
            options={WIDGET_LOCALES.map((l) => [l, tr(`lc.locale.${l}`)] as const)}
            onValue={pick('locale', WIDGET_LOCALES)}
            error={fields.locale}
          />
          <SelectField
            label={tr('lc.attachments')}
            name="attachments"
            value={form.attachments}
            options={ATTACHMENTS.map((a) => [a, tr(`lc.attachments.${a}`)] as const)}
            onValue={pick('attachments', ATTACHMENTS)}
            error={fields.attachments}
          />
          <SelectField
            label={tr('lc.launcher_icon')}
            name="launcher_icon"
            value={form.launcher_icon}
            options={LAUNCHER_ICONS.map((i) => [i, tr(`lc.icon.${i}`)] as const)}
            onValue={pick('launcher_icon', LAUNCHER_ICONS)}
            error={fields.launcher_icon}
          />
          <Field label={tr('lc.domains')} error={fields.allowed_domains}>
            {(id, described) => (
              <textarea
                id={id}
                name="allowed_domains"
                rows={3}
                value={form.allowed_domains}
                aria-describedby={described}
                onInput={(e) => set('allowed_domains')((e.currentTarget as HTMLTextAreaElement).value)}
              />
            )}
          </Field>
          {note ? <Notice kind={note.kind}>{note.text}</Notice> : null}
          <button class="k-btn k-primary" type="submit" disabled={busy}>
            {tr('ch.save')}
          </button>
        </form>
        <Preview form={form} logo={logo} />
      </div>
      <EmailFallback
        channelId={channel.id}
        saved={lc.email_fallback}
        prechatEmail={lc.prechat.email}
        onSaved={(w) => {
          setLc(w)
          setForm((f) => ({ ...f, email_fallback: w.email_fallback }))
        }}
      />
    </div>
  )
}

/**
 * The e-mail fallback (`email_fallback`): while a visitor's widget is closed, replies also go to
 * the address they gave; outside business hours the widget says so and asks for an address even
 * when the pre-chat form hides that question. Saved on its own, beside the look.
 */
const EmailFallback = (props: {
  channelId: number
  saved: boolean
  prechatEmail: PrechatMode
  onSaved: (w: NonNullable<Channel['livechat']>) => void
}) => {
  const tr = useTr()
  const [on, setOn] = useSynced(props.saved)
  const s = useSave(
    async (body) =>
      (await got<Channel>(api.patch('/v1/channels/{id}/livechat', { path: { id: props.channelId }, body })))
        .data,
    (c) => c.livechat && props.onSaved(c.livechat),
  )
  return (
    <PanelForm
      id="chs-fallback"
      title={tr('lc.fallback_title')}
      hint={tr('lc.fallback_hint')}
      saveLabel={tr('lc.fallback_save')}
      state={s}
      onSubmit={() => void s.save({ email_fallback: on })}
    >
      <CheckField name="email_fallback" label={tr('lc.email_fallback')} checked={on} onValue={setOn} />
      {on ? (
        <p class="k-hint" data-testid="fallback-prechat">
          {tr(`lc.fallback_prechat.${props.prechatEmail}`)}
        </p>
      ) : null}
    </PanelForm>
  )
}

/** The channel icon, also the widget's logo: a square PNG, JPG or WebP up to 512 KB. */
const Logo = (props: { channelId: number; url: string | null; onUrl: (u: string | null) => void }) => {
  const tr = useTr()
  const [error, setError] = useState<string | undefined>()
  const upload = async (file: File | undefined) => {
    if (!file) return
    setError(undefined)
    const body = new FormData()
    body.append('icon', file)
    try {
      const r = await got<{ icon_url: string | null }>(
        api.post('/v1/channels/{id}/icon', { path: { id: props.channelId }, body }),
      )
      props.onUrl(r.data.icon_url)
    } catch (e) {
      const f = e as Fail
      setError(f.fields?.icon ?? f.message)
    }
  }
  const remove = async () => {
    setError(undefined)
    try {
      await api.delete('/v1/channels/{id}/icon', { path: { id: props.channelId } })
      props.onUrl(null)
    } catch (e) {
      setError((e as Fail).message)
    }
  }
  return (
    <Field label={tr('lc.logo')} error={error} hint={tr('lc.logo_hint')}>
      {(id, described) => (
        <div class="k-row">
          {props.url ? <img class="chs-logo" src={props.url} alt="" data-testid="logo" /> : null}
          <input
            id={id}
            name="icon"
            type="file"
            accept="image/png,image/jpeg,image/webp"
            aria-describedby={described}
            aria-invalid={error ? 'true' : undefined}
            onChange={(e) => {
              const input = e.currentTarget
              void upload(input.files?.[0]).then(() => {
                input.value = ''
              })
            }}
          />
          {props.url ? (
            <button class="k-btn" type="button" onClick={remove}>
              {tr('lc.logo_remove')}
            </button>
          ) : null}
        </div>
      )}
    </Field>
  )
}

/** Contrast of the widget's white text on `hex` (WCAG 2 relative luminance). */
const contrast = (hex: string) => {
  const c = [1, 3, 5].map((i) => {
    const v = Number.parseInt(hex.slice(i, i + 2), 16) / 255
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4
  })
  const l = 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!
  return 1.05 / (l + 0.05)
}

/** The launcher's faces, as the widget's loader draws them (connectors/livechat/widget/loader.js). */
const LauncherIcon = ({ name }: { name: Form['launcher_icon'] }) => (
  <svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true" data-icon={name}>
    {name === 'message' ? (
      <path
        d="M3 6l9 6 9-6M3 6h18v12H3z"
        fill="none"
        stroke="currentColor"
        stroke-width="2"
        stroke-linejoin="round"
      />
    ) : name === 'help' ? (
      <>
        <circle cx="12" cy="12" r="9" fill="none" stroke="currentColor" stroke-width="2" />
        <path
          d="M9.5 9.5a2.5 2.5 0 1 1 3.5 2.3c-.7.3-1 .8-1 1.5V14"
          fill="none"
          stroke="currentColor"
          stroke-width="2"
          stroke-linecap="round"
        />
        <circle cx="12" cy="17.5" r="1.2" fill="currentColor" />
      </>
    ) : (
      // `logo` shows the uploaded icon on a site; the preview keeps the bubble.
      <path
        d="M4 5h16v11H8l-4 4z"
        fill="none"
        stroke="currentColor"
        stroke-width="2"
        stroke-linejoin="round"
      />
    )}
  </svg>
)

const previewLabel = (tr: ReturnType<typeof useTr>, k: (typeof PRECHAT_FIELDS)[number], mode: PrechatMode) =>
  mode === 'optional' ? `${tr(`lc.preview_${k}`)} ${tr('lc.preview_optional')}` : tr(`lc.preview_${k}`)

/** The widget as a visitor sees it (header, form, launcher), drawn from the unsaved form. */
const Preview = ({ form, logo }: { form: Form; logo: string | null }) => {
  const tr = useTr()
  const color = /^#[0-9a-f]{6}$/i.test(form.color) ? form.color : DEFAULT_COLOR
  const radius = Math.max(0, Math.min(24, Number(form.radius) || 0))
  const font = FONT_STACKS[form.font] ?? FONT_STACKS.system
  return (
    <section class="chs-preview-wrap" aria-labelledby="lc-preview">
      <h2 id="lc-preview">{tr('lc.preview')}</h2>
      {contrast(color) < 4.5 ? <Notice kind="info">{tr('lc.low_contrast')}</Notice> : null}
      <div
        class={`chs-preview chs-preview-${form.position === 'left' ? 'left' : 'right'}`}
        aria-hidden="true"
      >
        <div
          class="chs-pv-panel"
          data-testid="preview-panel"
          style={{ borderRadius: `${radius}px`, fontFamily: font }}
        >
          <div class="chs-pv-head" data-testid="preview-head" style={{ background: color }}>
            {logo ? <img class="chs-pv-logo" src={logo} alt="" /> : null}
            <div class="chs-pv-titles">
              <span class="chs-pv-title">{form.title}</span>
              <span>{form.subtitle}</span>
            </div>
          </div>
          <div class="chs-pv-body">
            <p>{form.intro}</p>
            {PRECHAT_FIELDS.filter((k) => form.prechat[k] !== 'hidden').map((k) => (
              <span key={k} class={`chs-pv-input chs-pv-${k}`}>
                {previewLabel(tr, k, form.prechat[k])}
              </span>
            ))}
            {form.consent ? (
              <span class="chs-pv-consent">
                <span class="chs-pv-box" /> {form.consent}
              </span>
            ) : null}
            <span
              class="chs-pv-start"
              style={{ background: color, borderRadius: `${Math.min(radius, 10)}px` }}
            >
              {form.start_label}
            </span>
          </div>
        </div>
        <div class="chs-pv-launcher" data-testid="preview-launcher" style={{ background: color }}>
          {form.launcher_icon === 'logo' && logo ? (
            <img class="chs-pv-logo" src={logo} alt="" />
          ) : (
            <LauncherIcon name={form.launcher_icon} />
          )}
        </div>
      </div>
    </section>
  )
}
