import { ConfirmButton, FailNotice, Dialog as KitDialog } from '../kit/ui'
import { can, failFields, Link, useTr } from './kit'

type DialogProps = Parameters<typeof KitDialog>[0]

/** The kit's modal dialog in the pipeline's look. */
export const Dialog = (props: Omit<DialogProps, 'class'>) => <KitDialog {...props} class="pl-dialog" />

/** The pipeline area's own navigation: board, leads, dashboard, clients, import. */
export const AreaTabs = (props: {
  current: 'board' | 'leads' | 'dashboard' | 'clients' | 'import' | 'workflows'
}) => {
  const tr = useTr()
  const tabs: readonly (readonly [typeof props.current, string, string])[] = [
    ['board', '/pipeline', tr('pl.tab.board')],
    ['leads', '/pipeline/leads', tr('pl.tab.leads')],
    ['dashboard', '/pipeline/dashboard', tr('pl.tab.dashboard')],
    ['clients', '/pipeline/clients', tr('pl.tab.clients')],
    ...(can('leads.manage') ? [['import', '/pipeline/import', tr('pl.tab.import')] as const] : []),
    ...(can('pipeline.manage')
      ? [['workflows', '/pipeline/workflows', tr('pl.tab.workflows')] as const]
      : []),
  ]
  return (
    <nav class="pl-tabs" aria-label={tr('pl.title')}>
      {tabs.map(([k, to, label]) => (
        <Link key={k} to={to} aria-current={k === props.current ? 'page' : undefined}>
          {label}
        </Link>
      ))}
    </nav>
  )
}

/**
 * A form's end: the refusal that is not about one field (a 422's own messages stand beside their
 * fields), then the submit button and Cancel.
 */
export const FormEnd = (props: { submit: string; busy?: boolean; error: unknown; onCancel: () => void }) => {
  const tr = useTr()
  return (
    <>
      <FailNotice error={Object.keys(failFields(props.error)).length > 0 ? null : props.error} />
      <div class="k-row">
        <button type="submit" class="k-btn k-primary" disabled={props.busy}>
          {props.submit}
        </button>
        <button type="button" class="k-btn" onClick={props.onCancel}>
          {tr('pl.cancel')}
        </button>
      </div>
    </>
  )
}

/** A listed item's Edit (named after the item for screen readers) and Delete (asked first). */
export const RowActions = (props: {
  edit?: { readonly label: string; readonly onEdit: () => void } | undefined
  question: string
  onDelete: () => void
}) => {
  const tr = useTr()
  return (
    <span class="pl-stage-tools">
      {props.edit ? (
        <button type="button" class="k-btn" aria-label={props.edit.label} onClick={props.edit.onEdit}>
          {tr('pl.edit')}
        </button>
      ) : null}
      <ConfirmButton label={tr('pl.delete')} question={props.question} onConfirm={props.onDelete} />
    </span>
  )
}
