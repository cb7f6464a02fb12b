import { useRef, useState } from 'preact/hooks'
import { me } from '../kit'
import { FailNotice, Panel, SelectField, TextField } from '../kit/ui'
import { Dialog, FormEnd, RowActions } from './common'
import { api, type Expense, failFields, money, type PipelineSettings, type Tr } from './kit'
import { DateField } from './LeadForm'
import { type Part, useWrite } from './write'

type Props = Part & { locale: string; settings: PipelineSettings | null }

/**
 * A lead's expenses (`/leads/{id}/expenses`, `/lead-expenses/{id}`): recorded with a receipt,
 * changed (category, amount, date, note) by whoever recorded or paid it or the workspace's owner,
 * as the server allows, deleted with their receipt.
 */
export const Expenses = ({ lead, manage, onChange, tr, locale, settings }: Props) => {
  const w = useWrite(onChange)
  const categories = settings?.expense_categories ?? []
  const [v, setV] = useState({ category: '', amount: '', spent_on: '', note: '' })
  const [editing, setEditing] = useState<Expense | null>(null)
  const receipt = useRef<HTMLInputElement>(null)
  const set = (k: keyof typeof v) => (x: string) => setV((o) => ({ ...o, [k]: x }))
  const fields = failFields(w.error)
  const who = me.get()
  const mayEdit = (x: Expense) =>
    manage &&
    who !== null &&
    who !== false &&
    (who.is_owner || [x.recorded_by?.id, x.spent_by?.id].includes(who.user.id))
  return (
    <Panel title={tr('pl.expenses')} id="pl-expenses">
      {lead.expenses.length === 0 ? (
        <p class="k-muted">{tr('pl.expenses_empty')}</p>
      ) : (
        <p class="k-muted" data-testid="expenses-total">
          {tr('pl.expenses_total', { total: money(lead.expenses_total, locale) })}
        </p>
      )}
      <ul class="pl-list">
        {lead.expenses.map((x) => (
          <li key={x.id}>
            <div>
              <strong>{money(x.amount, locale)}</strong> · {x.category}
              <span class="pl-when">
                {x.spent_on}
                {x.spent_by ? ` · ${x.spent_by.name}` : ''}
              </span>
              {x.note ? <p class="pl-body">{x.note}</p> : null}
              {x.receipt ? (
                <a href={x.receipt.url} target="_blank" rel="noreferrer">
                  {tr('pl.receipt', { name: x.receipt.name })}
                </a>
              ) : null}
            </div>
            {manage ? (
              <RowActions
                edit={
                  mayEdit(x)
                    ? {
                        label: tr('pl.edit_x', { name: `${money(x.amount, locale)} · ${x.category}` }),
                        onEdit: () => setEditing(x),
                      }
                    : undefined
                }
                question={tr('pl.delete_expense_q')}
                onDelete={() =>
                  void w.run(() => api.delete('/v1/lead-expenses/{id}', { path: { id: x.id } }))
                }
              />
            ) : null}
          </li>
        ))}
      </ul>
      {manage ? (
        <form
          class="pl-inline"
          noValidate
          onSubmit={async (e) => {
            e.preventDefault()
            const form = new FormData()
            form.set('category', v.category || categories[0] || '')
            form.set('amount', v.amount)
            if (v.spent_on) form.set('spent_on', v.spent_on)
            if (v.note.trim()) form.set('note', v.note.trim())
            const file = receipt.current?.files?.[0]
            if (file) form.set('receipt', file)
            if (
              await w.run(() => api.post('/v1/leads/{id}/expenses', { path: { id: lead.id }, body: form }))
            ) {
              setV({ category: v.category, amount: '', spent_on: '', note: '' })
              if (receipt.current) receipt.current.value = ''
            }
          }}
        >
          <ExpenseFields
            v={{ ...v, category: v.category || categories[0] || '' }}
            set={set}
            categories={categories}
            fields={fields}
            names={{ note: 'expense_note', spent_on: 'spent_on' }}
            tr={tr}
          />
          <div class="k-field">
            <label for="pl-receipt">{tr('pl.x.receipt')}</label>
            <input id="pl-receipt" type="file" ref={receipt} />
          </div>
          <button type="submit" class="k-btn" disabled={w.busy}>
            {tr('pl.x.add')}
          </button>
        </form>
      ) : null}
      <FailNotice error={Object.keys(fields).length ? null : w.error} />
      {editing ? (
        <ExpenseDialog
          expense={editing}
          categories={categories}
          onClose={() => setEditing(null)}
          onSaved={onChange}
          tr={tr}
        />
      ) : null}
    </Panel>
  )
}

const amount = (s: string) => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : null)

/** An expense's fields in a dialog (`PATCH /lead-expenses/{id}`, JSON; the receipt stays). */
const ExpenseDialog = (props: {
  expense: Expense
  categories: readonly string[]
  onClose: () => void
  onSaved: () => Promise<unknown>
  tr: Tr
}) => {
  const { tr, expense: x } = props
  const [v, setV] = useState({
    category: x.category,
    amount: String(x.amount),
    spent_on: x.spent_on,
    note: x.note ?? '',
  })
  const [error, setError] = useState<unknown>(null)
  const set = (k: keyof typeof v) => (s: string) => setV((o) => ({ ...o, [k]: s }))
  const fields = failFields(error)
  // A category removed from the settings since stays shown (the server refuses it if it is sent).
  const categories = props.categories.includes(x.category)
    ? props.categories
    : [x.category, ...props.categories]
  const label = tr('pl.expense_edit')
  return (
    <Dialog label={label} onClose={props.onClose}>
      <h2>{label}</h2>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault()
          try {
            await api.patch('/v1/lead-expenses/{id}', {
              path: { id: x.id },
              body: {
                ...(v.category !== x.category ? { category: v.category } : {}),
                // Not a number: sent as written, so the server's message shows under the field.
                amount: (amount(v.amount) ?? v.amount) as number,
                ...(v.spent_on && v.spent_on !== x.spent_on ? { spent_on: v.spent_on } : {}),
                note: v.note.trim() || null,
              },
            })
            await props.onSaved()
            props.onClose()
          } catch (err) {
            setError(err)
          }
        }}
      >
        <ExpenseFields
          v={v}
          set={set}
          categories={categories}
          fields={fields}
          names={{ note: 'note', spent_on: 'edit_spent_on' }}
          tr={tr}
        />
        <FormEnd submit={tr('pl.save')} error={error} onCancel={props.onClose} />
      </form>
    </Dialog>
  )
}

type ExpenseValues = {
  readonly category: string
  readonly amount: string
  readonly spent_on: string
  readonly note: string
}

/** An expense's category (of the settings' list), amount, date and note, with the server's messages. */
const ExpenseFields = (props: {
  v: ExpenseValues
  set: (k: keyof ExpenseValues) => (x: string) => void
  categories: readonly string[]
  fields: Readonly<Record<string, string>>
  /** The note's and the date's names (the date's is its id: unique on the page). */
  names: { readonly note: string; readonly spent_on: string }
  tr: Tr
}) => {
  const { v, set, fields, tr } = props
  return (
    <>
      <SelectField
        label={tr('pl.x.category')}
        name="category"
        value={v.category}
        options={props.categories.map((c) => [c, c] as const)}
        onValue={set('category')}
        error={fields.category}
      />
      <TextField
        label={tr('pl.x.amount')}
        name="amount"
        type="number"
        min={0}
        value={v.amount}
        onValue={set('amount')}
        error={fields.amount}
      />
      <DateField
        label={tr('pl.x.spent_on')}
        name={props.names.spent_on}
        type="date"
        value={v.spent_on}
        onValue={set('spent_on')}
        error={fields.spent_on}
      />
      <TextField
        label={tr('pl.x.note')}
        name={props.names.note}
        value={v.note}
        onValue={set('note')}
        error={fields.note}
      />
    </>
  )
}
