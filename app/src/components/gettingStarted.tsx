import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../lib/api'
import { extend, locale, t } from '../lib/i18n'
import { linkClick } from '../lib/router'
import * as Session from '../lib/session'
import * as Socket from '../lib/socket'
import { use } from '../lib/state'

/**
 * Getting started: what an empty inbox shows someone who sets the workspace up (`settings.workspace`,
 * the permission `GET /v1/dashboard` asks for its `getting_started` part), the dashboard's steps
 * ticked as they are done. Each step says how it is done and links to the page where it is done
 * (when the member may open it). Reloaded when a channel, the members, the teams or the settings
 * change.
 */

const texts = {
  'gs.title': { en: 'Getting started', id: 'Memulai' },
  'gs.progress': { en: '{done} of {total} done', id: '{done} dari {total} selesai' },
  'gs.done': { en: 'Done', id: 'Selesai' },
  'gs.todo': { en: 'To do', id: 'Belum' },
  'gs.intro': {
    en: 'No conversations yet. These steps get the workspace ready for its first customer:',
    id: 'Belum ada percakapan. Langkah-langkah ini menyiapkan ruang kerja untuk pelanggan pertamanya:',
  },
  'gs.intro_elsewhere': {
    en: 'These steps get the workspace ready for its customers:',
    id: 'Langkah-langkah ini menyiapkan ruang kerja untuk pelanggannya:',
  },
  'gs.channel.how': {
    en: 'Link a messaging-app number, a mailbox, a live chat widget or an API channel.',
    id: 'Tautkan nomor aplikasi pesan, kotak surat, widget obrolan langsung atau kanal API.',
  },
  'gs.channel.go': { en: 'Open Channels', id: 'Buka Kanal' },
  'gs.team.how': {
    en: 'Group agents into teams to share out conversations.',
    id: 'Kelompokkan agen dalam tim untuk membagi percakapan.',
  },
  'gs.team.go': { en: 'Open Teams', id: 'Buka Tim' },
  'gs.invite.how': {
    en: 'Invite team mates by e-mail; each gets a link to join.',
    id: 'Undang rekan tim lewat email; masing-masing menerima tautan untuk bergabung.',
  },
  'gs.invite.go': { en: 'Open Members', id: 'Buka Anggota' },
  'gs.business_hours.how': {
    en: 'Tell customers when you answer by setting your business hours.',
    id: 'Beri tahu pelanggan kapan Anda menjawab dengan mengatur jam kerja.',
  },
  'gs.business_hours.go': { en: 'Open business hours', id: 'Buka jam kerja' },
  'gs.first_reply.how': {
    en: 'When a customer writes, the conversation appears in the inbox: open it and send a reply.',
    id: 'Saat pelanggan menulis, percakapannya muncul di kotak masuk: buka lalu kirim balasan.',
  },
  'gs.first_reply.go': { en: 'Open the inbox', id: 'Buka kotak masuk' },
} as const

const byLocale = { en: {} as Record<string, string>, id: {} as Record<string, string> }
for (const [k, v] of Object.entries(texts)) {
  byLocale.en[k] = v.en
  byLocale.id[k] = v.id
}
extend(byLocale)

export interface Step {
  readonly key: string
  readonly label: string
  readonly done: boolean
}
export interface Steps {
  readonly steps: readonly Step[]
  readonly done: number
  readonly total: number
}

/**
 * Where each step is done in the app, shown to members who may open that page (its section's
 * permissions, app/src/settings/sections.ts); the inbox's own step links only from elsewhere.
 */
const LINKS: Readonly<Record<string, { path: string; label: string; permission: readonly string[] }>> = {
  channel: { path: '/channels', label: 'gs.channel.go', permission: ['channels.manage'] },
  team: { path: '/settings/teams', label: 'gs.team.go', permission: ['settings.members'] },
  invite: { path: '/settings/members', label: 'gs.invite.go', permission: ['settings.members'] },
  business_hours: {
    path: '/settings/workspace',
    label: 'gs.business_hours.go',
    permission: ['settings.workspace'],
  },
  first_reply: { path: '/inbox', label: 'gs.first_reply.go', permission: [] },
}

/** Whether the signed-in member may read the steps. */
export const mayGetStarted = () => Session.can('dashboard.view') && Session.can('settings.workspace')

/**
 * The steps with their ticks, what each needs and a link to where it is done (the inbox and the
 * dashboard); `inInbox` leaves out the link to the inbox itself.
 */
export const Checklist = ({ steps, inInbox = false }: { steps: Steps; inInbox?: boolean }) => {
  use(locale)
  return (
    <section class="gs" aria-labelledby="gs-title" data-testid="getting-started">
      <div class="gs-head">
        <h2 id="gs-title">{t('gs.title')}</h2>
        <span class="muted" data-testid="gs-progress">
          {t('gs.progress', { done: steps.done, total: steps.total })}
        </span>
      </div>
      <p class="muted">{t(inInbox ? 'gs.intro' : 'gs.intro_elsewhere')}</p>
      <ol class="gs-steps">
        {steps.steps.map((s) => {
          const link = LINKS[s.key]
          const shown =
            link &&
            !(inInbox && s.key === 'first_reply') &&
            Session.canAny(link.permission.length ? link.permission : undefined)
          return (
            <li key={s.key} class={s.done ? 'gs-step gs-ok' : 'gs-step'} data-step={s.key} data-done={s.done}>
              <span class="gs-mark" aria-hidden="true">
                {s.done ? '✓' : ''}
              </span>
              <div>
                <p class="gs-label">
                  {s.label} <span class="sr-only">({t(s.done ? 'gs.done' : 'gs.todo')})</span>
                </p>
                {s.done ? null : (
                  <p class="muted gs-how">
                    {t(`gs.${s.key}.how`)}
                    {link && shown ? (
                      <>
                        {' '}
                        <a href={`/app${link.path}`} onClick={linkClick(link.path)}>
                          {t(link.label)}
                        </a>
                      </>
                    ) : null}
                  </p>
                )}
              </div>
            </li>
          )
        })}
      </ol>
    </section>
  )
}

/** The checklist, or `fallback` (the plain empty state) when it is done, not allowed or failed. */
export const GettingStarted = ({ fallback }: { fallback: ComponentChildren }) => {
  use(locale)
  const me = Session.me.get()
  const allowed = mayGetStarted()
  const [steps, setSteps] = useState<Steps | null>(null)
  const [tried, setTried] = useState(false)
  useEffect(() => {
    if (!allowed || !me) return
    let alive = true
    const load = () =>
      api.get('/v1/dashboard', { query: { parts: 'getting_started' } }).then(
        (r) => {
          if (!alive) return
          setSteps((r.data as { getting_started: Steps | null }).getting_started)
          setTried(true)
        },
        () => alive && setTried(true),
      )
    void load()
    // The inbox holds the workspace's topic already; holding it here too keeps it while shown.
    const release = Socket.hold(Socket.topics.workspace(me.workspace.id), () => void load())
    const off = Socket.onEvent((e) => {
      if (
        e.event === 'channel.updated' ||
        e.event === 'inbox.changed' ||
        e.event === 'settings.updated' ||
        e.event === 'members.changed' ||
        e.event === 'teams.changed'
      )
        void load()
    })
    return () => {
      alive = false
      release()
      off()
    }
  }, [allowed, me])
  if (!allowed || (tried && (!steps || steps.done >= steps.total))) return <>{fallback}</>
  if (!steps) return null
  return <Checklist steps={steps} inInbox />
}
