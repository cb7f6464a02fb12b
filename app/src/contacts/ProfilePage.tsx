import { useEffect, useState } from 'preact/hooks'
import { go } from '../kit'
import { ConfirmButton, FailNotice, Notice, TextAreaField, when } from '../kit/ui'
import { initials } from '../lib/format'
import { ContactForm } from './ContactForm'
import type { PageProps } from './kit'
import {
  api,
  type Contact,
  can,
  type FieldDef,
  got,
  type LabelItem,
  Link,
  type Note,
  num,
  type Profile,
  TEXT_FIELDS,
  type TextKey,
  type TimelineItem,
  type Tr,
  useCall,
  useLocale,
  useTr,
  useWorkspaceEvents,
} from './kit'
import { ensureStyles } from './styles'

/**
 * `/app/contacts/:id`: one contact's profile (GET /contacts/{id}): details and custom fields
 * (changed in place with the contact form), identities per channel, labels (added from a picker
 * that can also create one, removed with ×), statistics, notes (add, change one's own, delete),
 * and the timeline across channels, each conversation linking to the inbox. Merge and delete for
 * `contacts.manage`. Live: `contacts.changed` for this contact reloads it (or says it is gone).
 */
export const useDefs = () => {
  const [defs, setDefs] = useState<readonly FieldDef[]>([])
  const load = () =>
    got<FieldDef[]>(api.get('/v1/contact-fields')).then(
      (r) => setDefs(r.data),
      () => null,
    )
  useEffect(() => {
    void load()
  }, [])
  useWorkspaceEvents(['contacts.settings'], () => void load())
  return defs
}

export const useLabels = () => {
  const [labels, setLabels] = useState<readonly LabelItem[]>([])
  const [colors, setColors] = useState<readonly string[]>([])
  const load = () =>
    got<LabelItem[]>(api.get('/v1/labels')).then(
      (r) => {
        setLabels(r.data)
        setColors((r.meta.colors as string[] | undefined) ?? [])
      },
      () => null,
    )
  useEffect(() => {
    void load()
  }, [])
  useWorkspaceEvents(['contacts.settings'], () => void load())
  return { labels, colors, reload: load }
}

export const Frame = (props: { title?: string; children: preact.ComponentChildren; testId?: string }) => {
  ensureStyles()
  const tr = useTr()
  return (
    <div class="k-page" data-testid={props.testId}>
      <Link class="k-back" to="/contacts">
        ← {tr('ct.back')}
      </Link>
      {props.title && (
        <div class="k-head">
          <h1>{props.title}</h1>
        </div>
      )}
      {props.children}
    </div>
  )
}

const ProfilePage = ({ params }: PageProps) => {
  ensureStyles()
  const tr = useTr()
  const id = Number(params.id)
  const [p, setP] = useState<Profile | null>(null)
  const [failed, setFailed] = useState<unknown>(null)
  const [gone, setGone] = useState(false)
  const [editing, setEditing] = useState(false)
  const [tick, setTick] = useState(0)
  const defs = useDefs()
  const manage = can('contacts.manage')

  const load = () =>
    got<Profile>(api.get('/v1/contacts/{id}', { path: { id } })).then(
      (r) => {
        setP(r.data)
        setFailed(null)
        setTick((n) => n + 1)
      },
      (e) => setFailed(e),
    )
  useEffect(() => {
    setP(null)
    setEditing(false)
    void load()
  }, [id])
  useWorkspaceEvents(['contacts.changed'], (d) => {
    if (d.contact_id !== undefined && d.contact_id !== id && d.contact_id !== null) return
    if (d.contact_id === id && (d.reason === 'deleted' || (d.reason === 'merged' && d.merged_into))) {
      setGone(true)
      return
    }
    void load()
  })

  if (!Number.isSafeInteger(id) || id < 1 || (failed && !p))
    return (
      <Frame>
        {failed ? <FailNotice error={failed} /> : <Notice kind="bad">{tr('ct.not_found')}</Notice>}
      </Frame>
    )
  if (!p)
    return (
      <Frame>
        <p class="k-muted">{tr('ct.loading')}</p>
      </Frame>
    )
  const remove = async () => {
    try {
      await api.delete('/v1/contacts/{id}', { path: { id } })
      go('/contacts')
    } catch (e) {
      setFailed(e)
    }
  }
  const name = p.name || p.phone || p.email || `#${p.id}`
  return (
    <Frame testId="contact-profile">
      {gone && <Notice kind="info">{tr('ct.gone')}</Notice>}
      <div class="ct-head">
        <div class="ct-avatar" aria-hidden="true">
          {initials(name)}
        </div>
        <div>
          <h1>{name}</h1>
          {(p.job_title || p.company) && (
            <p class="k-muted">{[p.job_title, p.company].filter(Boolean).join(' · ')}</p>
          )}
        </div>
        {manage && !editing && (
          <div class="ct-actions">
            <button type="button" class="k-btn" onClick={() => setEditing(true)}>
              {tr('ct.edit')}
            </button>
            <Link class="k-btn" to={`/contacts/${id}/merge`}>
              {tr('ct.merge')}
            </Link>
            <ConfirmButton
              label={tr('ct.delete')}
              question={tr('ct.delete_q', { name })}
              onConfirm={remove}
            />
          </div>
        )}
      </div>
      <FailNotice error={failed} />
      <div class="ct-cols">
        <div class="k-stack">
          {editing ? (
            <section class="k-panel" aria-labelledby="ct-edit-h">
              <h2 id="ct-edit-h">{tr('ct.edit_title')}</h2>
              <ContactForm
                contact={p}
                defs={defs}
                onSaved={() => {
                  setEditing(false)
                  void load()
                }}
                onCancel={() => setEditing(false)}
              />
            </section>
          ) : (
            <Details p={p} tr={tr} />
          )}
          <Labels p={p} onChange={load} />
          <Identities p={p} />
          <Stats p={p} />
        </div>
        <div class="k-stack">
          <Notes id={id} tick={tick} />
          <Timeline id={id} tick={tick} />
        </div>
      </div>
    </Frame>
  )
}
export default ProfilePage

const Details = ({ p, tr }: { p: Profile; tr: Tr }) => {
  const rows = TEXT_FIELDS.filter((k) => k !== 'name' && p[k])
  const custom = p.custom_fields.filter((f) => f.value !== null && f.value !== '')
  return (
    <section class="k-panel" aria-labelledby="ct-details-h">
      <h2 id="ct-details-h">{tr('ct.details')}</h2>
      {rows.length === 0 && custom.length === 0 ? (
        <p class="k-muted">{tr('ct.no_details')}</p>
      ) : (
        <dl class="k-dl" data-testid="contact-details">
          {rows.map((k) => (
            <>
              <dt key={`t${k}`}>{tr(`ct.f.${k}` as TextKey)}</dt>
              <dd key={`d${k}`}>{p[k] as string}</dd>
            </>
          ))}
          {custom.map((f) => (
            <>
              <dt key={`t${f.key}`}>{f.label}</dt>
              <dd key={`d${f.key}`}>
                {f.value === true ? tr('ct.yes') : f.value === false ? tr('ct.no') : String(f.value)}
              </dd>
            </>
          ))}
        </dl>
      )}
      {can('contacts.manage') && (
        <p class="k-muted">
          <Link to="/settings/fields">{tr('ct.manage_fields')}</Link>
        </p>
      )}
    </section>
  )
}

/** The contact's labels, removed with × and added from a picker (which can create one). */
export const Labels = ({ p, onChange }: { p: Contact; onChange: () => void }) => {
  const tr = useTr()
  const { labels, colors, reload } = useLabels()
  const call = useCall()
  const [pick, setPick] = useState('')
  const [fresh, setFresh] = useState('')
  const manage = can('contacts.manage')
  const mayAdd = manage || can('interactions.reply')
  const free = labels.filter((l) => !p.label_ids.includes(l.id))
  const add = (labelId: number) =>
    call.run(async () => {
      await api.post('/v1/contacts/{id}/labels', { path: { id: p.id }, body: { label_id: labelId } })
      setPick('')
      onChange()
    })
  const create = (e: Event) => {
    e.preventDefault()
    const name = fresh.trim()
    if (!name) return
    void call.run(async () => {
      const color = colors[labels.length % Math.max(1, colors.length)] ?? '#0f6e5f'
      const r = await got<LabelItem>(api.post('/v1/labels', { body: { name, color } }))
      await api.post('/v1/contacts/{id}/labels', { path: { id: p.id }, body: { label_id: r.data.id } })
      setFresh('')
      void reload()
      onChange()
    })
  }
  return (
    <section class="k-panel" aria-labelledby="ct-labels-h" data-testid="contact-labels">
      <h2 id="ct-labels-h">{tr('ct.labels')}</h2>
      <FailNotice error={call.error} />
      {p.labels.length === 0 ? (
        <p class="k-muted">{tr('ct.no_labels')}</p>
      ) : (
        <ul class="ct-chips">
          {p.labels.map((l) => (
            <li key={l.id} class="ct-label">
              <i style={{ background: l.color }} aria-hidden="true" />
              {l.name}
              {manage && (
                <button
                  type="button"
                  aria-label={tr('ct.remove_label', { name: l.name })}
                  disabled={call.busy}
                  onClick={() =>
                    void call.run(async () => {
                      await api.delete('/v1/contacts/{id}/labels/{label}', {
                        path: { id: p.id, label: l.id },
                      })
                      onChange()
                    })
                  }
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {mayAdd && free.length > 0 && (
        <div class="ct-picker">
          <div class="k-field">
            <label for={`ct-pick-${p.id}`}>{tr('ct.add_label')}</label>
            <select id={`ct-pick-${p.id}`} value={pick} onChange={(e) => setPick(e.currentTarget.value)}>
              <option value="">{tr('ct.choose')}</option>
              {free.map((l) => (
                <option key={l.id} value={l.id}>
                  {l.name}
                </option>
              ))}
            </select>
          </div>
          <button
            type="button"
            class="k-btn"
            disabled={!pick || call.busy}
            onClick={() => void add(Number(pick))}
          >
            {tr('ct.add')}
          </button>
        </div>
      )}
      {manage && (
        <form class="ct-picker" onSubmit={create}>
          <div class="k-field">
            <label for={`ct-new-label-${p.id}`}>{tr('ct.new_label')}</label>
            <input
              id={`ct-new-label-${p.id}`}
              value={fresh}
              maxLength={50}
              onInput={(e) => setFresh(e.currentTarget.value)}
            />
          </div>
          <button type="submit" class="k-btn" disabled={!fresh.trim() || call.busy}>
            {tr('ct.create_label')}
          </button>
          <Link class="k-btn" to="/settings/labels">
            {tr('ct.manage_labels')}
          </Link>
        </form>
      )}
    </section>
  )
}

const Identities = ({ p }: { p: Profile }) => {
  const tr = useTr()
  const locale = useLocale()
  return (
    <section class="k-panel" aria-labelledby="ct-ids-h">
      <h2 id="ct-ids-h">{tr('ct.identities')}</h2>
      {p.identities.length === 0 ? (
        <p class="k-muted">{tr('ct.no_identities')}</p>
      ) : (
        <ul class="ct-items">
          {p.identities.map((i) => (
            <li key={`${i.channel_id}-${i.address}`}>
              <strong>{i.channel_name ?? i.channel_type}</strong> · {i.address ?? ''}
              <span class="ct-when">
                {tr('ct.id_convs', { n: num(i.conversations, locale) })}
                {i.last_message_at ? ` · ${when(i.last_message_at, locale)}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

const Stats = ({ p }: { p: Profile }) => {
  const tr = useTr()
  const locale = useLocale()
  const s = p.statistics
  const cells: [TextKey, number][] = [
    ['ct.s.conversations', s.conversations],
    ['ct.s.open', s.open_conversations],
    ['ct.s.in', s.messages_in],
    ['ct.s.out', s.messages_out],
    ['ct.s.notes', s.notes],
    ['ct.s.tickets', s.tickets],
    ['ct.s.leads', s.leads],
  ]
  return (
    <section class="k-panel" aria-labelledby="ct-stats-h">
      <h2 id="ct-stats-h">{tr('ct.statistics')}</h2>
      <dl class="ct-stats" data-testid="contact-stats">
        {cells.map(([k, n]) => (
          <div key={k}>
            <dt>{tr(k)}</dt>
            <dd>{num(n, locale)}</dd>
          </div>
        ))}
      </dl>
      {s.first_conversation_at && (
        <p class="k-muted">{tr('ct.s.since', { at: when(s.first_conversation_at, locale) })}</p>
      )}
    </section>
  )
}

const Notes = ({ id, tick }: { id: number; tick: number }) => {
  const tr = useTr()
  const locale = useLocale()
  const [notes, setNotes] = useState<readonly Note[]>([])
  const [body, setBody] = useState('')
  const [editing, setEditing] = useState<{ id: number; body: string } | null>(null)
  const call = useCall()
  const load = () =>
    got<Note[]>(api.get('/v1/contacts/{id}/notes', { path: { id } })).then(
      (r) => setNotes(r.data),
      () => null,
    )
  useEffect(() => {
    void load()
  }, [id, tick])
  const add = async (e: Event) => {
    e.preventDefault()
    if (!body.trim()) return
    if (await call.run(() => api.post('/v1/contacts/{id}/notes', { path: { id }, body: { body } }))) {
      setBody('')
      void load()
    }
  }
  return (
    <section class="k-panel" aria-labelledby="ct-notes-h" data-testid="contact-notes">
      <h2 id="ct-notes-h">{tr('ct.notes')}</h2>
      <FailNotice error={call.error} />
      <form class="k-form" onSubmit={add}>
        <TextAreaField
          label={tr('ct.note_new')}
          name="note"
          rows={2}
          value={body}
          onValue={setBody}
          maxLength={5000}
        />
        <button type="submit" class="k-btn" disabled={call.busy || !body.trim()}>
          {tr('ct.note_add')}
        </button>
      </form>
      {notes.length > 0 && (
        <ul class="ct-items" style={{ marginTop: '12px' }}>
          {notes.map((n) => (
            <li key={n.id} class="ct-note">
              {editing?.id === n.id ? (
                <form
                  class="k-form"
                  onSubmit={async (e) => {
                    e.preventDefault()
                    const ok = await call.run(() =>
                      api.patch('/v1/contacts/{id}/notes/{note}', {
                        path: { id, note: n.id },
                        body: { body: editing.body },
                      }),
                    )
                    if (ok) {
                      setEditing(null)
                      void load()
                    }
                  }}
                >
                  <TextAreaField
                    label={tr('ct.note_edit')}
                    name="note-edit"
                    rows={2}
                    value={editing.body}
                    onValue={(v) => setEditing({ id: n.id, body: v })}
                  />
                  <div class="k-row">
                    <button type="submit" class="k-btn k-primary">
                      {tr('ct.save')}
                    </button>
                    <button type="button" class="k-btn" onClick={() => setEditing(null)}>
                      {tr('ct.cancel')}
                    </button>
                  </div>
                </form>
              ) : (
                <p class="ct-note-body">{n.body}</p>
              )}
              <span class="ct-when">
                {n.author?.name ?? tr('ct.someone')} · {when(n.created_at, locale)}
              </span>
              {editing?.id !== n.id && (n.mine || can('contacts.manage')) && (
                <span class="k-row">
                  {n.mine && (
                    <button
                      type="button"
                      class="k-btn"
                      onClick={() => setEditing({ id: n.id, body: n.body })}
                    >
                      {tr('ct.edit')}
                    </button>
                  )}
                  <ConfirmButton
                    label={tr('ct.delete')}
                    question={tr('ct.note_delete_q')}
                    onConfirm={async () => {
                      await call.run(() =>
                        api.delete('/v1/contacts/{id}/notes/{note}', { path: { id, note: n.id } }),
                      )
                      void load()
                    }}
                  />
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

const EVENT_KINDS = [
  'created',
  'updated',
  'merged',
  'imported',
  'labels',
  'note_deleted',
  'broadcast_opt_out',
]

const Timeline = ({ id, tick }: { id: number; tick: number }) => {
  const tr = useTr()
  const locale = useLocale()
  const [items, setItems] = useState<readonly TimelineItem[]>([])
  const [next, setNext] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const load = async (before: string | null) => {
    setBusy(true)
    try {
      const r = await got<TimelineItem[]>(
        api.get('/v1/contacts/{id}/timeline', { path: { id }, ...(before ? { query: { before } } : {}) }),
      )
      setItems((old) => (before ? [...old, ...r.data] : r.data))
      setNext((r.meta.next_before as string | null | undefined) ?? null)
    } catch {
      // The list stays as it was; the next change reloads it.
    } finally {
      setBusy(false)
    }
  }
  useEffect(() => {
    void load(null)
  }, [id, tick])
  const text = (t: TimelineItem) => {
    const d = t.data
    if (t.kind === 'conversation')
      return (
        <>
          <Link to={`/inbox/${String(d.interaction_id)}`}>
            {(d.subject as string | null) || tr('ct.tl.conversation', { id: String(d.interaction_id) })}
          </Link>{' '}
          <span class="k-badge k-ok">{tr(`ct.tl.status.${String(d.status)}` as TextKey)}</span>
          {typeof d.preview === 'string' && d.preview && <span class="ct-when">{d.preview}</span>}
        </>
      )
    if (t.kind === 'note')
      return (
        <>
          {tr('ct.tl.note', { name: String(d.author_name ?? tr('ct.someone')) })}
          <span class="ct-note-body ct-when">{String(d.body ?? '')}</span>
        </>
      )
    const kind = String(d.kind)
    return tr(EVENT_KINDS.includes(kind) ? (`ct.ev.${kind}` as TextKey) : 'ct.ev.other', {
      name: String(d.user_name ?? tr('ct.someone')),
    })
  }
  return (
    <section class="k-panel" aria-labelledby="ct-tl-h" data-testid="contact-timeline">
      <h2 id="ct-tl-h">{tr('ct.timeline')}</h2>
      {items.length === 0 && !busy ? (
        <p class="k-muted">{tr('ct.no_timeline')}</p>
      ) : (
        <ul class="ct-items">
          {items.map((t) => (
            <li key={t.id} class={t.kind === 'conversation' ? 'ct-conv' : t.kind === 'note' ? 'ct-note' : ''}>
              {text(t)}
              <span class="ct-when">{when(t.at, locale)}</span>
            </li>
          ))}
        </ul>
      )}
      {next && (
        <button type="button" class="k-btn" disabled={busy} onClick={() => void load(next)}>
          {tr('ct.more')}
        </button>
      )}
    </section>
  )
}
