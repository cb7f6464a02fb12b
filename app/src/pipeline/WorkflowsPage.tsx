import { useEffect, useState } from 'preact/hooks'
import { ConfirmButton, FailNotice, Notice, Panel, TextAreaField, TextField } from '../kit/ui'
import { request } from '../lib/api'
import { AreaTabs } from './common'
import {
  api,
  can,
  failFields,
  got,
  type Stage,
  type StageKind,
  type Tr,
  useTr,
  useWorkspaceEvents,
  type Workflow,
} from './kit'
import { ensureStyles } from './styles'

/**
 * `/app/pipeline/workflows` (`pipeline.manage`, spec 2 §4.7): workflows with their Back Office
 * teams, archived or deleted (a workflow with leads is archived, and restored from here); each
 * one's stage layout (one New, 0 to 10 In progress, one Won, one Lost: the server's rule), where
 * the leads of a removed stage move to the nearest earlier In-progress stage kept, else New; and
 * the lost reasons and expense categories of the pipeline settings.
 */
interface Team {
  readonly id: number
  readonly name: string
}

interface Settings {
  readonly lost_reasons: readonly string[]
  readonly expense_categories: readonly string[]
  readonly colors: readonly string[]
}

const WorkflowsPage = () => {
  ensureStyles()
  const tr = useTr()
  const [workflows, setWorkflows] = useState<readonly Workflow[] | null>(null)
  const [teams, setTeams] = useState<readonly Team[]>([])
  const [settings, setSettings] = useState<Settings | null>(null)
  const [error, setError] = useState<unknown>(null)
  const load = () =>
    got<Workflow[]>(api.get('/v1/pipelines', { query: { include_archived: '1' } as never })).then(
      (r) => setWorkflows(r.data),
      (e: unknown) => setError(e),
    )
  useEffect(() => {
    void load()
    void got<Team[]>(api.get('/v1/teams', { query: { type: 'backoffice' } as never })).then(
      (r) => setTeams(r.data),
      () => null,
    )
    void got<Settings>(api.get('/v1/pipeline/settings')).then(
      (r) => setSettings(r.data),
      () => null,
    )
  }, [])
  useWorkspaceEvents(['pipeline.changed'], (d) => {
    if (typeof d.reason !== 'string' || d.reason.startsWith('pipeline') || d.reason === 'stages') void load()
  })
  if (!can('pipeline.manage'))
    return (
      <div class="k-page pl-page">
        <Notice kind="info">{tr('pl.wf.refused')}</Notice>
      </div>
    )
  return (
    <div class="k-page pl-page" data-testid="workflows-page">
      <div class="k-head">
        <h1>{tr('pl.wf.title')}</h1>
      </div>
      <AreaTabs current="workflows" />
      <FailNotice error={error} />
      <div class="k-stack">
        {(workflows ?? []).map((w) => (
          <WorkflowPanel
            key={w.id}
            w={w}
            teams={teams}
            colors={settings?.colors ?? []}
            onChange={load}
            tr={tr}
          />
        ))}
        <NewWorkflow teams={teams} onMade={load} tr={tr} />
        {settings ? <SettingsPanel settings={settings} onSaved={setSettings} tr={tr} /> : null}
      </div>
    </div>
  )
}
export default WorkflowsPage

const TeamChecks = (props: {
  teams: readonly Team[]
  value: readonly number[]
  onValue: (ids: number[]) => void
  tr: Tr
}) => (
  <fieldset class="k-fieldset">
    <legend>{props.tr('pl.wf.teams')}</legend>
    {props.teams.length === 0 ? <p class="k-muted">{props.tr('pl.wf.no_teams')}</p> : null}
    {props.teams.map((t) => (
      <label key={t.id} class="k-check">
        <input
          type="checkbox"
          checked={props.value.includes(t.id)}
          onChange={(e) =>
            props.onValue(
              (e.currentTarget as HTMLInputElement).checked
                ? [...props.value, t.id]
                : props.value.filter((x) => x !== t.id),
            )
          }
        />
        {t.name}
      </label>
    ))}
  </fieldset>
)

type Row = { id?: number; kind: StageKind; label: string; color: string; probability: string }
const rowsOf = (stages: readonly Stage[]): Row[] =>
  [...stages]
    .sort((a, b) => a.position - b.position)
    .map((s) => ({
      id: s.id,
      kind: s.kind,
      label: s.label,
      color: s.color,
      probability: String(s.probability),
    }))

const WorkflowPanel = (props: {
  w: Workflow
  teams: readonly Team[]
  colors: readonly string[]
  onChange: () => Promise<unknown>
  tr: Tr
}) => {
  const { w, tr } = props
  const [name, setName] = useState(w.name)
  const [teamIds, setTeamIds] = useState<readonly number[]>(w.team_ids)
  const [rows, setRows] = useState<Row[]>(rowsOf(w.stages))
  const [error, setError] = useState<unknown>(null)
  const [saved, setSaved] = useState('')
  useEffect(() => setRows(rowsOf(w.stages)), [w.stages])
  const run = async (f: () => Promise<unknown>, done: string) => {
    setError(null)
    setSaved('')
    try {
      await f()
      setSaved(done)
      await props.onChange()
    } catch (e) {
      setError(e)
    }
  }
  const set = (i: number, k: keyof Row, v: string) =>
    setRows((rs) => rs.map((r, j) => (j === i ? { ...r, [k]: v } : r)))
  const swap = (i: number, j: number) =>
    setRows((rs) => {
      const next = [...rs]
      ;[next[i], next[j]] = [next[j]!, next[i]!]
      return next
    })
  const progress = rows.filter((r) => r.kind === 'progress').length
  const fields = failFields(error)
  const headId = `pl-wf-${w.id}`
  return (
    <section class="k-panel" aria-labelledby={headId} data-workflow={w.id}>
      <h2 id={headId}>
        {w.name}
        {w.archived ? ` · ${tr('pl.wf.archived')}` : ''}
      </h2>
      <div class="k-form">
        <TextField
          label={tr('pl.wf.name')}
          name={`wf-name-${w.id}`}
          value={name}
          onValue={setName}
          error={fields.name}
        />
        <TeamChecks teams={props.teams} value={teamIds} onValue={setTeamIds} tr={tr} />
        <div class="k-row">
          <button
            type="button"
            class="k-btn"
            onClick={() =>
              void run(
                () =>
                  api.patch('/v1/pipelines/{id}', {
                    path: { id: w.id },
                    body: { name: name.trim(), team_ids: [...teamIds] },
                  }),
                tr('pl.wf.saved'),
              )
            }
          >
            {tr('pl.wf.save')}
          </button>
          {w.archived ? (
            <button
              type="button"
              class="k-btn"
              onClick={() =>
                void run(
                  () => api.patch('/v1/pipelines/{id}', { path: { id: w.id }, body: { archived: false } }),
                  tr('pl.wf.restored'),
                )
              }
            >
              {tr('pl.wf.restore')}
            </button>
          ) : (
            <ConfirmButton
              label={tr('pl.wf.delete')}
              question={tr('pl.wf.delete_q')}
              onConfirm={() =>
                run(() => api.delete('/v1/pipelines/{id}', { path: { id: w.id } }), tr('pl.wf.deleted'))
              }
            />
          )}
        </div>
      </div>
      <h3 class="k-sub">{tr('pl.wf.stages')}</h3>
      <p class="k-muted">{tr('pl.wf.stages_rule')}</p>
      <ol class="pl-list" style={{ marginTop: '10px' }}>
        {rows.map((r, i) => (
          <li key={r.id ?? `n${i}`} class="pl-stage-row">
            <span class="pl-kind">{tr(`pl.kind.${r.kind}`)}</span>
            <TextField
              label={tr('pl.wf.stage_label')}
              name={`stage-${w.id}-${i}`}
              value={r.label}
              onValue={(v) => set(i, 'label', v)}
              error={fields[`stages.${i}.label`]}
            />
            <div class="k-field">
              <label for={`pl-color-${w.id}-${i}`}>{tr('pl.wf.color')}</label>
              <select
                id={`pl-color-${w.id}-${i}`}
                value={r.color}
                style={{ borderLeft: `10px solid ${r.color}` }}
                onChange={(e) => set(i, 'color', e.currentTarget.value)}
              >
                {[...new Set([r.color, ...props.colors])].map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            </div>
            <TextField
              label={tr('pl.wf.probability')}
              name={`prob-${w.id}-${i}`}
              type="number"
              min={0}
              max={100}
              value={r.probability}
              onValue={(v) => set(i, 'probability', v)}
              error={fields[`stages.${i}.probability`]}
            />
            {r.kind === 'progress' ? (
              <span class="pl-stage-tools">
                <button
                  type="button"
                  class="k-btn"
                  aria-label={tr('pl.wf.up', { name: r.label })}
                  disabled={rows[i - 1]?.kind !== 'progress'}
                  onClick={() => swap(i, i - 1)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  class="k-btn"
                  aria-label={tr('pl.wf.down', { name: r.label })}
                  disabled={rows[i + 1]?.kind !== 'progress'}
                  onClick={() => swap(i, i + 1)}
                >
                  ↓
                </button>
                <button
                  type="button"
                  class="k-btn k-btn-danger"
                  aria-label={tr('pl.remove_x', { name: r.label })}
                  onClick={() => setRows((rs) => rs.filter((_, j) => j !== i))}
                >
                  ×
                </button>
              </span>
            ) : (
              <span class="pl-stage-tools" />
            )}
          </li>
        ))}
      </ol>
      <FailNotice error={error} />
      {saved ? <Notice kind="ok">{saved}</Notice> : null}
      <div class="k-row">
        <button
          type="button"
          class="k-btn"
          disabled={progress >= 10}
          onClick={() =>
            setRows((rs) => {
              const at = rs.findIndex((r) => r.kind === 'won')
              const next = [...rs]
              next.splice(at < 0 ? rs.length : at, 0, {
                kind: 'progress',
                label: tr('pl.wf.new_stage'),
                color: props.colors[0] ?? '#3b82f6',
                probability: '50',
              })
              return next
            })
          }
        >
          {tr('pl.wf.add_stage')}
        </button>
        <button
          type="button"
          class="k-btn k-primary"
          onClick={() =>
            void run(
              () =>
                request('put', '/v1/pipelines/{id}/stages', {
                  path: { id: w.id },
                  body: {
                    stages: rows.map((r) => ({
                      ...(r.id !== undefined ? { id: r.id } : {}),
                      kind: r.kind,
                      label: r.label.trim(),
                      color: r.color,
                      probability: Number(r.probability),
                    })),
                  },
                }),
              tr('pl.wf.stages_saved'),
            )
          }
        >
          {tr('pl.wf.save_stages')}
        </button>
      </div>
    </section>
  )
}

const NewWorkflow = (props: { teams: readonly Team[]; onMade: () => Promise<unknown>; tr: Tr }) => {
  const { tr } = props
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const [teamIds, setTeamIds] = useState<readonly number[]>([])
  const [error, setError] = useState<unknown>(null)
  const fields = failFields(error)
  return (
    <Panel title={tr('pl.wf.new')} id="pl-wf-new">
      <form
        class="k-form"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault()
          setError(null)
          try {
            await api.post('/v1/pipelines', {
              body: { name: name.trim(), description: description.trim() || null, team_ids: [...teamIds] },
            })
            setName('')
            setDescription('')
            setTeamIds([])
            await props.onMade()
          } catch (x) {
            setError(x)
          }
        }}
      >
        <TextField
          label={tr('pl.wf.name')}
          name="wf-new-name"
          value={name}
          onValue={setName}
          error={fields.name}
        />
        <TextAreaField
          label={tr('pl.wf.description')}
          name="wf-new-description"
          rows={2}
          value={description}
          onValue={setDescription}
          error={fields.description}
        />
        <TeamChecks teams={props.teams} value={teamIds} onValue={setTeamIds} tr={tr} />
        <p class="k-muted">{tr('pl.wf.default_stages')}</p>
        <FailNotice error={error} />
        <button type="submit" class="k-btn k-primary">
          {tr('pl.wf.create')}
        </button>
      </form>
    </Panel>
  )
}

const SettingsPanel = (props: { settings: Settings; onSaved: (s: Settings) => void; tr: Tr }) => {
  const { tr } = props
  const [lost, setLost] = useState(props.settings.lost_reasons.join('\n'))
  const [cats, setCats] = useState(props.settings.expense_categories.join('\n'))
  const [error, setError] = useState<unknown>(null)
  const [saved, setSaved] = useState(false)
  const lines = (s: string) =>
    s
      .split('\n')
      .map((x) => x.trim())
      .filter(Boolean)
  const fields = failFields(error)
  return (
    <Panel title={tr('pl.wf.settings')} id="pl-wf-settings">
      <form
        class="k-form"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault()
          setError(null)
          setSaved(false)
          try {
            const r = await got<Settings>(
              request('put', '/v1/pipeline/settings', {
                body: { lost_reasons: lines(lost), expense_categories: lines(cats) },
              }),
            )
            props.onSaved({ ...props.settings, ...r.data })
            setSaved(true)
          } catch (x) {
            setError(x)
          }
        }}
      >
        <TextAreaField
          label={tr('pl.wf.lost_reasons')}
          name="lost_reasons"
          rows={5}
          value={lost}
          onValue={setLost}
          error={fields.lost_reasons}
          hint={tr('pl.wf.one_per_line')}
        />
        <TextAreaField
          label={tr('pl.wf.expense_categories')}
          name="expense_categories"
          rows={5}
          value={cats}
          onValue={setCats}
          error={fields.expense_categories}
          hint={tr('pl.wf.one_per_line')}
        />
        <FailNotice error={error} />
        {saved ? <Notice kind="ok">{tr('pl.wf.saved')}</Notice> : null}
        <button type="submit" class="k-btn k-primary">
          {tr('pl.save')}
        </button>
      </form>
    </Panel>
  )
}
