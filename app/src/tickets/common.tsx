import type { Tr } from './texts'
import type { Priority, Sla, TicketStatus } from './types'

/** Pieces the tickets screens share: status and priority badges, SLA and durations in words. */

const STATUS_CLASS: Readonly<Record<TicketStatus, string>> = {
  open: 'k-wait',
  in_progress: 'k-wait',
  waiting: 'k-wait',
  resolved: 'k-ok',
  closed: '',
}

export const StatusBadge = ({ status, tr }: { status: TicketStatus; tr: Tr }) => (
  <span class={`k-badge ${STATUS_CLASS[status]}`} data-status={status}>
    {tr(`tk.status.${status}`)}
  </span>
)

export const PriorityBadge = ({ priority, tr }: { priority: Priority; tr: Tr }) => (
  <span class={`k-badge${priority === 'urgent' || priority === 'high' ? ' k-bad' : ''}`}>
    {tr(`tk.priority.${priority}`)}
  </span>
)

export const duration = (minutes: number, tr: Tr) => {
  const m = Math.max(0, Math.round(minutes))
  return m >= 60 ? tr('tk.hm', { h: Math.floor(m / 60), m: m % 60 }) : tr('tk.m', { m })
}

/**
 * The SLA as the API reports it: business minutes since the ticket was raised against the
 * priority's target; what is left (or how far past) is counted in business hours too.
 */
export const slaLine = (sla: Sla, tr: Tr) => {
  const left = sla.target_minutes - sla.minutes
  return left >= 0
    ? tr('tk.sla.left', { time: duration(left, tr) })
    : tr('tk.sla.over', { time: duration(-left, tr) })
}

export const SlaBadge = ({ sla, tr }: { sla: Sla; tr: Tr }) => (
  <span class={`k-badge ${sla.level === 'breach' ? 'k-bad' : sla.level === 'warn' ? 'k-wait' : 'k-ok'}`}>
    {sla.level === 'breach'
      ? tr('tk.sla.breach')
      : sla.level === 'warn'
        ? tr('tk.sla.warn')
        : tr('tk.sla.ok')}
  </span>
)
