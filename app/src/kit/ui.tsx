import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, failFields, failText, useKitTr } from '.'

/**
 * Pieces of screen every page beyond the inbox uses: a labelled field with the server's message
 * under it, text, choice and check fields, a copy box, a panel, a notice, a time. Styled by
 * styles.ts (`ensureKitStyles`, called by the area's page).
 */

let fieldIds = 0

/** A label, the control, and the server's message for that field right under it. */
export const Field = (props: {
  label: string
  error?: string | undefined
  hint?: string | undefined
  children: (id: string, describedBy: string | undefined) => ComponentChildren
}) => {
  const id = useRef(`kf-${++fieldIds}`).current
  const errId = `${id}-err`
  const hintId = `${id}-hint`
  const described =
    [props.error ? errId : '', props.hint ? hintId : ''].filter(Boolean).join(' ') || undefined
  return (
    <div class={`k-field${props.error ? ' k-invalid' : ''}`}>
      <label for={id}>{props.label}</label>
      {props.children(id, described)}
      {props.hint ? (
        <small id={hintId} class="k-hint">
          {props.hint}
        </small>
      ) : null}
      {props.error ? (
        <small id={errId} class="k-error" role="alert">
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
  disabled?: boolean
}) => (
  <label class="k-check">
    <input
      type="checkbox"
      name={props.name}
      checked={props.checked}
      disabled={props.disabled}
      onChange={(e) => props.onValue((e.currentTarget as HTMLInputElement).checked)}
    />
    {props.label}
  </label>
)

/** A read-only value with a copy button (key, secret, snippet). */
export const CopyBox = (props: { label: string; value: string; name: string; multiline?: boolean }) => {
  const tr = useKitTr()
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
        <div class="k-copy">
          {props.multiline ? (
            <textarea id={id} name={props.name} ref={ref} readOnly rows={3} value={props.value} />
          ) : (
            <input id={id} name={props.name} ref={ref} readOnly value={props.value} />
          )}
          <button type="button" class="k-btn" onClick={copy}>
            {copied ? tr('k.copied') : tr('k.copy')}
            <span class="sr-only"> {props.label}</span>
          </button>
        </div>
      )}
    </Field>
  )
}

export const Panel = (props: { title: string; children: ComponentChildren; id?: string }) => (
  <section class="k-panel" aria-labelledby={props.id}>
    <h2 id={props.id}>{props.title}</h2>
    {props.children}
  </section>
)

export const Notice = (props: { kind: 'ok' | 'bad' | 'info'; children: ComponentChildren }) => (
  <p class={`k-notice k-notice-${props.kind}`} role={props.kind === 'bad' ? 'alert' : 'status'}>
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

export const TextAreaField = (props: {
  label: string
  name: string
  value: string
  onValue: (v: string) => void
  error?: string | undefined
  hint?: string | undefined
  rows?: number
  maxLength?: number
  required?: boolean
}) => (
  <Field label={props.label} error={props.error} hint={props.hint}>
    {(id, described) => (
      <textarea
        id={id}
        name={props.name}
        rows={props.rows ?? 4}
        maxLength={props.maxLength}
        required={props.required}
        value={props.value}
        class="k-prose"
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={described}
        onInput={(e) => props.onValue(e.currentTarget.value)}
      />
    )}
  </Field>
)

/**
 * A failed call told as the person should read it: a refusal (4xx) is the server's message alone,
 * in their language ("You do not have permission to do this."); a 422 points at the fields,
 * whose own messages the form shows beside each; only a fault (5xx, no answer) says that
 * something went wrong.
 */
export const FailNotice = ({ error }: { error: unknown }) => {
  const tr = useKitTr()
  if (error === null || error === undefined) return null
  const fields = failFields(error)
  return (
    <Notice kind="bad">
      {Object.keys(fields).length > 0
        ? tr('k.fix_fields')
        : error instanceof ApiError && error.status < 500
          ? failText(error)
          : tr('k.error', { message: failText(error) })}
    </Notice>
  )
}

/**
 * A button for something that cannot be undone: the first press asks (in place, with the
 * question and Cancel), the second does it. `onConfirm` may reject; the caller shows why.
 */
export const ConfirmButton = (props: {
  label: string
  question: string
  onConfirm: () => Promise<void> | void
  danger?: boolean
  name?: string
}) => {
  const tr = useKitTr()
  const [asking, setAsking] = useState(false)
  const [busy, setBusy] = useState(false)
  const cls = `k-btn${props.danger === false ? '' : ' k-btn-danger'}`
  if (!asking)
    return (
      <button type="button" class={cls} name={props.name} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    )
  return (
    <span class="k-confirm">
      <span>{props.question}</span>
      <button
        type="button"
        class={cls}
        disabled={busy}
        // The question replaces the button: focus follows, so a keyboard user answers it at once.
        ref={(el) => el?.focus()}
        onClick={async () => {
          setBusy(true)
          try {
            await props.onConfirm()
          } finally {
            setBusy(false)
            setAsking(false)
          }
        }}
      >
        {tr('k.confirm')}
      </button>
      <button type="button" class="k-btn" onClick={() => setAsking(false)}>
        {tr('k.cancel')}
      </button>
    </span>
  )
}

/** "Load more" under a list paged by cursor: shown while there is a next page. */
export const MoreButton = (props: {
  next: string | null | undefined
  busy?: boolean
  onMore: () => void
}) => {
  const tr = useKitTr()
  if (!props.next) return null
  return (
    <button type="button" class="k-btn" disabled={props.busy} onClick={props.onMore}>
      {tr('k.more')}
    </button>
  )
}

/**
 * One quota as a meter: its name, the figure as the area words it ("3 of 10"), a bar when there is
 * a limit (amber from 80 %, red when full), and lines under it (suspended, when it starts again).
 */
export const QuotaMeter = (props: {
  label: ComponentChildren
  figure: ComponentChildren
  used: number
  limit: number
  notes?: ComponentChildren
  /** `data-*` and test ids of the list item, as the area names them. */
  item?: Readonly<Record<string, string>>
}) => {
  const share = props.limit > 0 ? Math.min(1, props.used / props.limit) : 0
  return (
    <li class="k-meter" {...props.item}>
      <div class="k-meter-head">
        {props.label}
        {props.figure}
      </div>
      {props.limit > 0 ? (
        <div class="k-bar" aria-hidden="true">
          <span
            class={share >= 1 ? 'k-full' : share >= 0.8 ? 'k-near' : undefined}
            style={{ width: `${Math.round(share * 100)}%` }}
          />
        </div>
      ) : null}
      {props.notes}
    </li>
  )
}

/**
 * A modal dialog: the platform's `<dialog>` (focus kept inside, Escape closes), focus given back
 * to where it was when it closes. `class` gives it its area's look.
 */
export const Dialog = (props: {
  label: string
  class: string
  onClose: () => void
  children: ComponentChildren
}) => {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const el = ref.current
    if (el && !el.open) el.showModal()
    const back = document.activeElement as HTMLElement | null
    return () => back?.focus?.()
  }, [])
  return (
    <dialog
      ref={ref}
      class={props.class}
      aria-label={props.label}
      onClose={props.onClose}
      onCancel={(e) => {
        e.preventDefault()
        props.onClose()
      }}
    >
      {props.children}
    </dialog>
  )
}

/**
 * A table that may scroll sideways on a phone: the wrapper scrolls (not the table) and takes the
 * keyboard's focus, named, so the hidden columns can be reached with the arrow keys. `class`
 * gives it its area's look.
 */
export const ScrollTable = (props: { label: string; class: string; children: ComponentChildren }) => (
  // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled by keyboard.
  <section class={props.class} aria-label={props.label} tabIndex={0}>
    {props.children}
  </section>
)

/**
 * A list's three states in one place: loading (`items` still null), empty (in the list's own
 * words: nothing yet, or nothing found), or the list, drawn by `children`.
 */
export const ListState = <T,>(props: {
  readonly items: readonly T[] | null
  readonly empty: ComponentChildren
  readonly emptyTestid?: string
  readonly children: (items: readonly T[]) => ComponentChildren
}) => {
  const tr = useKitTr()
  if (props.items === null) return <p class="k-muted">{tr('k.loading')}</p>
  if (props.items.length === 0)
    return (
      <p class="k-muted" data-testid={props.emptyTestid}>
        {props.empty}
      </p>
    )
  return <>{props.children(props.items)}</>
}
