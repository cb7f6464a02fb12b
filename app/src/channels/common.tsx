import { useTr } from './kit'
import type { TextKey } from './texts'

/** The channel pages' own piece: the status badge (the rest: app/src/kit/ui.tsx). */

const KNOWN_STATUS = new Set([
  'active',
  'connecting',
  'reconnecting',
  'qr',
  'logged_out',
  'restricted',
  'banned',
  'unreachable',
  'auth_failed',
  'suspended',
  'archived',
])

const tone = (status: string) =>
  status === 'active'
    ? 'ok'
    : status === 'connecting' || status === 'reconnecting' || status === 'qr'
      ? 'wait'
      : 'bad'

/** `linked`: the channel has a connection to speak of (a number, a mailbox); else `active` reads Active. */
export const StatusBadge = ({ status, linked = true }: { status: string; linked?: boolean }) => {
  const tr = useTr()
  const label =
    status === 'active' && !linked
      ? tr('ch.status.enabled')
      : KNOWN_STATUS.has(status)
        ? tr(`ch.status.${status}` as TextKey)
        : status
  return (
    <span class={`k-badge k-${tone(status)}`} data-status={status}>
      <span class="k-dot" aria-hidden="true" />
      {label}
    </span>
  )
}

export {
  CheckField,
  CopyBox,
  FailNotice,
  Field,
  Notice,
  Panel,
  SelectField,
  TextAreaField,
  TextField,
  when,
} from '../kit/ui'
