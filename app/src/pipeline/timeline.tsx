import { useEffect, useState } from 'preact/hooks'
import { FailNotice, Panel, SelectField, TextAreaField } from '../kit/ui'
import { fullTime } from '../lib/format'
import { FormEnd, RowActions } from './common'
import { ACTIVITY_KINDS, type Activity, api, failFields, got, type TextKey, type Tr } from './kit'
import { type Part, useWrite } from './write'

/**
 * A lead's timeline (`/leads/{id}/activities`): activities logged by hand and the changes the
 * server recorded, newest first, older pages on demand. One's own activities are changed in place
 * (kind and words, `PATCH /lead-activities/{id}`) or deleted; recorded changes are not.
 */
export const Timeline = ({ lead, manage, onChange, tr }: Part) => {
  const [kind, setKind] = useState<string>('note')
  const [body, setBody] = useState('')
  const [older, setOlder] = useState<readonly Activity[]>([])
  const [next, setNext] = useState<number | null>(null)
  const [editing, setEditing] = useState<number | null>(null)
  const w = useWrite(onChange)
  const items = [...lead.activities, ...older.filter((o) => !lead.activities.some((a) => a.id === o.id))]
  const last = items[items.length - 1]
  useEffect(() => {
    setNext(lead.activities.length >= 30 && last ? last.id : null)
  }, [lead.activities.length])
  const fields = failFields(w.error)
  return (
    <Panel title={tr('pl.timeline')} id="pl-timeline">
      {manage ? (
        <form
          class="k-form"
          noValidate
          onSubmit={async (e) => {
            e.preventDefault()
            const sent = body
            // Cleared only if it still holds what was sent (see the checklist's form).
            if (
              await w.run(() =>
                api.post('/v1/leads/{id}/activities', {
                  path: { id: lead.id },
                  body: { kind: kind as (typeof ACTIVITY_KINDS)[number], body: sent },
                }),
              )
            )
              setBody((now) => (now === sent ? '' : now))
          }}
        >
          <SelectField
            label={tr('pl.act.kind')}
            name="activity_kind"
            value={kind}
            options={ACTIVITY_KINDS.map((k) => [k, tr(`pl.act.${k}` as TextKey)] as const)}
            onValue={setKind}
          />
          <TextAreaField
            label={tr('pl.act.body')}
            name="activity_body"
            rows={3}
            value={body}
            onValue={setBody}
            error={fields.body}
            hint={tr('pl.act.hint')}
          />
          <FailNotice error={Object.keys(fields).length ? null : w.error} />
          <button type="submit" class="k-btn k-primary" disabled={w.busy}>
            {tr('pl.act.log')}
          </button>
        </form>
      ) : null}
      <ul class="pl-list" data-testid="lead-timeline" style={{ marginTop: '14px' }}>
        {items.map((a) =>
          editing === a.id ? (
            <li key={a.id}>
              <ActivityEdit
                activity={a}
                tr={tr}
                onClose={() => setEditing(null)}
                onSaved={async (changed) => {
                  setOlder((o) => o.map((x) => (x.id === changed.id ? changed : x)))
                  setEditing(null)
                  await onChange()
                }}
              />
            </li>
          ) : (
            <li key={a.id}>
              <div>
                <strong>{a.manual ? tr(`pl.act.${a.kind}` as TextKey) : changeText(a, tr)}</strong>
                <span class="pl-when">
                  {fullTime(a.happened_at)}
                  {a.author ? ` · ${a.author.name}` : ''}
                  {a.duration_minutes ? ` · ${tr('pl.minutes', { n: a.duration_minutes })}` : ''}
                </span>
                {a.manual && a.body ? <p class="pl-body">{a.body}</p> : null}
              </div>
              {manage && a.manual && a.mine ? (
                <RowActions
                  edit={{
                    label: tr('pl.edit_activity', {
                      kind: tr(`pl.act.${a.kind}` as TextKey),
                      at: fullTime(a.happened_at),
                    }),
                    onEdit: () => setEditing(a.id),
                  }}
                  question={tr('pl.delete_activity_q')}
                  onDelete={() =>
                    void w.run(async () => {
                      await api.delete('/v1/lead-activities/{id}', { path: { id: a.id } })
                      setOlder((o) => o.filter((x) => x.id !== a.id))
                    })
                  }
                />
              ) : null}
            </li>
          ),
        )}
      </ul>
      {next !== null ? (
        <button
          type="button"
          class="k-btn"
          onClick={async () => {
            const r = await got<Activity[]>(
              api.get('/v1/leads/{id}/activities', {
                path: { id: lead.id },
                query: { before: next } as never,
              }),
            )
            setOlder((o) => [...o, ...r.data])
            const more = r.meta.next_before
            setNext(typeof more === 'number' ? more : null)
          }}
        >
          {tr('pl.older')}
        </button>
      ) : null}
    </Panel>
  )
}

/** One activity's kind and words, changed in place; the server's messages under each. */
const ActivityEdit = (props: {
  activity: Activity
  tr: Tr
  onClose: () => void
  onSaved: (a: Activity) => Promise<void>
}) => {
  const { tr, activity: a } = props
  const [kind, setKind] = useState(a.kind)
  const [body, setBody] = useState(a.body ?? '')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const fields = failFields(error)
  return (
    <form
      class="k-form pl-edit"
      noValidate
      data-testid="activity-edit"
      aria-label={tr('pl.activity_edit')}
      onSubmit={async (e) => {
        e.preventDefault()
        setBusy(true)
        try {
          const r = await got<Activity>(
            api.patch('/v1/lead-activities/{id}', {
              path: { id: a.id },
              body: { kind: kind as (typeof ACTIVITY_KINDS)[number], body },
            }),
          )
          await props.onSaved(r.data)
        } catch (x) {
          setError(x)
        } finally {
          setBusy(false)
        }
      }}
    >
      <SelectField
        label={tr('pl.act.kind')}
        name="edit_activity_kind"
        value={kind}
        options={ACTIVITY_KINDS.map((k) => [k, tr(`pl.act.${k}` as TextKey)] as const)}
        onValue={setKind}
        error={fields.kind}
      />
      <TextAreaField
        label={tr('pl.act.body')}
        name="edit_activity_body"
        rows={3}
        value={body}
        onValue={setBody}
        error={fields.body}
      />
      <FormEnd submit={tr('pl.save')} busy={busy} error={error} onCancel={props.onClose} />
    </form>
  )
}

const CHANGES = [
  'created',
  'moved',
  'won',
  'lost',
  'reopened',
  'updated',
  'expense_added',
  'expense_removed',
  'file_added',
  'file_removed',
] as const

/** A recorded change in words ("Moved from New to Qualified"). */
const changeText = (a: Activity, tr: Tr) => {
  const d = a.data ?? {}
  const change = String(d.change ?? '')
  const label = (x: unknown) =>
    x && typeof x === 'object' && 'label' in x ? String((x as { label: unknown }).label) : ''
  if (change === 'moved' || change === 'won' || change === 'lost' || change === 'reopened')
    return tr(`pl.ch.${change}`, { from: label(d.from_stage), to: label(d.to_stage) })
  return (CHANGES as readonly string[]).includes(change)
    ? tr(`pl.ch.${change}` as TextKey, {})
    : tr('pl.ch.other')
}
