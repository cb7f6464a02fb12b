import { useEffect, useState } from 'preact/hooks'
import { type ContactBrief as Brief, contactLine as label, useContactSearch } from '../kit/contactSearch'
import { TextField } from '../kit/ui'
import { api, got, useTr } from './kit'

/**
 * Single contacts in a broadcast's audience (`audience.contact_ids`, beside its segments and
 * labels): the chosen ones by name, each with a Remove button, and a search (the contacts list's
 * `q`: name, phone, e-mail) that adds one. Shown to those who may view contacts; the ids are kept
 * either way, so saving a draft never drops contacts someone chose through the API.
 */
export const ContactPicks = (props: {
  readonly ids: readonly number[]
  readonly onIds: (ids: readonly number[]) => void
  readonly error?: string | undefined
}) => {
  const tr = useTr()
  const [known, setKnown] = useState<ReadonlyMap<number, Brief>>(new Map())
  const [q, setQ] = useState('')
  const learn = (list: readonly Brief[]) =>
    setKnown((m) => new Map([...m, ...list.map((c) => [c.id, c] as const)]))
  // Names of chosen ids not known yet (an audience made through the API).
  useEffect(() => {
    const missing = props.ids.filter((id) => !known.has(id))
    if (missing.length === 0) return
    void Promise.all(
      missing.map((id) =>
        got<Brief>(api.get('/v1/contacts/{id}', { path: { id } })).then(
          (r) => r.data,
          (): Brief => ({ id, name: `#${id}`, phone: null, email: null }),
        ),
      ),
    ).then(learn)
  }, [props.ids.join(',')])
  const found = useContactSearch(q, 5)
  return (
    <fieldset class="bc-picks" data-testid="audience-contacts">
      <legend>{tr('bc.audience_contacts')}</legend>
      {props.ids.length === 0 ? (
        <p class="k-muted">{tr('bc.contacts_none')}</p>
      ) : (
        <ul class="bc-chosen">
          {props.ids.map((id) => {
            const c = known.get(id)
            return (
              <li key={id}>
                <span>{c ? label(c) : '…'}</span>
                <button
                  type="button"
                  class="k-btn"
                  aria-label={tr('bc.contact_remove', { name: c?.name ?? `#${id}` })}
                  onClick={() => props.onIds(props.ids.filter((x) => x !== id))}
                >
                  {tr('bc.remove')}
                </button>
              </li>
            )
          })}
        </ul>
      )}
      <TextField
        label={tr('bc.contact_search')}
        name="contact_q"
        value={q}
        onValue={setQ}
        placeholder={tr('bc.contact_search_hint')}
      />
      {found ? (
        found.length === 0 ? (
          <p class="k-muted">{tr('bc.contacts_not_found')}</p>
        ) : (
          <ul class="bc-chosen" aria-label={tr('bc.contacts_found')}>
            {found.map((c) => (
              <li key={c.id}>
                <span>{label(c)}</span>
                {props.ids.includes(c.id) ? (
                  <span class="k-muted">{tr('bc.contact_added')}</span>
                ) : (
                  <button
                    type="button"
                    class="k-btn"
                    aria-label={tr('bc.contact_add', { name: c.name })}
                    onClick={() => {
                      learn([c])
                      props.onIds([...props.ids, c.id])
                    }}
                  >
                    {tr('bc.add')}
                  </button>
                )}
              </li>
            ))}
          </ul>
        )
      ) : null}
      {props.error ? <small class="k-error">{props.error}</small> : null}
    </fieldset>
  )
}
