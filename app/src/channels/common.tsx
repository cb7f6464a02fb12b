import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { useTr } from './kit'
import type { TextKey } from './texts'

/** Pieces every channel page uses: the status badge, a labelled field with its error, copy boxes. */

const KNOWN_STATUS = new Set([
  'active',
  'connecting',
  'reconnecting',
  'qr',
  'logged_out',
  'restricted',
  'banned',
  'unreachable',
  'auth_failed',
  'suspended',
  'archived',
])

const tone = (status: string) =>
  status === 'active'
    ? 'ok'
    : status === 'connecting' || status === 'reconnecting' || status === 'qr'
      ? 'wait'
      : 'bad'

/** `linked`: the channel has a connection to speak of (a number, a mailbox); else `active` reads Active. */
export const StatusBadge = ({ status, linked = true }: { status: string; linked?: boolean }) => {
  const tr = useTr()
  const label =
    status === 'active' && !linked
      ? tr('ch.status.enabled')
      : KNOWN_STATUS.has(status)
        ? tr(`ch.status.${status}` as TextKey)
        : status
  return (
    <span class={`chs-badge chs-${tone(status)}`} data-status={status}>
      <span class="chs-dot" aria-hidden="true" />
      {label}
    </span>
  )
}

let fieldIds = 0

/** A label, the control, and the server's message for that field right under it. */
export const Field = (props: {
  label: string
  error?: string | undefined
  hint?: string | undefined
  children: (id: string, describedBy: string | undefined) => ComponentChildren
}) => {
  const id = useRef(`chf-${++fieldIds}`).current
  const errId = `${id}-err`
  const hintId = `${id}-hint`
  const described =
    [props.error ? errId : '', props.hint ? hintId : ''].filter(Boolean).join(' ') || undefined
  return (
    <div class={`chs-field${props.error ? ' chs-invalid' : ''}`}>
      <label for={id}>{props.label}</label>
      {props.children(id, described)}
      {props.hint ? (
        <small id={hintId} class="chs-hint">
          {props.hint}
        </small>
      ) : null}
      {props.error ? (
        <small id={errId} class="chs-error" role="alert">
          {props.error}
        </small>
      ) : null}
    </div>
  )
}

interface InputProps {
  label: string
  name: string
  value: string
  onValue: (v: string) => void
  error?: string | undefined
  hint?: string | undefined
  type?: 'text' | 'email' | 'password' | 'tel' | 'url' | 'number'
  required?: boolean
  maxLength?: number
  min?: number
  max?: number
  autoComplete?: string
  placeholder?: string
  inputMode?: 'numeric' | 'text'
}

export const TextField = ({ label, value, onValue, error, hint, type, ...rest }: InputProps) => (
  <Field label={label} error={error} hint={hint}>
    {(id, described) => (
      <input
        {...rest}
        // Preact types each input `type` apart; these share every attribute used here.
        type={(type ?? 'text') as 'text'}
        id={id}
        value={value}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described}
        onInput={(e) => onValue(e.currentTarget.value)}
      />
    )}
  </Field>
)

export const SelectField = (props: {
  label: string
  name: string
  value: string
  options: readonly (readonly [string, string])[]
  onValue: (v: string) => void
  error?: string | undefined
}) => (
  <Field label={props.label} error={props.error}>
    {(id, described) => (
      <select
        id={id}
        name={props.name}
        value={props.value}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={described}
        onChange={(e) => props.onValue((e.currentTarget as HTMLSelectElement).value)}
      >
        {props.options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    )}
  </Field>
)

export const CheckField = (props: {
  label: string
  name: string
  checked: boolean
  onValue: (v: boolean) => void
}) => (
  <label class="chs-check">
    <input
      type="checkbox"
      name={props.name}
      checked={props.checked}
      onChange={(e) => props.onValue((e.currentTarget as HTMLInputElement).checked)}
    />
    {props.label}
  </label>
)

/** A read-only value with a copy button (key, secret, snippet). */
export const CopyBox = (props: { label: string; value: string; name: string; multiline?: boolean }) => {
  const tr = useTr()
  const [copied, setCopied] = useState(false)
  const ref = useRef<HTMLTextAreaElement & HTMLInputElement>(null)
  useEffect(() => {
    if (!copied) return
    const t = setTimeout(() => setCopied(false), 2000)
    return () => clearTimeout(t)
  }, [copied])
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value)
    } catch {
      // Without clipboard permission (plain http, old browsers): select it for Ctrl+C instead.
      ref.current?.select()
      document.execCommand('copy')
    }
    setCopied(true)
  }
  return (
    <Field label={props.label}>
      {(id) => (
        <div class="chs-copy">
          {props.multiline ? (
            <textarea id={id} name={props.name} ref={ref} readOnly rows={3} value={props.value} />
          ) : (
            <input id={id} name={props.name} ref={ref} readOnly value={props.value} />
          )}
          <button type="button" class="chs-btn" onClick={copy}>
            {copied ? tr('ch.copied') : tr('ch.copy')}
            <span class="sr-only"> {props.label}</span>
          </button>
        </div>
      )}
    </Field>
  )
}

export const Panel = (props: { title: string; children: ComponentChildren; id?: string }) => (
  <section class="chs-panel" aria-labelledby={props.id}>
    <h2 id={props.id}>{props.title}</h2>
    {props.children}
  </section>
)

export const Notice = (props: { kind: 'ok' | 'bad' | 'info'; children: ComponentChildren }) => (
  <p class={`chs-notice chs-notice-${props.kind}`} role={props.kind === 'bad' ? 'alert' : 'status'}>
    {props.children}
  </p>
)

export const when = (at: string | null | undefined, locale: string) =>
  at
    ? new Date(at).toLocaleString(locale === 'id' ? 'id-ID' : 'en-GB', {
        dateStyle: 'medium',
        timeStyle: 'short',
      })
    : ''
