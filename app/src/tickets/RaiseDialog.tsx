import { useEffect, useState } from 'preact/hooks'
import type { Message } from '../api/types'
import { api, failFields, got, Link, useLocale } from '../kit'
import { FailNotice, Dialog as KitDialog, Notice, SelectField, TextAreaField, TextField } from '../kit/ui'
import { fullTime } from '../lib/format'
import { navigate } from '../lib/router'
import { ensureStyles } from './styles'
import { type Tr, useTr } from './texts'
import { type Candidate, PRIORITIES, type Priority, type Ticket } from './types'

type DialogProps = Parameters<typeof KitDialog>[0]

/** The kit's modal dialog in the tickets' look. */
export const Dialog = (props: Omit<DialogProps, 'class'>) => <KitDialog {...props} class="tk-dialog" />

interface BackOfficeTeam {
  readonly id: number
  readonly name: string
  readonly member_ids: readonly number[]
}

/** The cited messages as a quote the description carries (the API keeps no citation of its own). */
export const citation = (messages: readonly Message[], tr: Tr) =>
  [
    tr('tk.cited'),
    ...messages.map((m) => {
      const who = m.direction === 'in' ? tr('tk.customer') : m.sender.name
      return `> [${fullTime(m.sent_at ?? m.created_at)}] ${who}: ${m.body.replace(/\s+/g, ' ').trim()}`
    }),
  ].join('\n')

/**
 * Raising a ticket for a Back Office team (spec 2 §4.3 `POST /tickets`): subject, team,
 * assignees from that team, priority, due date, description; from a conversation, also the
 * messages it cites (quoted into the description) and the link to the conversation.
 */
export const RaiseDialog = (props: {
  interactionId?: number
  messages?: readonly Message[]
  onClose: () => void
  onRaised?: (t: Ticket) => void
}) => {
  ensureStyles()
  const tr = useTr()
  useLocale()
  const [teams, setTeams] = useState<readonly BackOfficeTeam[] | null>(null)
  const [people, setPeople] = useState<readonly Candidate[]>([])
  const [subject, setSubject] = useState('')
  const [teamId, setTeamId] = useState('')
  const [assignees, setAssignees] = useState<readonly number[]>([])
  const [priority, setPriority] = useState<Priority>('normal')
  const [due, setDue] = useState('')
  const [description, setDescription] = useState('')
  const [cited, setCited] = useState<readonly number[]>([])
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const [raised, setRaised] = useState<Ticket | null>(null)

  useEffect(() => {
    got<Candidate[]>(api.get('/v1/tickets/candidates'))
      .then((r) => {
        const list = (r.meta.teams ?? []) as readonly BackOfficeTeam[]
        setTeams(list)
        setPeople(r.data)
        if (list.length === 1) setTeamId(String(list[0]!.id))
      })
      .catch((e) => {
        setTeams([])
        setError(e)
      })
  }, [])

  const citable = (props.messages ?? []).filter((m) => m.body.trim() !== '' && m.type !== 'note')
  const team = teams?.find((t) => String(t.id) === teamId)
  const assignable = team
    ? people.filter((p) => (p.can_view && team.member_ids.includes(p.id)) || p.is_admin)
    : []
  const fields = failFields(error)

  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    const quote = citation(
      citable.filter((m) => cited.includes(m.id)),
      tr,
    )
    const text = [description.trim(), cited.length > 0 ? quote : ''].filter(Boolean).join('\n\n')
    try {
      const r = await api.post('/v1/tickets', {
        body: {
          subject,
          team_id: Number(teamId) || 0,
          priority,
          ...(assignees.length > 0
            ? { assignee_ids: assignees.filter((a) => assignable.some((p) => p.id === a)) }
            : {}),
          ...(due ? { due_date: due } : {}),
          ...(text ? { description: text } : {}),
          ...(props.interactionId !== undefined ? { interaction_id: props.interactionId } : {}),
        },
      })
      const t = r.data
      props.onRaised?.(t)
      if (props.interactionId === undefined) {
        props.onClose()
        navigate(`/tickets/${t.id}`)
      } else setRaised(t)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }

  const title = props.interactionId === undefined ? tr('tk.new') : tr('tk.raise_for')
  if (raised)
    return (
      <Dialog label={title} onClose={props.onClose}>
        <div class="tk-dbody">
          <h2>{title}</h2>
          <Notice kind="ok">{tr('tk.created', { n: raised.number })}</Notice>
          <div class="k-row">
            <Link to={`/tickets/${raised.id}`} class="k-btn k-primary">
              {tr('tk.open_ticket', { n: raised.number })}
            </Link>
            <button type="button" class="k-btn" onClick={props.onClose}>
              {tr('tk.close')}
            </button>
          </div>
        </div>
      </Dialog>
    )
  return (
    <Dialog label={title} onClose={props.onClose}>
      <form onSubmit={submit} data-testid="raise-ticket">
        <h2>{title}</h2>
        {teams !== null && teams.length === 0 && !error ? (
          <Notice kind="info">{tr('tk.no_teams')}</Notice>
        ) : null}
        <FailNotice error={error} />
        <TextField
          label={tr('tk.subject')}
          name="subject"
          value={subject}
          onValue={setSubject}
          error={fields.subject}
          required
          maxLength={255}
        />
        <div class="tk-controls">
          <SelectField
            label={tr('tk.team')}
            name="team_id"
            value={teamId}
            onValue={(v) => {
              setTeamId(v)
              setAssignees([])
            }}
            error={fields.team_id}
            options={[
              ['', tr('tk.choose_team')],
              ...(teams ?? []).map((t) => [String(t.id), t.name] as const),
            ]}
          />
          <SelectField
            label={tr('tk.priority')}
            name="priority"
            value={priority}
            onValue={(v) => setPriority(v as Priority)}
            error={fields.priority}
            options={PRIORITIES.map((p) => [p, tr(`tk.priority.${p}`)] as const)}
          />
        </div>
        {assignable.length > 0 ? (
          <fieldset class="k-fieldset">
            <legend>{tr('tk.assignees')}</legend>
            <div class="tk-assignees">
              {assignable.map((p) => (
                <label key={p.id} class="k-check">
                  <input
                    type="checkbox"
                    name="assignee_ids"
                    checked={assignees.includes(p.id)}
                    onChange={(e) =>
                      setAssignees((old) =>
                        e.currentTarget.checked ? [...old, p.id] : old.filter((x) => x !== p.id),
                      )
                    }
                  />
                  {p.name}
                </label>
              ))}
            </div>
            {fields.assignee_ids ? <small class="k-error">{fields.assignee_ids}</small> : null}
          </fieldset>
        ) : null}
        <TextField
          label={tr('tk.due')}
          name="due_date"
          value={due}
          onValue={setDue}
          error={fields.due_date}
          type={'date' as 'text'}
        />
        <TextAreaField
          label={tr('tk.description')}
          name="description"
          value={description}
          onValue={setDescription}
          error={fields.description}
          rows={4}
        />
        {citable.length > 0 ? (
          <fieldset class="k-fieldset">
            <legend>{tr('tk.cite')}</legend>
            <small class="k-hint">{tr('tk.cite_hint')}</small>
            <ul class="tk-cites">
              {citable.map((m) => (
                <li key={m.id}>
                  <label>
                    <input
                      type="checkbox"
                      name="cite"
                      value={m.id}
                      checked={cited.includes(m.id)}
                      onChange={(e) =>
                        setCited((old) =>
                          e.currentTarget.checked ? [...old, m.id] : old.filter((x) => x !== m.id),
                        )
                      }
                    />
                    <span>
                      <strong>{m.direction === 'in' ? tr('tk.customer') : m.sender.name}</strong>: {m.body}
                    </span>
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
        ) : null}
        <div class="k-row">
          <button type="submit" class="k-btn k-primary" disabled={busy}>
            {tr('tk.raise')}
          </button>
          <button type="button" class="k-btn" onClick={props.onClose}>
            {tr('tk.close')}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
