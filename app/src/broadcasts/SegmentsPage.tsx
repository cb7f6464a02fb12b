import { useEffect, useRef, useState } from 'preact/hooks'
import { failFields } from '../kit'
import { ConfirmButton, FailNotice, Field, ListState, Notice, SelectField, TextField } from '../kit/ui'
import { navigate } from '../lib/router'
import { ActionFailure, AreaTabs } from './common'
import {
  ApiError,
  api,
  type Broadcast,
  type Catalogue,
  type CatalogueField,
  can,
  got,
  Link,
  num,
  type PageProps,
  type Rule,
  type Segment,
  type SegmentPreview,
  type Tr,
  textOr,
  useCall,
  useLocale,
  useTr,
  useWorkspaceEvents,
} from './kit'
import { ensureStyles } from './styles'

/**
 * `/broadcasts/segments`: the saved segments with their rules in words, member counts and use;
 * `/broadcasts/segments/:id` (`new` for a new one): the builder — name, all/any, up to 15 rules
 * from the field catalogue (`GET /segments/fields`), each with the operators and values its
 * field takes, and a live count with samples (`POST /segments/preview`, a moment after each
 * change) — then save, delete (refused while a live broadcast uses it), export, broadcast to it.
 */
const NO_VALUE = new Set(['is_empty', 'is_not_empty', 'is_true', 'is_false'])
const PICKS = new Set(['label', 'msgapp_label', 'channel', 'owner', 'select'])

const fieldLabel = (tr: Tr, f: CatalogueField) =>
  f.group === 'custom' ? f.label : textOr(tr, `bc.f.${f.field}`, f.label)

const opLabel = (tr: Tr, op: string) => textOr(tr, `bc.op.${op}`, op.replace(/_/g, ' '))

/** A rule's value kind: none, days, a date, a number, a pick from the field's values, or text. */
const kindOf = (f: CatalogueField | undefined, op: string) => {
  if (!f || NO_VALUE.has(op)) return 'none'
  if (op === 'in_last_days' || op === 'not_in_last_days') return 'days'
  if (f.type === 'date') return 'date'
  if (f.type === 'number') return 'number'
  if (PICKS.has(f.type)) return 'pick'
  return 'text'
}

/** The rule as the API takes it: numbers as numbers, a pick's value with its own type. */
const apiRule = (r: Rule, f: CatalogueField | undefined): Rule => {
  const kind = kindOf(f, r.op)
  const numeric = (v: unknown) => (v === '' || v === undefined || v === null ? null : Number(v))
  if (kind === 'none') return { field: r.field, op: r.op }
  if (kind === 'days' || kind === 'number')
    return {
      field: r.field,
      op: r.op,
      value: numeric(r.value),
      ...(r.op === 'between' ? { value2: numeric(r.value2) } : {}),
    }
  if (kind === 'pick') {
    const hit = f?.values?.find((v) => String(v.value) === String(r.value))
    return { field: r.field, op: r.op, value: hit ? hit.value : (r.value ?? null) }
  }
  return {
    field: r.field,
    op: r.op,
    value: r.value ?? '',
    ...(r.op === 'between' ? { value2: r.value2 ?? '' } : {}),
  }
}

const complete = (r: Rule, f: CatalogueField | undefined) => {
  const kind = kindOf(f, r.op)
  if (!f) return false
  if (kind === 'none') return true
  const filled = (v: unknown) => v !== undefined && v !== null && String(v).trim() !== ''
  return filled(r.value) && (r.op !== 'between' || filled(r.value2))
}

/** The rules in words, in the reader's language. */
export const summary = (tr: Tr, s: Pick<Segment, 'rules' | 'match'>, fields: readonly CatalogueField[]) => {
  if (s.rules.length === 0) return tr('bc.seg.no_rules')
  return s.rules
    .map((r) => {
      const f = fields.find((x) => x.field === r.field)
      const value =
        r.value === undefined || r.value === null || r.value === ''
          ? ''
          : ` ${f?.values?.find((v) => String(v.value) === String(r.value))?.label ?? String(r.value)}`
      const value2 = r.value2 === undefined || r.value2 === null ? '' : ` ${tr('bc.and')} ${String(r.value2)}`
      return `${f ? fieldLabel(tr, f) : r.field} ${opLabel(tr, r.op)}${value}${value2}`
    })
    .join(` ${s.match === 'all' ? tr('bc.and') : tr('bc.or')} `)
}

const useCatalogue = () => {
  const [cat, setCat] = useState<Catalogue | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    got<Catalogue>(api.get('/v1/segments/fields'))
      .then((r) => setCat(r.data))
      .catch(setError)
  }, [])
  return { cat, error }
}

export const SegmentListPage = () => {
  ensureStyles()
  const tr = useTr()
  const locale = useLocale()
  const { cat } = useCatalogue()
  const [items, setItems] = useState<readonly Segment[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const load = () =>
    got<Segment[]>(api.get('/v1/segments'))
      .then((r) => {
        setItems(r.data)
        setError(null)
      })
      .catch(setError)
  useEffect(() => void load(), [])
  useWorkspaceEvents(['segments.changed'], () => void load())
  return (
    <div class="k-page" data-testid="segments">
      <div class="k-head">
        <h1>{tr('bc.seg.title')}</h1>
        {can('broadcasts.manage') ? (
          <div class="bc-actions">
            <Link class="k-btn k-primary" to="/broadcasts/segments/new">
              {tr('bc.seg.new')}
            </Link>
          </div>
        ) : null}
      </div>
      <AreaTabs current="segments" tr={tr} />
      <FailNotice error={error} />
      <ListState items={items} empty={tr('bc.seg.empty')}>
        {(items) => (
          <div class="k-table-wrap">
            <table class="k-table bc-table" data-testid="segments-list">
              <thead>
                <tr>
                  <th scope="col">{tr('bc.seg.name')}</th>
                  <th scope="col">{tr('bc.seg.summary')}</th>
                  <th scope="col">{tr('bc.seg.members')}</th>
                </tr>
              </thead>
              <tbody>
                {items.map((s) => (
                  <tr key={s.id}>
                    <td>
                      <Link to={`/broadcasts/segments/${s.id}`}>{s.name}</Link>
                      {s.description ? <span class="bc-sub">{s.description}</span> : null}
                    </td>
                    <td>{cat ? summary(tr, s, cat.fields) : s.summary}</td>
                    <td>
                      {num(s.last_count, locale)}
                      <span class="bc-sub">{tr('bc.seg.used', { n: s.broadcasts_count })}</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListState>
    </div>
  )
}

interface Draft {
  readonly name: string
  readonly description: string
  readonly match: 'all' | 'any'
  readonly rules: readonly Rule[]
}

const EMPTY: Draft = { name: '', description: '', match: 'all', rules: [] }

const RuleRow = (props: {
  index: number
  rule: Rule
  fields: readonly CatalogueField[]
  errors: Readonly<Record<string, string>>
  onChange: (r: Rule) => void
  onRemove: () => void
}) => {
  const tr = useTr()
  const { rule, fields, index } = props
  const f = fields.find((x) => x.field === rule.field)
  const kind = kindOf(f, rule.op)
  const err = (k: string) => props.errors[`rules.${index}.${k}`]
  const groups = [...new Set(fields.map((x) => x.group))]
  const setValue = (value: string) => props.onChange({ ...rule, value })
  const setValue2 = (value2: string) => props.onChange({ ...rule, value2 })
  const inputType = kind === 'date' ? 'date' : kind === 'number' || kind === 'days' ? 'number' : 'text'
  const valueInput = (which: 'value' | 'value2', label: string) => (
    <Field label={label} error={err(which)}>
      {(id, described) => (
        <input
          id={id}
          name={`rule-${index}-${which}`}
          // Preact types each input `type` apart; these share every attribute used here.
          type={inputType as 'text'}
          value={rule[which] === undefined || rule[which] === null ? '' : String(rule[which])}
          aria-invalid={err(which) ? 'true' : undefined}
          aria-describedby={described}
          onInput={(e) => (which === 'value' ? setValue : setValue2)(e.currentTarget.value)}
        />
      )}
    </Field>
  )
  return (
    <li class="bc-rule" data-testid="segment-rule">
      <Field label={`${tr('bc.seg.rule', { n: index + 1 })}: ${tr('bc.seg.field')}`} error={err('field')}>
        {(id, described) => (
          <select
            id={id}
            name={`rule-${index}-field`}
            value={rule.field}
            aria-describedby={described}
            onChange={(e) => {
              const next = fields.find((x) => x.field === e.currentTarget.value)
              props.onChange({ field: e.currentTarget.value, op: next?.ops[0] ?? '', value: '' })
            }}
          >
            {groups.map((g) => (
              <optgroup key={g} label={tr(`bc.group.${g}`)}>
                {fields
                  .filter((x) => x.group === g)
                  .map((x) => (
                    <option key={x.field} value={x.field}>
                      {fieldLabel(tr, x)}
                    </option>
                  ))}
              </optgroup>
            ))}
          </select>
        )}
      </Field>
      <SelectField
        label={tr('bc.seg.op')}
        name={`rule-${index}-op`}
        value={rule.op}
        options={(f?.ops ?? []).map((o) => [o, opLabel(tr, o)] as const)}
        onValue={(op) => props.onChange({ ...rule, op })}
        error={err('op')}
      />
      {kind === 'none' ? (
        <span />
      ) : kind === 'pick' ? (
        <SelectField
          label={tr('bc.seg.value')}
          name={`rule-${index}-value`}
          value={rule.value === undefined || rule.value === null ? '' : String(rule.value)}
          options={[
            ['', tr('bc.seg.choose')],
            ...(f?.values ?? []).map((v) => [String(v.value), v.label] as const),
          ]}
          onValue={setValue}
          error={err('value')}
        />
      ) : rule.op === 'between' ? (
        <div class="bc-pair">
          {valueInput('value', tr('bc.seg.value'))}
          {valueInput('value2', tr('bc.seg.value2'))}
        </div>
      ) : (
        valueInput('value', kind === 'days' ? tr('bc.seg.days') : tr('bc.seg.value'))
      )}
      <button type="button" class="k-btn" onClick={props.onRemove}>
        ✕<span class="sr-only"> {tr('bc.seg.remove_rule', { n: index + 1 })}</span>
      </button>
    </li>
  )
}

export const SegmentEditPage = ({ params }: PageProps) => {
  ensureStyles()
  const tr = useTr()
  const locale = useLocale()
  const isNew = params.id === 'new'
  const id = isNew ? 0 : Number(params.id)
  const { cat, error: catError } = useCatalogue()
  const [draft, setDraft] = useState<Draft>(EMPTY)
  const [loaded, setLoaded] = useState(isNew)
  const [missing, setMissing] = useState(false)
  const [preview, setPreview] = useState<SegmentPreview | null>(null)
  const [counting, setCounting] = useState(false)
  const [previewErrors, setPreviewErrors] = useState<Readonly<Record<string, string>>>({})
  const [saved, setSaved] = useState(false)
  const [used, setUsed] = useState(0)
  const saving = useCall()
  const acting = useCall()
  const seq = useRef(0)
  const manage = can('broadcasts.manage')

  useEffect(() => {
    if (isNew) return
    if (!Number.isInteger(id) || id < 1) {
      setMissing(true)
      return
    }
    got<Segment & { preview: SegmentPreview }>(api.get('/v1/segments/{id}', { path: { id } }))
      .then((r) => {
        setDraft({
          name: r.data.name,
          description: r.data.description,
          match: r.data.match,
          rules: r.data.rules,
        })
        setPreview(r.data.preview)
        setUsed(r.data.broadcasts_count)
        setLoaded(true)
      })
      .catch((e) => {
        if (e instanceof ApiError && e.status === 404) setMissing(true)
        else saving.run(() => Promise.reject(e))
      })
  }, [params.id])

  const fields = cat?.fields ?? []
  const byField = (r: Rule) => fields.find((x) => x.field === r.field)
  const usable = draft.rules.filter((r) => complete(r, byField(r)))
  const key = JSON.stringify([draft.match, usable.map((r) => apiRule(r, byField(r)))])

  // The live count: a moment after the last change, only the latest answer shown.
  useEffect(() => {
    if (!cat || !loaded) return
    const mine = ++seq.current
    setCounting(true)
    const t = setTimeout(async () => {
      try {
        const r = await got<SegmentPreview>(
          api.post('/v1/segments/preview', {
            body: { match: draft.match, rules: usable.map((x) => apiRule(x, byField(x))) as Rule[] },
          }),
        )
        if (mine !== seq.current) return
        setPreview(r.data)
        setPreviewErrors({})
      } catch (e) {
        if (mine === seq.current) setPreviewErrors(failFields(e))
      } finally {
        if (mine === seq.current) setCounting(false)
      }
    }, 350)
    return () => clearTimeout(t)
  }, [key, cat, loaded])

  const change = (patch: Partial<Draft>) => {
    setSaved(false)
    setDraft({ ...draft, ...patch })
  }
  const setRule = (i: number, r: Rule) => change({ rules: draft.rules.map((x, j) => (j === i ? r : x)) })
  const addRule = () => {
    const f = fields[0]
    if (f) change({ rules: [...draft.rules, { field: f.field, op: f.ops[0] ?? '', value: '' }] })
  }

  const save = async (e: Event) => {
    e.preventDefault()
    const body = {
      name: draft.name.trim(),
      description: draft.description,
      match: draft.match,
      rules: draft.rules.map((r) => apiRule(r, byField(r))) as Rule[],
    }
    const ok = await saving.run(async () => {
      if (isNew) {
        const r = await got<Segment>(api.post('/v1/segments', { body }))
        navigate(`/broadcasts/segments/${r.data.id}`, true)
      } else await api.patch('/v1/segments/{id}', { path: { id }, body })
    })
    setSaved(ok)
  }

  const broadcastTo = () =>
    acting.run(async () => {
      const r = await got<Broadcast>(
        api.post('/v1/broadcasts', { body: { name: draft.name.trim(), audience: { segment_ids: [id] } } }),
      )
      navigate(`/broadcasts/${r.data.id}`)
    })

  if (missing)
    return (
      <div class="k-page">
        <Link class="k-back" to="/broadcasts/segments">
          ← {tr('bc.segments')}
        </Link>
        <Notice kind="bad">{tr('bc.seg.not_found')}</Notice>
      </div>
    )
  const errors = { ...previewErrors, ...saving.fields }
  const max = cat?.max_rules ?? 15
  return (
    <div class="k-page" data-testid="segment-builder">
      <Link class="k-back" to="/broadcasts/segments">
        ← {tr('bc.segments')}
      </Link>
      <div class="k-head">
        <h1>{isNew ? tr('bc.seg.new') : draft.name || tr('bc.seg.edit')}</h1>
        {!isNew && manage && loaded ? (
          <div class="bc-actions">
            <button type="button" class="k-btn" disabled={acting.busy} onClick={() => void broadcastTo()}>
              {tr('bc.seg.broadcast_with')}
            </button>
            <a class="k-btn" href={`/v1/segments/${id}/export`} download>
              {tr('bc.seg.export')}
            </a>
            <ConfirmButton
              label={tr('bc.delete')}
              question={tr('bc.seg.delete_q')}
              onConfirm={async () => {
                const ok = await acting.run(() => api.delete('/v1/segments/{id}', { path: { id } }))
                if (ok) navigate('/broadcasts/segments', true)
              }}
            />
          </div>
        ) : null}
      </div>
      <FailNotice error={catError} />
      <ActionFailure error={acting.error} />
      {!isNew && used > 0 ? <p class="k-muted">{tr('bc.seg.used', { n: used })}</p> : null}
      {!cat || !loaded ? (
        <p class="k-muted">{tr('bc.loading')}</p>
      ) : (
        <div class="bc-cols">
          <form class="k-panel k-form" onSubmit={save} data-testid="segment-form">
            <TextField
              label={tr('bc.seg.name')}
              name="name"
              value={draft.name}
              onValue={(name) => change({ name })}
              maxLength={120}
              required
              error={saving.fields.name}
            />
            <TextField
              label={tr('bc.seg.description')}
              name="description"
              value={draft.description}
              onValue={(description) => change({ description })}
              maxLength={1000}
              error={saving.fields.description}
            />
            <SelectField
              label={tr('bc.seg.match')}
              name="match"
              value={draft.match}
              options={[
                ['all', tr('bc.seg.match_all')],
                ['any', tr('bc.seg.match_any')],
              ]}
              onValue={(m) => change({ match: m === 'any' ? 'any' : 'all' })}
            />
            <h2>{tr('bc.seg.rules')}</h2>
            {draft.rules.length === 0 ? <p class="k-muted">{tr('bc.seg.no_rules')}</p> : null}
            <ul class="k-stack" style={{ listStyle: 'none', margin: 0, padding: 0, gap: 0 }}>
              {draft.rules.map((r, i) => (
                <RuleRow
                  key={i}
                  index={i}
                  rule={r}
                  fields={fields}
                  errors={errors}
                  onChange={(x) => setRule(i, x)}
                  onRemove={() => change({ rules: draft.rules.filter((_, j) => j !== i) })}
                />
              ))}
            </ul>
            {usable.length < draft.rules.length ? <p class="k-hint">{tr('bc.seg.incomplete')}</p> : null}
            <div class="k-row">
              <button type="button" class="k-btn" onClick={addRule} disabled={draft.rules.length >= max}>
                {tr('bc.seg.add_rule')}
              </button>
              {manage ? (
                <button type="submit" class="k-btn k-primary" disabled={saving.busy}>
                  {tr('bc.seg.save')}
                </button>
              ) : null}
            </div>
            {saved ? <Notice kind="ok">{tr('bc.seg.saved')}</Notice> : null}
            <FailNotice error={saving.error} />
          </form>
          <div>
            <section class="k-panel" aria-labelledby="bc-seg-count" aria-busy={counting}>
              <h2 id="bc-seg-count">{tr('bc.seg.members')}</h2>
              {preview ? (
                <>
                  <p class="bc-count" data-testid="segment-count" aria-live="polite">
                    {tr('bc.seg.count', { n: num(preview.count, locale) })}
                  </p>
                  <p class="k-muted">
                    {tr('bc.seg.with_phone', { n: num(preview.with_phone, locale) })} ·{' '}
                    {tr('bc.seg.unsubscribed', { n: num(preview.unsubscribed, locale) })}
                  </p>
                  {preview.samples.length > 0 ? (
                    <>
                      <h3 class="k-muted" style={{ margin: '12px 0 6px' }}>
                        {tr('bc.seg.samples')}
                      </h3>
                      <ul class="bc-preview" data-testid="segment-samples">
                        {preview.samples.map((c) => (
                          <li key={c.id}>
                            <Link to={`/contacts/${c.id}`}>{c.name}</Link>
                            <span class="bc-sub">{c.phone ?? c.email ?? ''}</span>
                          </li>
                        ))}
                      </ul>
                    </>
                  ) : null}
                </>
              ) : (
                <p class="k-muted">{tr('bc.seg.counting')}</p>
              )}
            </section>
          </div>
        </div>
      )}
    </div>
  )
}
