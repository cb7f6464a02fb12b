import { useEffect, useRef, useState } from 'preact/hooks'
import { FailNotice, Panel, TextField } from '../kit/ui'
import { api, type CheckItem, failFields } from './kit'
import { type Part, useWrite } from './write'

/**
 * A lead's checklist (`/leads/{id}/checklist`, `/lead-checklist/{id}`): items ticked, added,
 * removed, and put in order with Move up and Move down (`position`, the item's place counted from
 * 0); the new order shows at once and focus stays on the moved item's button, so the keyboard can
 * move it again.
 */
export const Checklist = ({ lead, manage, onChange, tr }: Part) => {
  const [text, setText] = useState('')
  // A tick and an order show at once; the lead's reload confirms them (or the refusal shows and
  // they are undone). While moves are on their way, a reload (someone's event, an earlier tick's)
  // may still carry the old order: showing it would reorder the rows under the keyboard and lose
  // the focus, so the order asked for stays until a reload after the last move (which shows the
  // same order, or someone else's change).
  const [ticks, setTicks] = useState<Readonly<Record<number, boolean>>>({})
  const [order, setOrder] = useState<readonly number[] | null>(null)
  const moving = useRef(0)
  const focus = useRef<string | null>(null)
  const buttons = useRef(new Map<string, HTMLButtonElement>())
  useEffect(() => {
    setTicks({})
    if (moving.current === 0) setOrder(null)
  }, [lead.checklist])
  const items: readonly CheckItem[] = order
    ? order.flatMap((id) => lead.checklist.filter((c) => c.id === id))
    : lead.checklist
  useEffect(() => {
    if (focus.current === null) return
    buttons.current.get(focus.current)?.focus()
    focus.current = null
  })
  const w = useWrite(onChange)
  // Moves go to the server one after the other, in the order they were asked.
  const queue = useRef<Promise<unknown>>(Promise.resolve())
  const move = (c: CheckItem, from: number, to: number) => {
    const ids = items.map((x) => x.id).filter((x) => x !== c.id)
    ids.splice(to, 0, c.id)
    setOrder(ids)
    // At either end its button in that direction is disabled: focus goes to the other one.
    const edge = to === 0 ? 'down' : to === ids.length - 1 ? 'up' : to < from ? 'up' : 'down'
    focus.current = `${c.id}:${edge}`
    moving.current += 1
    queue.current = queue.current.then(() =>
      w
        .run(() => api.patch('/v1/lead-checklist/{id}', { path: { id: c.id }, body: { position: to } }))
        .then((ok) => {
          moving.current -= 1
          if (!ok) setOrder(null)
        }),
    )
  }
  const keep = (key: string) => (el: HTMLButtonElement | null) => {
    if (el) buttons.current.set(key, el)
    else buttons.current.delete(key)
  }
  return (
    <Panel title={tr('pl.checklist')} id="pl-checklist">
      {items.length === 0 ? <p class="k-muted">{tr('pl.checklist_empty')}</p> : null}
      <ol class="pl-list pl-checks" data-testid="checklist">
        {items.map((c, i) => (
          <li key={c.id}>
            <label class="k-check">
              <input
                type="checkbox"
                checked={ticks[c.id] ?? c.done}
                disabled={!manage}
                onChange={(e) => {
                  const done = (e.currentTarget as HTMLInputElement).checked
                  setTicks((t) => ({ ...t, [c.id]: done }))
                  void w.run(() =>
                    api.patch('/v1/lead-checklist/{id}', { path: { id: c.id }, body: { done } }),
                  )
                }}
              />
              <span class={(ticks[c.id] ?? c.done) ? 'pl-done' : undefined}>{c.text}</span>
            </label>
            {manage ? (
              <span class="pl-stage-tools">
                <button
                  type="button"
                  class="k-btn"
                  ref={keep(`${c.id}:up`)}
                  aria-label={tr('pl.wf.up', { name: c.text })}
                  disabled={i === 0}
                  onClick={() => move(c, i, i - 1)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  class="k-btn"
                  ref={keep(`${c.id}:down`)}
                  aria-label={tr('pl.wf.down', { name: c.text })}
                  disabled={i === items.length - 1}
                  onClick={() => move(c, i, i + 1)}
                >
                  ↓
                </button>
                <button
                  type="button"
                  class="k-btn"
                  aria-label={tr('pl.remove_x', { name: c.text })}
                  onClick={() =>
                    void w.run(() => api.delete('/v1/lead-checklist/{id}', { path: { id: c.id } }))
                  }
                >
                  ×
                </button>
              </span>
            ) : null}
          </li>
        ))}
      </ol>
      {manage ? (
        <form
          class="pl-inline"
          onSubmit={async (e) => {
            e.preventDefault()
            const sent = text
            // Cleared only if it still holds what was sent: the next item may be typed already
            // (the new row shows with the lead's reload, before this answer is taken).
            if (
              await w.run(() =>
                api.post('/v1/leads/{id}/checklist', { path: { id: lead.id }, body: { text: sent } }),
              )
            )
              setText((now) => (now === sent ? '' : now))
          }}
        >
          <TextField
            label={tr('pl.checklist_new')}
            name="checklist"
            value={text}
            onValue={setText}
            error={failFields(w.error).text}
            maxLength={500}
          />
          <button type="submit" class="k-btn" disabled={w.busy}>
            {tr('pl.add')}
          </button>
        </form>
      ) : null}
      <FailNotice error={Object.keys(failFields(w.error)).length ? null : w.error} />
    </Panel>
  )
}
