import { useEffect, useState } from 'preact/hooks'
import { CheckField, Notice, SelectField, TextField } from '../kit/ui'
import {
  Chip,
  ColorPick,
  EditorForm,
  ListTable,
  MoveButtons,
  NewBar,
  PALETTE,
  Page,
  RowActions,
  Told,
  useList,
} from './common'
import { ApiError, api, failText, got, useCall, useTr, useWorkspaceEvents } from './kit'
import type { TextKey } from './texts'
import type { Label, Rule, RuleAction } from './types'

/** `/app/settings/labels`: contact labels, then the messaging-app label rules (Pro). */
const LabelsPage = () => (
  <Page title="is.lab.title" permission="contacts.manage" testId="labels-page">
    <Labels />
    <Rules />
  </Page>
)
export default LabelsPage

/** The labels and their palette, reloaded when anyone changes them (`contacts.settings`). */
const useLabels = () => {
  const [labels, setLabels] = useState<readonly Label[] | null>(null)
  const [colors, setColors] = useState<readonly string[]>(PALETTE)
  const [failed, setFailed] = useState<unknown>(null)
  const load = () =>
    got<Label[]>(api.get('/v1/labels')).then((r) => {
      setLabels(r.data)
      setColors((r.meta.colors as string[] | undefined) ?? PALETTE)
    }, setFailed)
  useEffect(() => {
    void load()
  }, [])
  useWorkspaceEvents(['contacts.settings'], (d) => {
    if (d.kind === undefined || d.kind === 'labels') void load()
  })
  return { labels, colors, failed, load }
}

const Labels = () => {
  const tr = useTr()
  const { labels, colors, failed, load } = useLabels()
  const ui = useList<Label>(load)
  const move = (l: Label, i: number, by: -1 | 1) =>
    ui.act(() => api.patch('/v1/labels/{id}', { path: { id: l.id }, body: { position: i + by } }))
  const remove = (l: Label) =>
    ui.act(async () => {
      await api.delete('/v1/labels/{id}', { path: { id: l.id } })
      return tr('is.deleted', { name: l.name })
    }, l.id)

  return (
    <section class="k-stack is-stack" aria-labelledby="labels-h">
      <h2 class="k-sub is-sub" id="labels-h">
        {tr('is.lab.labels')}
      </h2>
      <Told failed={ui.failed ?? failed} note={ui.note} />
      {ui.editing ? (
        <LabelEditor
          key={ui.editing === 'new' ? 'new' : ui.editing.id}
          label={ui.editing === 'new' ? null : ui.editing}
          colors={colors}
          onDone={ui.done}
        />
      ) : (
        <NewBar label={tr('is.lab.new')} onNew={() => ui.open('new')} />
      )}
      {labels && labels.length === 0 ? (
        <p class="k-muted" data-testid="labels-empty">
          {tr('is.lab.empty')}
        </p>
      ) : null}
      {labels && labels.length > 0 ? (
        <ListTable
          label={tr('is.lab.labels')}
          columns={[[tr('is.lab.name')], [tr('is.lab.contacts'), 'wide'], [tr('is.order')]]}
        >
          {labels.map((l, i) => (
            <tr key={l.id} data-label-id={l.id}>
              <td>
                <Chip color={l.color} />
                <strong>{l.name}</strong>
                <div class="k-muted is-narrow">
                  {tr('is.lab.contacts')}: {l.contacts_count}
                </div>
              </td>
              <td class="is-wide">{l.contacts_count}</td>
              <td>
                <MoveButtons
                  name={l.name}
                  first={i === 0}
                  last={i === labels.length - 1}
                  busy={ui.busy}
                  onMove={(by) => move(l, i, by)}
                />
              </td>
              <RowActions
                name={l.name}
                question={tr('is.lab.delete_q', { name: l.name, n: l.contacts_count })}
                onEdit={() => ui.open(l)}
                onDelete={() => remove(l)}
              />
            </tr>
          ))}
        </ListTable>
      ) : null}
    </section>
  )
}

const LabelEditor = (props: {
  label: Label | null
  colors: readonly string[]
  onDone: (told: string | null) => void
}) => {
  const tr = useTr()
  const l = props.label
  const [name, setName] = useState(l?.name ?? '')
  const [color, setColor] = useState(l?.color ?? props.colors[0] ?? '')
  const call = useCall()
  return (
    <EditorForm
      id="label-edit"
      level={3}
      testId="label-form"
      title={l ? tr('is.edit_of', { name: l.name }) : tr('is.lab.new')}
      creating={!l}
      call={call}
      save={() =>
        l
          ? api.patch('/v1/labels/{id}', { path: { id: l.id }, body: { name, color } })
          : api.post('/v1/labels', { body: { name, color } })
      }
      told={tr(l ? 'is.saved' : 'is.created', { name: name.trim() })}
      onDone={props.onDone}
    >
      <TextField
        label={tr('is.lab.name')}
        name="name"
        value={name}
        onValue={setName}
        error={call.fields.name}
        maxLength={50}
        required
      />
      <ColorPick
        name="label-color"
        value={color}
        onValue={setColor}
        colors={props.colors}
        error={call.fields.color}
      />
    </EditorForm>
  )
}

interface Choices {
  readonly numbers: readonly { readonly id: number; readonly name: string }[]
  readonly teams: readonly { readonly id: number; readonly name: string }[]
  readonly labels: readonly { readonly id: number; readonly name: string }[]
}

/** A rule told as a sentence: when that label lands on a chat of that number, what happens. */
const useReads = () => {
  const tr = useTr()
  return (r: Rule) =>
    tr(`is.rule.reads.${r.action}` as TextKey, {
      channel: r.channel.name,
      label: r.label_name,
      value: r.value_label ?? '',
    })
}

const Rules = () => {
  const tr = useTr()
  const reads = useReads()
  const [rules, setRules] = useState<readonly Rule[] | null>(null)
  const [choices, setChoices] = useState<Choices>({ numbers: [], teams: [], labels: [] })
  const load = (): Promise<void> =>
    got<Rule[]>(api.get('/v1/msgapp-label-rules')).then((r) => setRules(r.data), ui.setFailed)
  const ui = useList<Rule>(load)
  const loadChoices = async () => {
    const [numbers, teams, labels] = await Promise.all([
      got<{ id: number; name: string; type: string }[]>(api.get('/v1/channels')).then(
        (r) => r.data.filter((c) => c.type === 'msgapp'),
        () => [],
      ),
      got<{ id: number; name: string }[]>(api.get('/v1/teams', { query: { type: 'frontline' } })).then(
        (r) => r.data,
        () => [],
      ),
      got<Label[]>(api.get('/v1/labels')).then(
        (r) => r.data,
        () => [],
      ),
    ])
    setChoices({ numbers, teams, labels })
  }
  useEffect(() => {
    void load()
    void loadChoices()
  }, [])
  // A label renamed or deleted elsewhere changes what rules read as.
  useWorkspaceEvents(['contacts.settings'], (d) => {
    if (d.kind === undefined || d.kind === 'labels') {
      void load()
      void loadChoices()
    }
  })
  const toggle = (r: Rule) =>
    ui.act(() =>
      api.patch('/v1/msgapp-label-rules/{id}', { path: { id: r.id }, body: { active: !r.active } }),
    )
  const remove = (r: Rule) =>
    ui.act(async () => {
      await api.delete('/v1/msgapp-label-rules/{id}', { path: { id: r.id } })
      return tr('is.rule.deleted')
    }, r.id)

  return (
    <section class="k-stack is-stack" aria-labelledby="rules-h" data-testid="label-rules">
      <h2 class="k-sub is-sub" id="rules-h">
        {tr('is.rule.title')}
      </h2>
      <p class="k-muted">{tr('is.rule.intro')}</p>
      {/* Free workspaces: the server says the rules need Pro (402), told as information. */}
      {ui.failed instanceof ApiError && ui.failed.code === 'plan_required' ? (
        <Notice kind="info">{failText(ui.failed)}</Notice>
      ) : (
        <Told failed={ui.failed} note={ui.note} />
      )}
      {rules && ui.editing ? (
        <RuleEditor
          key={ui.editing === 'new' ? 'new' : ui.editing.id}
          rule={ui.editing === 'new' ? null : ui.editing}
          choices={choices}
          onDone={ui.done}
        />
      ) : null}
      {rules && !ui.editing ? (
        choices.numbers.length === 0 ? (
          <Notice kind="info">{tr('is.rule.no_numbers')}</Notice>
        ) : (
          <NewBar label={tr('is.rule.new')} onNew={() => ui.open('new')} />
        )
      ) : null}
      {rules && rules.length === 0 ? (
        <p class="k-muted" data-testid="rules-empty">
          {tr('is.rule.empty')}
        </p>
      ) : null}
      {rules && rules.length > 0 ? (
        <ListTable label={tr('is.rule.title')} columns={[[tr('is.rule.what')], [tr('is.rule.status')]]}>
          {rules.map((r) => (
            <tr key={r.id} data-rule-id={r.id}>
              <td>
                <p class="is-sentence">{reads(r)}</p>
              </td>
              <td>
                <span class={`k-badge k-${r.active ? 'ok' : 'wait'}`}>
                  {r.active ? tr('is.rule.on') : tr('is.rule.off')}
                </span>
              </td>
              <RowActions
                name={r.label_name}
                question={tr('is.rule.delete_q')}
                onEdit={() => ui.open(r)}
                onDelete={() => remove(r)}
              >
                <button type="button" class="k-btn" disabled={ui.busy} onClick={() => toggle(r)}>
                  {r.active ? tr('is.rule.turn_off') : tr('is.rule.turn_on')}
                </button>
              </RowActions>
            </tr>
          ))}
        </ListTable>
      ) : null}
    </section>
  )
}

const ACTIONS: readonly RuleAction[] = ['contact_label', 'assign_team', 'solve']

const RuleEditor = (props: {
  rule: Rule | null
  choices: Choices
  onDone: (told: string | null) => void
}) => {
  const tr = useTr()
  const reads = useReads()
  const r = props.rule
  const { numbers, teams, labels } = props.choices
  const [channel, setChannel] = useState(String(r?.channel.id ?? numbers[0]?.id ?? ''))
  const [labelName, setLabelName] = useState(r?.label_name ?? '')
  const [action, setAction] = useState<RuleAction>(r?.action ?? 'contact_label')
  const [value, setValue] = useState(r?.value ? String(r.value) : '')
  const [active, setActive] = useState(r?.active ?? true)
  const call = useCall()
  const values = action === 'contact_label' ? labels : action === 'assign_team' ? teams : []
  const body = {
    channel_id: Number(channel),
    label_name: labelName,
    action,
    value: action === 'solve' || value === '' ? null : Number(value),
    active,
  }
  // The sentence the list will show, as the form stands.
  const draft: Rule = {
    id: 0,
    label_name: labelName.trim() || '…',
    channel: { id: Number(channel), name: numbers.find((n) => String(n.id) === channel)?.name ?? '…' },
    action,
    value: null,
    value_label: values.find((v) => String(v.id) === value)?.name ?? '…',
    active,
  }
  return (
    <EditorForm
      id="rule-edit"
      level={3}
      testId="rule-form"
      title={r ? tr('is.edit_of', { name: r.label_name }) : tr('is.rule.new')}
      creating={!r}
      call={call}
      save={() =>
        r
          ? api.patch('/v1/msgapp-label-rules/{id}', { path: { id: r.id }, body })
          : api.post('/v1/msgapp-label-rules', { body })
      }
      told={tr('is.rule.saved')}
      onDone={props.onDone}
    >
      <div class="is-two">
        <SelectField
          label={tr('is.rule.channel')}
          name="channel_id"
          value={channel}
          onValue={setChannel}
          error={call.fields.channel_id}
          options={numbers.map((n) => [String(n.id), n.name] as const)}
        />
        <TextField
          label={tr('is.rule.label_name')}
          name="label_name"
          value={labelName}
          onValue={setLabelName}
          error={call.fields.label_name}
          hint={tr('is.rule.label_name_hint')}
          maxLength={100}
          required
        />
        <SelectField
          label={tr('is.rule.action')}
          name="action"
          value={action}
          onValue={(v) => {
            setAction(v as RuleAction)
            setValue('')
          }}
          error={call.fields.action}
          options={ACTIONS.map((a) => [a, tr(`is.rule.action.${a}` as TextKey)] as const)}
        />
        {action !== 'solve' ? (
          <SelectField
            label={tr(`is.rule.value.${action}` as TextKey)}
            name="value"
            value={value}
            onValue={setValue}
            error={call.fields.value}
            options={[['', tr('is.rule.pick')], ...values.map((v) => [String(v.id), v.name] as const)]}
          />
        ) : null}
      </div>
      <CheckField label={tr('is.rule.active')} name="active" checked={active} onValue={setActive} />
      <p class="is-sentence" data-testid="rule-reads">
        {reads(draft)}
      </p>
    </EditorForm>
  )
}
