import { useEffect, useState } from 'preact/hooks'
import { api, got, Link, me, useLocale } from '../kit'
import { ScrollTable as KitScrollTable, Notice, SelectField, TextField } from '../kit/ui'
import * as Session from '../lib/session'
import { hold, onEvent, topics } from '../lib/socket'
import { useTr } from './texts'

type TableProps = Parameters<typeof KitScrollTable>[0]

/** What the workspace pages and the dashboard share: the answers' shapes, events, the request notice. */

export interface Person {
  readonly id: number
  readonly name: string
  readonly email: string
}

export interface Transfer {
  readonly id: number
  readonly workspace: { readonly id: number; readonly name: string; readonly plan: string }
  readonly from: Person
  readonly to: Person
  readonly status: 'pending' | 'cancelled' | 'accepted' | 'declined'
  readonly stay: boolean
  readonly stay_role: { readonly id: number; readonly name: string } | null
  readonly stay_team_ids: readonly number[]
  readonly created_at: string
}

/** A request addressed to the signed-in person (`GET /v1/me/transfers`). */
export interface Incoming extends Transfer {
  readonly can_accept: boolean
  readonly reason: 'not_member' | 'owns_workspace' | null
  readonly becomes_free: boolean
}

/** The workspace's name changed: the top bar's switcher and `me` follow. */
export const refreshSession = () => Session.load().catch(() => undefined)

/**
 * Runs `f` when the person is notified about an ownership transfer (asked, accepted, declined:
 * `notification.created` on their own `user:{id}`), and after a gap the server could not replay.
 */
export const useTransferNotices = (f: () => void) => {
  useEffect(() => {
    const who = me.get()
    if (!who) return
    const release = hold(topics.user(who.user.id), f)
    const off = onEvent((e) => {
      if (e.event === 'notification.created' && e.data.kind.startsWith('transfer.')) f()
    })
    return () => {
      release()
      off()
    }
  }, [])
}

/** Requests waiting for the signed-in person's answer, kept current; `reload` after answering one. */
export const useIncoming = () => {
  const [list, setList] = useState<readonly Incoming[]>([])
  const reload = () =>
    got<Incoming[]>(api.get('/v1/me/transfers')).then(
      (r) => setList(r.data),
      () => setList([]),
    )
  useEffect(() => {
    void reload()
  }, [])
  useTransferNotices(() => void reload())
  return { list, reload }
}

/** A notice per request waiting for the person, linking to where it is answered (/workspaces). */
export const IncomingNotice = () => {
  const tr = useTr()
  useLocale()
  const { list } = useIncoming()
  if (list.length === 0) return null
  return (
    <div class="k-stack" data-testid="transfer-notice">
      {list.map((r) => (
        <Notice kind="info" key={r.id}>
          {tr('ws.request_notice', { name: r.from.name, workspace: r.workspace.name })}{' '}
          <Link to="/workspaces">{tr('ws.review')}</Link>
        </Notice>
      ))}
    </div>
  )
}

/** The kit's sideways-scrolling table in the workspace pages' look. */
export const ScrollTable = (props: Omit<TableProps, 'class'>) => (
  <KitScrollTable {...props} class="k-table-wrap wsx-scroll" />
)

/** A workspace's name and time zone, as renaming and creating ask for them. */
export const NameAndZone = (props: {
  name: string
  onName: (v: string) => void
  zone: string
  onZone: (v: string) => void
  zones: readonly string[]
  fields: Readonly<Record<string, string>>
}) => {
  const tr = useTr()
  return (
    <>
      <TextField
        label={tr('ws.name')}
        name="name"
        value={props.name}
        onValue={props.onName}
        error={props.fields.name}
        required
        maxLength={120}
      />
      <SelectField
        label={tr('ws.timezone')}
        name="timezone"
        value={props.zone}
        options={props.zones.map((z) => [z, z.replace(/_/g, ' ')] as const)}
        onValue={props.onZone}
        error={props.fields.timezone}
      />
    </>
  )
}
