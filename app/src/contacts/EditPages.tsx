import { useEffect, useState } from 'preact/hooks'
import { go } from '../kit'
import { FailNotice, Notice } from '../kit/ui'
import { ContactForm } from './ContactForm'
import type { PageProps } from './kit'
import {
  api,
  type Contact,
  can,
  got,
  num,
  type Profile,
  TEXT_FIELDS,
  type TextKey,
  useCall,
  useLocale,
  useTr,
} from './kit'
import { Frame, useDefs } from './ProfilePage'

/** `/app/contacts/new`: the contact form, then the new contact's profile. */
export const NewContactPage = () => {
  const tr = useTr()
  const defs = useDefs()
  if (!can('contacts.manage'))
    return (
      <Frame title={tr('ct.new')}>
        <Notice kind="bad">{tr('ct.refused')}</Notice>
      </Frame>
    )
  return (
    <Frame title={tr('ct.new')} testId="contact-new">
      <div class="k-panel">
        <ContactForm
          contact={null}
          defs={defs}
          onSaved={(c) => go(`/contacts/${c.id}`)}
          onCancel={() => go('/contacts')}
        />
      </div>
    </Frame>
  )
}

/**
 * `/app/contacts/:id/merge`: pick the contact to merge into this one (search), see both side by
 * side with what the merged contact will hold (this one's values win, empty ones are filled from
 * the other, labels are joined; spec 2 §4.4 merge) and what moves (conversations, notes,
 * tickets, leads), then merge (POST /contacts/{id}/merge); the other contact is gone after.
 */
export const MergePage = ({ params }: PageProps) => {
  const tr = useTr()
  const locale = useLocale()
  const id = Number(params.id)
  const [target, setTarget] = useState<Profile | null>(null)
  const [source, setSource] = useState<Profile | null>(null)
  const [q, setQ] = useState('')
  const [found, setFound] = useState<readonly Contact[]>([])
  const call = useCall()
  const [failed, setFailed] = useState<unknown>(null)
  useEffect(() => {
    void got<Profile>(api.get('/v1/contacts/{id}', { path: { id } })).then(
      (r) => setTarget(r.data),
      (e) => setFailed(e),
    )
  }, [id])
  useEffect(() => {
    const text = q.trim()
    if (!text) {
      setFound([])
      return
    }
    const timer = setTimeout(() => {
      void api.get('/v1/contacts', { query: { q: text, per_page: 10, sort: 'name' } }).then(
        (r) => setFound(r.data.filter((c) => c.id !== id)),
        () => setFound([]),
      )
    }, 250)
    return () => clearTimeout(timer)
  }, [q])
  if (!can('contacts.manage'))
    return (
      <Frame title={tr('ct.merge')}>
        <Notice kind="bad">{tr('ct.refused')}</Notice>
      </Frame>
    )
  if (!target)
    return (
      <Frame title={tr('ct.merge')}>
        <FailNotice error={failed} />
        {!failed && <p class="k-muted">{tr('ct.loading')}</p>}
      </Frame>
    )
  const nameOf = (c: Contact) => c.name || c.phone || c.email || `#${c.id}`
  const choose = (c: Contact) =>
    void call.run(async () =>
      setSource((await got<Profile>(api.get('/v1/contacts/{id}', { path: { id: c.id } }))).data),
    )
  const merge = async () => {
    if (!source) return
    const ok = await call.run(() =>
      api.post('/v1/contacts/{id}/merge', { path: { id }, body: { source_id: source.id } }),
    )
    if (ok) go(`/contacts/${id}`)
  }
  const value = (c: Contact, k: (typeof TEXT_FIELDS)[number]) => (c[k] as string | null) ?? ''
  return (
    <Frame title={tr('ct.merge_title', { name: nameOf(target) })} testId="contact-merge">
      <div class="k-stack">
        <p class="k-muted">{tr('ct.merge_intro')}</p>
        <FailNotice error={call.error} />
        <div class="k-panel">
          <div class="k-field">
            <label for="ct-merge-q">{tr('ct.merge_find')}</label>
            <input id="ct-merge-q" type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
          </div>
          {found.length > 0 && (
            <ul class="ct-items" style={{ marginTop: '10px' }}>
              {found.map((c) => (
                <li key={c.id}>
                  <button
                    type="button"
                    class="k-btn"
                    aria-pressed={source?.id === c.id}
                    onClick={() => choose(c)}
                  >
                    {nameOf(c)}
                  </button>{' '}
                  <span class="k-muted">{[c.phone, c.email].filter(Boolean).join(' · ')}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
        {source && (
          <section class="k-panel" aria-labelledby="ct-merge-h" data-testid="merge-preview">
            <h2 id="ct-merge-h">{tr('ct.merge_preview')}</h2>
            <div class="k-table-wrap">
              <table class="k-table ct-merge">
                <thead>
                  <tr>
                    <th scope="col">{tr('ct.merge_field')}</th>
                    <th scope="col">{tr('ct.merge_keep', { name: nameOf(target) })}</th>
                    <th scope="col">{tr('ct.merge_gone', { name: nameOf(source) })}</th>
                    <th scope="col">{tr('ct.merge_result')}</th>
                  </tr>
                </thead>
                <tbody>
                  {TEXT_FIELDS.map((k) => (
                    <tr key={k}>
                      <th scope="row">{tr(`ct.f.${k}` as TextKey)}</th>
                      <td>{value(target, k)}</td>
                      <td>{value(source, k)}</td>
                      <td>{value(target, k) || value(source, k)}</td>
                    </tr>
                  ))}
                  <tr>
                    <th scope="row">{tr('ct.labels')}</th>
                    <td>{target.labels.map((l) => l.name).join(', ')}</td>
                    <td>{source.labels.map((l) => l.name).join(', ')}</td>
                    <td>
                      {[...new Set([...target.labels, ...source.labels].map((l) => l.name))].join(', ')}
                    </td>
                  </tr>
                </tbody>
              </table>
            </div>
            <h3 class="k-sub">{tr('ct.merge_moves', { name: nameOf(target) })}</h3>
            <ul data-testid="merge-moves">
              <li>{tr('ct.mv.conversations', { n: num(source.statistics.conversations, locale) })}</li>
              <li>{tr('ct.mv.notes', { n: num(source.statistics.notes, locale) })}</li>
              <li>{tr('ct.mv.tickets', { n: num(source.statistics.tickets, locale) })}</li>
              <li>{tr('ct.mv.leads', { n: num(source.statistics.leads, locale) })}</li>
              <li>{tr('ct.mv.identities', { n: num(source.identities.length, locale) })}</li>
            </ul>
            <div class="k-row">
              <button type="button" class="k-btn k-primary" disabled={call.busy} onClick={() => void merge()}>
                {tr('ct.merge_do', { gone: nameOf(source), keep: nameOf(target) })}
              </button>
            </div>
          </section>
        )}
      </div>
    </Frame>
  )
}
