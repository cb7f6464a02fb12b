import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { useKitTr } from '../kit'
import { ConfirmButton, FailNotice, Notice } from '../kit/ui'
import { SettingsPage } from '../settings/frame'
import { can, type useCall, useTr } from './kit'
import { ensureStyles } from './styles'
import { type TextKey, texts } from './texts'

/** The pieces the inbox settings pages share: the page frame with its permission, colours, order. */

/**
 * The palette labels must use (the server's `meta.colors` of GET /labels) and categories offer,
 * read from the colours' names in texts.ts.
 */
export const PALETTE: readonly string[] = Object.keys(texts)
  .filter((k) => k.startsWith('is.color.#'))
  .map((k) => k.slice('is.color.'.length))

/** A colour's name in the member's language (its hex when it is not one of the palette). */
export const useColorName = () => {
  const tr = useTr()
  return (hex: string) =>
    hex === '' ? tr('is.color.none') : PALETTE.includes(hex) ? tr(`is.color.${hex}` as TextKey) : hex
}

/**
 * A settings page of this area: the frame, and for a member whose role lacks `permission` the
 * refusal in words instead of the page (the section is not linked for them; this is the URL).
 */
export const Page = (props: {
  title: TextKey
  permission: string
  testId: string
  children: ComponentChildren
}) => {
  ensureStyles()
  const tr = useTr()
  const allowed = can(props.permission)
  return (
    <SettingsPage title={tr(props.title)} testId={props.testId}>
      {allowed ? props.children : <Notice kind="bad">{tr('is.refused')}</Notice>}
    </SettingsPage>
  )
}

/** Colour swatches as a radio group; `none` offers no colour (categories may have none). */
export const ColorPick = (props: {
  value: string
  onValue: (v: string) => void
  colors: readonly string[]
  none?: boolean
  error?: string | undefined
  name: string
}) => {
  const tr = useTr()
  const nameOf = useColorName()
  const choices = props.none ? ['', ...props.colors] : props.colors
  return (
    <div class={`k-field${props.error ? ' k-invalid' : ''}`}>
      <fieldset class="is-swatches">
        <legend>{tr('is.color')}</legend>
        {choices.map((c) => (
          <label key={c} class="is-swatch" title={nameOf(c)}>
            <input
              type="radio"
              name={props.name}
              value={c}
              checked={props.value.toLowerCase() === c}
              aria-label={nameOf(c)}
              onChange={() => props.onValue(c)}
            />
            <span class={c === '' ? 'is-none' : ''} style={c ? { background: c } : undefined} />
          </label>
        ))}
      </fieldset>
      {props.error ? (
        <small class="k-error" role="alert">
          {props.error}
        </small>
      ) : null}
    </div>
  )
}

/** A colour dot beside a name (hidden from screen readers: the name says it). */
export const Chip = ({ color }: { color: string }) =>
  color ? <span class="is-chip" style={{ background: color }} aria-hidden="true" /> : null

/** Up and down buttons for one row of an ordered list. */
export const MoveButtons = (props: {
  name: string
  first: boolean
  last: boolean
  busy?: boolean
  onMove: (by: -1 | 1) => void
}) => {
  const tr = useTr()
  return (
    <span class="is-order">
      <button
        type="button"
        class="k-btn"
        disabled={props.first || props.busy}
        aria-label={tr('is.move_up', { name: props.name })}
        onClick={() => props.onMove(-1)}
      >
        ↑
      </button>
      <button
        type="button"
        class="k-btn"
        disabled={props.last || props.busy}
        aria-label={tr('is.move_down', { name: props.name })}
        onClick={() => props.onMove(1)}
      >
        ↓
      </button>
    </span>
  )
}

/**
 * A list page's state: the item being edited (or `'new'`), the last success to tell, the last
 * failure, and whether a change is under way. `act` runs one change (a move, a toggle, a delete)
 * and reloads; what it resolves to is told as the success. `done` closes the editor.
 */
export const useList = <T extends { readonly id: number }>(load: () => Promise<unknown>) => {
  const [editing, setEditing] = useState<T | 'new' | null>(null)
  const [note, setNote] = useState<string | null>(null)
  const [failed, setFailed] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const open = (x: T | 'new' | null) => {
    setNote(null)
    setEditing(x)
  }
  const done = async (saved: string | null) => {
    setEditing(null)
    if (saved) setNote(saved)
    await load()
  }
  const act = async (f: () => Promise<unknown>, closing?: number) => {
    setBusy(true)
    setNote(null)
    setFailed(null)
    try {
      const said = await f()
      if (typeof said === 'string') setNote(said)
      if (closing !== undefined && editing !== 'new' && editing?.id === closing) setEditing(null)
    } catch (e) {
      setFailed(e)
    }
    await load()
    setBusy(false)
  }
  return { editing, open, done, note, failed, setFailed, busy, act }
}

/** The failure and the success a list page tells above its list. */
export const Told = (props: { failed: unknown; note: string | null }) => (
  <>
    <FailNotice error={props.failed} />
    {props.note ? <Notice kind="ok">{props.note}</Notice> : null}
  </>
)

/** A row's Edit and Delete (asked in place), named after the row for screen readers. */
export const RowActions = (props: {
  name: string
  question: string
  onEdit: () => void
  onDelete: () => Promise<void>
  children?: ComponentChildren
}) => {
  const tr = useTr()
  const kt = useKitTr()
  return (
    <td class="is-acts-cell">
      <span class="is-acts">
        {props.children}
        <button
          type="button"
          class="k-btn"
          aria-label={tr('is.edit_of', { name: props.name })}
          onClick={props.onEdit}
        >
          {kt('k.edit')}
        </button>
        <ConfirmButton label={kt('k.delete')} question={props.question} onConfirm={props.onDelete} />
      </span>
    </td>
  )
}

/**
 * The form that creates or changes one item: its heading (focused when it opens, so a keyboard
 * user lands in it), the fields, the failure, Create or Save and Cancel. `save` makes the call;
 * when it succeeds, `onDone` gets `told` (what to say), on Cancel null.
 */
export const EditorForm = (props: {
  id: string
  title: string
  level?: 2 | 3
  testId: string
  creating: boolean
  call: ReturnType<typeof useCall>
  save: () => Promise<unknown>
  told: string
  onDone: (told: string | null) => void
  children: ComponentChildren
}) => {
  const kt = useKitTr()
  const head = useRef<HTMLHeadingElement>(null)
  useEffect(() => head.current?.focus(), [])
  const Heading = props.level === 3 ? 'h3' : 'h2'
  return (
    <form
      class="k-form k-panel"
      aria-labelledby={props.id}
      data-testid={props.testId}
      onSubmit={(e) => {
        e.preventDefault()
        void props.call.run(props.save).then((ok) => ok && props.onDone(props.told))
      }}
    >
      <Heading id={props.id} tabIndex={-1} ref={head}>
        {props.title}
      </Heading>
      {props.children}
      <FailNotice error={props.call.error} />
      <div class="k-row">
        <button type="submit" class="k-btn k-primary" disabled={props.call.busy}>
          {kt(props.creating ? 'k.create' : 'k.save')}
        </button>
        <button type="button" class="k-btn" onClick={() => props.onDone(null)}>
          {kt('k.cancel')}
        </button>
      </div>
    </form>
  )
}

/** The button that opens the form for a new item, and what stands beside it (a count, a search). */
export const NewBar = (props: {
  label: string
  onNew: () => void
  disabled?: boolean
  children?: ComponentChildren
}) => (
  <div class="k-row">
    <button type="button" class="k-btn k-primary" disabled={props.disabled} onClick={props.onNew}>
      {props.label}
    </button>
    {props.children}
  </div>
)

/**
 * A list's table: its columns (a `wide` one gives way on phones, where the row says it under the
 * name), a last column for the row's actions, and the rows. Scrolls inside itself if need be.
 */
export const ListTable = (props: {
  label: string
  columns: readonly (readonly [title: string, wide?: 'wide'])[]
  children: ComponentChildren
}) => {
  const tr = useTr()
  return (
    <div class="k-table-wrap is-wrap">
      <table class="k-table" aria-label={props.label}>
        <thead>
          <tr>
            {props.columns.map(([title, wide]) => (
              <th key={title} scope="col" class={wide ? 'is-wide' : undefined}>
                {title}
              </th>
            ))}
            <th scope="col">
              <span class="sr-only">{tr('is.actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  )
}
