import { useEffect, useRef, useState } from 'preact/hooks'
import { FailNotice, Field, SelectField } from '../kit/ui'
import { here } from '../lib/router'
import { use } from '../lib/state'
import { AreaTabs } from './common'
import {
  api,
  type Board,
  type BoardStage,
  can,
  got,
  type Lead,
  Link,
  lastWorkflow,
  money,
  type Stage,
  type Tr,
  useLocale,
  useTr,
  useWorkspaceEvents,
  type Workflow,
} from './kit'
import { MoveDialog, moveLead, needsDialog } from './move'
import { ensureStyles } from './styles'

/**
 * `/app/pipeline`: the board of one workflow (spec 2 §4.7 `GET /leads/board`): a column per stage
 * with its count and value, open leads and this month's Won and Lost. A card is dragged to another
 * column (HTML5 drag and drop), or moved from the keyboard with its "Move to" choice; Won and Lost
 * ask for the deal value or the lost reason. `pipeline.changed` from anyone reloads the board, so
 * a lead another person moves moves here too.
 */
const BoardPage = () => {
  ensureStyles()
  const tr = useTr()
  const locale = useLocale()
  const { search } = use(here)
  const [workflows, setWorkflows] = useState<readonly Workflow[] | null>(null)
  const [pipelineId, setPipelineId] = useState<number | null>(null)
  const [board, setBoard] = useState<Board | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [mine, setMine] = useState('')
  const [q, setQ] = useState('')
  const [query, setQuery] = useState('')
  const [pending, setPending] = useState<{ lead: Lead; to: Stage } | null>(null)
  const [status, setStatus] = useState('')
  const current = useRef<number | null>(null)
  current.current = pipelineId
  const generation = useRef(0)

  // Archived workflows too: chosen from their own group, their boards shown read-only.
  const loadWorkflows = () =>
    got<Workflow[]>(api.get('/v1/pipelines', { query: { include_archived: '1' } as never })).then(
      (r) => {
        setWorkflows(r.data)
        const wanted = Number(new URLSearchParams(search).get('workflow')) || lastWorkflow.get()
        const pick =
          r.data.find((w) => w.id === (current.current ?? wanted)) ?? r.data.find((w) => !w.archived)
        setPipelineId(pick ? pick.id : null)
      },
      (e: unknown) => setError(e),
    )
  useEffect(() => void loadWorkflows(), [])

  const load = () => {
    const id = current.current
    if (id === null) return
    const gen = ++generation.current
    void got<Board>(
      api.get('/v1/leads/board', {
        query: {
          pipeline_id: id,
          ...(mine ? { assignee: mine as 'me' } : {}),
          ...(query ? { q: query } : {}),
        } as { pipeline_id: number },
      }),
    ).then(
      (r) => {
        if (gen !== generation.current) return
        setBoard(r.data)
        setError(null)
      },
      (e: unknown) => gen === generation.current && setError(e),
    )
  }
  useEffect(() => {
    if (pipelineId === null) return
    lastWorkflow.set(pipelineId)
    load()
  }, [pipelineId, mine, query])

  useEffect(() => {
    const timer = setTimeout(() => setQuery(q.trim()), 300)
    return () => clearTimeout(timer)
  }, [q])

  // Anyone's change in this workflow (or a workflow's own change): the board afresh.
  const live = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  useWorkspaceEvents(['pipeline.changed'], (data) => {
    const reason = data.reason
    if (typeof reason === 'string' && reason.startsWith('pipeline')) void loadWorkflows()
    if (data.pipeline_id !== undefined && data.pipeline_id !== null && data.pipeline_id !== current.current)
      return
    clearTimeout(live.current)
    live.current = setTimeout(load, 150)
  })
  useEffect(() => () => clearTimeout(live.current), [])

  /** Moves a card: at once on the board (the answer or the next reload corrects it). */
  const move = async (lead: Lead, to: Stage) => {
    if (lead.stage_id === to.id) return
    if (needsDialog(to, lead)) {
      setPending({ lead, to })
      return
    }
    setBoard((b) => (b ? shift(b, lead, to) : b))
    try {
      await moveLead(lead.id, { stage_id: to.id })
      setStatus(tr('pl.moved', { title: lead.title, stage: to.label }))
      setError(null)
    } catch (e) {
      setError(e)
    }
    load()
  }

  const workflow = workflows?.find((w) => w.id === pipelineId)
  const archived = workflow?.archived === true
  const manage = can('leads.manage') && !archived
  return (
    <div class="k-page pl-page" data-testid="pipeline-board">
      <div class="k-head">
        <h1>{tr('pl.title')}</h1>
        <div class="pl-actions">
          {manage && pipelineId !== null ? (
            <Link class="k-btn k-primary" to={`/pipeline/leads/new?workflow=${pipelineId}`}>
              {tr('pl.new_lead')}
            </Link>
          ) : null}
        </div>
      </div>
      <AreaTabs current="board" />
      {workflows !== null && workflows.length === 0 ? (
        <p class="k-muted">{tr('pl.no_workflows')}</p>
      ) : (
        <>
          <search class="pl-filters">
            <WorkflowChooser workflows={workflows ?? []} value={pipelineId} onValue={setPipelineId} tr={tr} />
            <div class="k-field">
              <label for="pl-q">{tr('pl.search')}</label>
              <input id="pl-q" type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
            </div>
            <SelectField
              label={tr('pl.assignee')}
              name="assignee"
              value={mine}
              options={[
                ['', tr('pl.anyone')],
                ['me', tr('pl.me')],
                ['none', tr('pl.nobody')],
              ]}
              onValue={setMine}
            />
          </search>
          {archived && workflow ? (
            <Archived workflow={workflow} onRestored={() => void loadWorkflows()} tr={tr} />
          ) : null}
          <FailNotice error={error} />
          <p class="sr-only" role="status">
            {status}
          </p>
          {board && workflow ? (
            <>
              <p class="pl-summary" data-testid="board-summary">
                <span>
                  {tr('pl.sum.open')} <b>{board.summary.open}</b> · {money(board.summary.open_value, locale)}
                </span>
                <span>
                  {tr('pl.sum.weighted')} <b>{money(board.summary.weighted_value, locale)}</b>
                </span>
                <span>
                  {tr('pl.sum.won')} <b>{board.summary.won}</b> · {money(board.summary.won_value, locale)}
                </span>
                <span>
                  {tr('pl.sum.lost')} <b>{board.summary.lost}</b>
                </span>
              </p>
              <div class="pl-board">
                {board.stages.map((s) => (
                  <Column
                    key={s.id}
                    stage={s}
                    stages={board.stages}
                    onMove={move}
                    readOnly={archived}
                    tr={tr}
                    locale={locale}
                  />
                ))}
              </div>
            </>
          ) : (
            <p class="k-muted">{tr('pl.loading')}</p>
          )}
        </>
      )}
      {pending ? (
        <MoveDialog
          lead={pending.lead}
          to={pending.to}
          onClose={() => setPending(null)}
          onMoved={() => {
            setStatus(tr('pl.moved', { title: pending.lead.title, stage: pending.to.label }))
            setPending(null)
            load()
          }}
        />
      ) : null}
    </div>
  )
}
export default BoardPage

/** The board with `lead` in `to`'s column (before the server's answer). */
const shift = (b: Board, lead: Lead, to: Stage): Board => ({
  ...b,
  stages: b.stages.map((s) => {
    if (s.id === lead.stage_id)
      return { ...s, count: s.count - 1, cards: s.cards.filter((c) => c.id !== lead.id) }
    if (s.id === to.id) return { ...s, count: s.count + 1, cards: [{ ...lead, stage_id: to.id }, ...s.cards] }
    return s
  }),
})

const DRAG_TYPE = 'application/x-kotak-lead'
/** The card being dragged (dataTransfer cannot be read during dragover). */
let dragged: Lead | null = null

const Column = (props: {
  stage: BoardStage
  stages: readonly BoardStage[]
  onMove: (lead: Lead, to: Stage) => void
  readOnly: boolean
  tr: Tr
  locale: string
}) => {
  const { stage: s, tr } = props
  const [over, setOver] = useState(false)
  const headId = `pl-stage-${s.id}`
  return (
    <section
      class={`pl-col${over ? ' pl-over' : ''}`}
      aria-labelledby={headId}
      data-stage={s.id}
      data-testid={`stage-${s.label}`}
      onDragOver={(e) => {
        if (!dragged || dragged.stage_id === s.id || props.readOnly) return
        e.preventDefault()
        if (e.dataTransfer) e.dataTransfer.dropEffect = 'move'
        setOver(true)
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault()
        setOver(false)
        const lead = dragged
        dragged = null
        if (lead) props.onMove(lead, s)
      }}
    >
      <header class="pl-col-head" style={{ '--stage': s.color }}>
        <h2 id={headId}>
          <span>{s.label}</span>
          <span data-testid="stage-count">{s.count}</span>
        </h2>
        <p>
          {money(s.value, props.locale)}
          {s.kind === 'progress' || s.kind === 'new' ? ` · ${s.probability}%` : ''}
        </p>
      </header>
      <ul class="pl-cards">
        {s.cards.length === 0 ? <li class="pl-empty">{tr('pl.col_empty')}</li> : null}
        {s.cards.map((c) => (
          <Card
            key={c.id}
            lead={c}
            stages={props.stages}
            onMove={props.onMove}
            movable={c.can.move && !props.readOnly}
            tr={tr}
            locale={props.locale}
          />
        ))}
        {s.more ? <li class="pl-empty">{tr('pl.col_more')}</li> : null}
      </ul>
    </section>
  )
}

const Card = (props: {
  lead: Lead
  stages: readonly BoardStage[]
  onMove: (lead: Lead, to: Stage) => void
  movable: boolean
  tr: Tr
  locale: string
}) => {
  const { lead: l, tr } = props
  const [dragging, setDragging] = useState(false)
  const overdue = l.followup_at !== null && new Date(l.followup_at).getTime() < Date.now()
  const who = [l.contact?.name, l.client?.name].filter(Boolean).join(' · ')
  return (
    <li
      class={`pl-card${dragging ? ' pl-dragging' : ''}`}
      draggable={props.movable}
      data-lead={l.id}
      data-testid="lead-card"
      onDragStart={(e) => {
        dragged = l
        setDragging(true)
        e.dataTransfer?.setData(DRAG_TYPE, String(l.id))
        e.dataTransfer?.setData('text/plain', l.identifier)
        if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move'
      }}
      onDragEnd={() => {
        dragged = null
        setDragging(false)
      }}
    >
      <Link to={`/pipeline/leads/${l.id}`} draggable={false}>
        {l.title}
      </Link>
      <span class="pl-meta">
        {l.identifier}
        {who ? ` · ${who}` : ''}
      </span>
      {l.value_won !== null || l.value_estimate !== null ? (
        <span class="pl-meta">{money(l.value_won ?? l.value_estimate, props.locale)}</span>
      ) : null}
      {l.assignee ? <span class="pl-meta">{l.assignee.name}</span> : null}
      {l.followup_at ? (
        <span class={overdue ? 'pl-overdue' : 'pl-due'}>
          {tr(overdue ? 'pl.followup_overdue' : 'pl.followup', {
            at: new Date(l.followup_at).toLocaleDateString(props.locale === 'id' ? 'id-ID' : 'en-GB', {
              day: 'numeric',
              month: 'short',
            }),
          })}
        </span>
      ) : null}
      {props.movable ? (
        <select
          aria-label={tr('pl.move_to', { title: l.title })}
          value=""
          onChange={(e) => {
            const to = props.stages.find((s) => String(s.id) === e.currentTarget.value)
            e.currentTarget.value = ''
            if (to) props.onMove(l, to)
          }}
        >
          <option value="">{tr('pl.move')}</option>
          {props.stages
            .filter((s) => s.id !== l.stage_id)
            .map((s) => (
              <option key={s.id} value={s.id}>
                {s.label}
              </option>
            ))}
        </select>
      ) : null}
    </li>
  )
}

/** The board's workflow chooser: the workflows in use, then the archived ones in their own group. */
const WorkflowChooser = (props: {
  workflows: readonly Workflow[]
  value: number | null
  onValue: (id: number) => void
  tr: Tr
}) => {
  const option = (w: Workflow) => (
    <option key={w.id} value={w.id}>
      {w.name}
    </option>
  )
  const archived = props.workflows.filter((w) => w.archived)
  return (
    <Field label={props.tr('pl.workflow')}>
      {(id) => (
        <select
          id={id}
          name="workflow"
          value={props.value === null ? '' : String(props.value)}
          onChange={(e) => props.onValue(Number((e.currentTarget as HTMLSelectElement).value))}
        >
          {props.workflows.filter((w) => !w.archived).map(option)}
          {archived.length > 0 ? (
            <optgroup label={props.tr('pl.wf.archived_group')}>{archived.map(option)}</optgroup>
          ) : null}
        </select>
      )}
    </Field>
  )
}

/** An archived workflow's board: read only, said so, restored from here by those who may. */
const Archived = (props: { workflow: Workflow; onRestored: () => void; tr: Tr }) => {
  const { tr } = props
  const [error, setError] = useState<unknown>(null)
  return (
    <div class="k-notice pl-warn pl-archived" role="status" data-testid="board-archived">
      <span>{tr('pl.board_archived', { name: props.workflow.name })}</span>
      {can('pipeline.manage') ? (
        <button
          type="button"
          class="k-btn"
          onClick={async () => {
            try {
              await api.patch('/v1/pipelines/{id}', {
                path: { id: props.workflow.id },
                body: { archived: false },
              })
              props.onRestored()
            } catch (e) {
              setError(e)
            }
          }}
        >
          {tr('pl.wf.restore')}
        </button>
      ) : null}
      <FailNotice error={error} />
    </div>
  )
}
