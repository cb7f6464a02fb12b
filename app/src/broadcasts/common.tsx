import { failFields } from '../kit'
import { FailNotice, Notice } from '../kit/ui'
import { type Counts, handled, Link, type Status, type Tr } from './kit'

/** Pieces the broadcasts pages share: the area's tabs, the status badge and the progress bar. */

/** The area's own navigation: the broadcasts, their dashboard, the segments. */
export const AreaTabs = ({ current, tr }: { current: 'list' | 'dashboard' | 'segments'; tr: Tr }) => (
  <nav class="bc-nav" aria-label={tr('bc.tabs')}>
    {(
      [
        ['list', '/broadcasts', tr('bc.tab.list')],
        ['dashboard', '/broadcasts/dashboard', tr('bc.tab.dashboard')],
        ['segments', '/broadcasts/segments', tr('bc.tab.segments')],
      ] as const
    ).map(([k, to, label]) => (
      <Link key={k} to={to} aria-current={k === current ? 'page' : undefined}>
        {label}
      </Link>
    ))}
  </nav>
)

export const StatusBadge = ({ status, tr }: { status: Status; tr: Tr }) => (
  <span class={`k-badge bc-s-${status}`} data-status={status}>
    {tr(`bc.s.${status}`)}
  </span>
)

export const Progress = ({ counts, label }: { counts: Counts; label: string }) => {
  const h = handled(counts)
  const share = h.all > 0 ? Math.round((h.done / h.all) * 100) : 0
  return (
    <div
      class="bc-bar"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={share}
    >
      <span style={{ width: `${share}%` }} />
    </div>
  )
}

/**
 * A failed call where no field of the form is on screen (an action's button): a 422's per-field
 * messages in words, any other failure as the kit tells it.
 */
export const ActionFailure = ({ error }: { error: unknown }) => {
  const fields = Object.values(failFields(error))
  return fields.length > 0 ? <Notice kind="bad">{fields.join(' · ')}</Notice> : <FailNotice error={error} />
}
