import { useEffect, useState } from 'preact/hooks'
import { FailNotice, Notice, Panel, SelectField } from '../kit/ui'
import { AreaTabs } from './common'
import { api, can, got, Link, type TextKey, useTr, type Workflow } from './kit'
import { ensureStyles } from './styles'

/**
 * `/app/pipeline/import` (spec 2 §4.7): a spreadsheet (xlsx) or CSV sent to
 * `POST /leads/import/preview`, which reads it on the server and answers its columns with
 * examples and a suggested lead field each; the person changes the mapping (a column left
 * unmatched becomes a new custom field, or is skipped), checks it (`dry_run`: what each row
 * would do, the refused rows with their line and reasons), then imports with the same token.
 */
interface Preview {
  readonly token: string
  readonly file: { readonly name: string; readonly format: string; readonly sheet: string | null }
  readonly rows_total: number
  readonly columns: readonly {
    readonly index: number
    readonly header: string
    readonly suggestion: string | null
    readonly custom_field: string | null
    readonly samples: readonly (string | null)[]
  }[]
  readonly fields: readonly string[]
}

interface Outcome {
  readonly dry_run: boolean
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly refused: number
  readonly custom_fields_created: readonly string[]
  readonly rows: readonly {
    readonly line: number
    readonly action: 'create' | 'update' | 'unchanged' | 'refuse'
    readonly lead_id: number | null
    readonly identifier: string | null
    readonly problems: readonly { readonly field: string; readonly message: string }[]
  }[]
}

/** The lead fields a column may fill (the server's list, each with its words in texts.ts). */
const IMPORT_FIELDS = [
  'title',
  'pipeline',
  'stage',
  'value_estimate',
  'value_won',
  'budget',
  'expected_close',
  'followup_at',
  'followup_note',
  'note',
  'lost_reason',
  'contact_name',
  'contact_phone',
  'contact_email',
  'client',
  'assignee_email',
] as const

/** `custom` (a custom field of leads) and `` (left out) besides the lead fields. */
const SKIP = '-'

const ImportPage = () => {
  ensureStyles()
  const tr = useTr()
  const [workflows, setWorkflows] = useState<readonly Workflow[]>([])
  const [pipelineId, setPipelineId] = useState('')
  const [preview, setPreview] = useState<Preview | null>(null)
  const [mapping, setMapping] = useState<Readonly<Record<string, string>>>({})
  const [outcome, setOutcome] = useState<Outcome | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  useEffect(() => {
    void got<Workflow[]>(api.get('/v1/pipelines')).then(
      (r) => {
        setWorkflows(r.data)
        setPipelineId((p) => p || String(r.data[0]?.id ?? ''))
      },
      () => null,
    )
  }, [])
  if (!can('leads.manage'))
    return (
      <div class="k-page pl-page">
        <Notice kind="info">{tr('pl.imp.refused')}</Notice>
      </div>
    )
  const upload = async (file: File) => {
    setBusy(true)
    setError(null)
    setOutcome(null)
    setPreview(null)
    const form = new FormData()
    form.set('file', file)
    try {
      const r = await got<Preview>(api.post('/v1/leads/import/preview', { body: form }))
      setPreview(r.data)
      const m: Record<string, string> = {}
      for (const c of r.data.columns) m[c.header] = c.suggestion ?? 'custom'
      setMapping(m)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const run = async (dry: boolean) => {
    if (!preview) return
    setBusy(true)
    setError(null)
    try {
      const r = await got<Outcome>(
        api.post('/v1/leads/import', {
          body: {
            token: preview.token,
            dry_run: dry,
            mapping: Object.fromEntries(Object.entries(mapping).map(([h, v]) => [h, v === SKIP ? null : v])),
            ...(pipelineId ? { pipeline_id: Number(pipelineId) } : {}),
          },
        }),
      )
      setOutcome(r.data)
      if (!dry) setPreview(null)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const refused = outcome?.rows.filter((r) => r.action === 'refuse') ?? []
  /** A problem's field in words (the column's lead field), or as the server names it. */
  const fieldName = (f: string) =>
    (IMPORT_FIELDS as readonly string[]).includes(f) ? tr(`pl.imp.f.${f}` as TextKey) : f
  return (
    <div class="k-page pl-page" data-testid="lead-import">
      <div class="k-head">
        <h1>{tr('pl.imp.title')}</h1>
        <div class="pl-actions">
          <a class="k-btn" href="/v1/leads/import/template?format=xlsx" download>
            {tr('pl.imp.template_xlsx')}
          </a>
          <a class="k-btn" href="/v1/leads/import/template?format=csv" download>
            {tr('pl.imp.template_csv')}
          </a>
        </div>
      </div>
      <AreaTabs current="import" />
      <div class="k-stack">
        <Panel title={tr('pl.imp.step1')} id="pl-imp-file">
          <div class="pl-inline">
            <SelectField
              label={tr('pl.imp.workflow')}
              name="pipeline_id"
              value={pipelineId}
              options={workflows.map((w) => [String(w.id), w.name] as const)}
              onValue={setPipelineId}
            />
            <div class="k-field">
              <label for="pl-imp-input">{tr('pl.imp.file')}</label>
              <input
                id="pl-imp-input"
                type="file"
                accept=".xlsx,.csv,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
                disabled={busy}
                onChange={(e) => {
                  const f = (e.currentTarget as HTMLInputElement).files?.[0]
                  if (f) void upload(f)
                }}
              />
            </div>
          </div>
          <p class="k-muted">{tr('pl.imp.hint')}</p>
        </Panel>
        <FailNotice error={error} />
        {preview ? (
          <Panel
            title={tr('pl.imp.step2', { name: preview.file.name, n: preview.rows_total })}
            id="pl-imp-map"
          >
            <div class="pl-scroll">
              <table
                class="k-table pl-table"
                // biome-ignore lint/a11y/noNoninteractiveTabindex: on a phone the table scrolls sideways and takes the keyboard
                tabIndex={0}
                data-testid="import-mapping"
              >
                <thead>
                  <tr>
                    <th scope="col">{tr('pl.imp.column')}</th>
                    <th scope="col">{tr('pl.imp.examples')}</th>
                    <th scope="col">{tr('pl.imp.as')}</th>
                  </tr>
                </thead>
                <tbody>
                  {preview.columns.map((c) => (
                    <tr key={c.index}>
                      <th scope="row">{c.header}</th>
                      <td class="pl-wrap">{c.samples.filter(Boolean).slice(0, 3).join(' · ')}</td>
                      <td>
                        <select
                          aria-label={tr('pl.imp.as_for', { column: c.header })}
                          value={mapping[c.header] ?? SKIP}
                          onChange={(e) => {
                            const v = e.currentTarget.value
                            setMapping((m) => ({ ...m, [c.header]: v }))
                          }}
                        >
                          {preview.fields.map((f) => (
                            <option key={f} value={f}>
                              {tr(`pl.imp.f.${f}` as TextKey)}
                            </option>
                          ))}
                          <option value="custom">
                            {c.custom_field ? tr('pl.imp.custom_existing') : tr('pl.imp.custom_new')}
                          </option>
                          <option value={SKIP}>{tr('pl.imp.skip')}</option>
                        </select>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div class="k-row">
              <button type="button" class="k-btn" disabled={busy} onClick={() => void run(true)}>
                {tr('pl.imp.check')}
              </button>
              <button type="button" class="k-btn k-primary" disabled={busy} onClick={() => void run(false)}>
                {tr('pl.imp.run')}
              </button>
            </div>
          </Panel>
        ) : null}
        {outcome ? (
          <Panel title={tr(outcome.dry_run ? 'pl.imp.checked' : 'pl.imp.done')} id="pl-imp-result">
            <p data-testid="import-counts">
              {tr('pl.imp.counts', {
                created: outcome.created,
                updated: outcome.updated,
                unchanged: outcome.unchanged,
                refused: outcome.refused,
              })}
            </p>
            {outcome.custom_fields_created.length > 0 ? (
              <p class="k-muted">
                {tr('pl.imp.new_fields', { names: outcome.custom_fields_created.join(', ') })}
              </p>
            ) : null}
            {refused.length > 0 ? (
              <div class="pl-scroll">
                <table
                  class="k-table pl-table"
                  // biome-ignore lint/a11y/noNoninteractiveTabindex: on a phone the table scrolls sideways and takes the keyboard
                  tabIndex={0}
                  data-testid="import-errors"
                >
                  <thead>
                    <tr>
                      <th scope="col">{tr('pl.imp.line')}</th>
                      <th scope="col">{tr('pl.imp.problems')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {refused.map((r) => (
                      <tr key={r.line}>
                        <td>{r.line}</td>
                        <td class="pl-wrap">
                          {r.problems.map((p) => `${fieldName(p.field)}: ${p.message}`).join('; ')}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            ) : null}
            {outcome.dry_run ? null : (
              <Link class="k-btn" to={pipelineId ? `/pipeline?workflow=${pipelineId}` : '/pipeline'}>
                {tr('pl.imp.to_board')}
              </Link>
            )}
          </Panel>
        ) : null}
      </div>
    </div>
  )
}
export default ImportPage
