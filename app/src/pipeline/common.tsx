import { Dialog as KitDialog } from '../kit/ui'
import { can, Link, useTr } from './kit'

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
