import { useState } from 'preact/hooks'
import { SelectField, TextAreaField, TextField } from '../kit/ui'
import { Dialog, FormEnd } from './common'
import { api, failFields, got, type Lead, type PipelineSettings, type Stage, useTr } from './kit'

/**
 * A lead's move to another stage (spec 2 §3, `POST /leads/{id}/move`): to an open stage at once;
 * to Won asking the deal value (the prospect value by default), to Lost asking the reason of the
 * settings' list and a note. The server's refusal (Won to Lost directly, a stage of another
 * workflow) shows in words.
 */
export const needsDialog = (to: Pick<Stage, 'kind'>, lead: Pick<Lead, 'status'>) =>
  lead.status === 'open' && (to.kind === 'won' || to.kind === 'lost')

export const moveLead = (leadId: number, body: Readonly<Record<string, unknown>>) =>
  got<Lead>(
    api.post('/v1/leads/{id}/move', {
      path: { id: leadId },
      body: body as { stage_id: number },
    }),
  )

export const MoveDialog = (props: { lead: Lead; to: Stage; onClose: () => void; onMoved: () => void }) => {
  const tr = useTr()
  const won = props.to.kind === 'won'
  const [value, setValue] = useState(String(props.lead.value_estimate ?? ''))
  const [reasons, setReasons] = useState<readonly string[] | null>(null)
  const [reason, setReason] = useState('')
  const [note, setNote] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  if (!won && reasons === null) {
    setReasons([])
    void got<PipelineSettings>(api.get('/v1/pipeline/settings')).then(
      (r) => {
        setReasons(r.data.lost_reasons)
        setReason((x) => x || (r.data.lost_reasons[0] ?? ''))
      },
      (e: unknown) => setError(e),
    )
  }
  const fields = failFields(error)
  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      await moveLead(props.lead.id, {
        stage_id: props.to.id,
        ...(won
          ? value.trim() === ''
            ? {}
            : { value_won: Number(value) }
          : { lost_reason: reason, ...(note.trim() ? { lost_note: note.trim() } : {}) }),
      })
      props.onMoved()
    } catch (x) {
      setError(x)
    } finally {
      setBusy(false)
    }
  }
  const label = tr(won ? 'pl.move.won_title' : 'pl.move.lost_title', { title: props.lead.title })
  return (
    <Dialog label={label} onClose={props.onClose}>
      <h2>{label}</h2>
      <form onSubmit={submit}>
        {won ? (
          <TextField
            label={tr('pl.f.value_won')}
            name="value_won"
            type="number"
            min={0}
            value={value}
            onValue={setValue}
            error={fields.value_won}
          />
        ) : (
          <>
            <SelectField
              label={tr('pl.f.lost_reason')}
              name="lost_reason"
              value={reason}
              options={(reasons ?? []).map((r) => [r, r] as const)}
              onValue={setReason}
              error={fields.lost_reason}
            />
            <TextAreaField
              label={tr('pl.f.lost_note')}
              name="lost_note"
              rows={3}
              value={note}
              onValue={setNote}
              error={fields.lost_note}
            />
          </>
        )}
        <FormEnd
          submit={tr(won ? 'pl.move.mark_won' : 'pl.move.mark_lost')}
          busy={busy}
          error={error}
          onCancel={props.onClose}
        />
      </form>
    </Dialog>
  )
}
