import { useState } from 'preact/hooks'
import { contactLine, useContactSearch } from '../kit/contactSearch'
import { FailNotice, Notice, Panel, TextField } from '../kit/ui'
import { api, can, failFields, got, Link, type Tr } from './kit'

export interface ClientContact {
  readonly id: number
  readonly name: string
  readonly phone: string | null
  readonly email: string | null
  readonly job_title: string | null
}

/**
 * A client's contacts (`POST /clients/{id}/contacts`): each opens its profile; with
 * `clients.manage` one is unlinked, and an existing contact is found by name, phone or e-mail
 * (the contacts list's search, so also `contacts.view`) and linked. Linking also gives the
 * contact's leads without a client this one, which the confirmation says.
 */
export const ClientContacts = (props: {
  readonly clientId: number
  readonly contacts: readonly ClientContact[]
  readonly onChange: () => Promise<unknown>
  readonly tr: Tr
}) => {
  const { tr } = props
  const manage = can('clients.manage')
  const [q, setQ] = useState('')
  const found = useContactSearch(manage && can('contacts.view') ? q : '')
  const [error, setError] = useState<unknown>(null)
  const [done, setDone] = useState('')
  const [busy, setBusy] = useState(false)
  const link = async (contact: { id: number; name: string }, on: boolean) => {
    setBusy(true)
    setError(null)
    setDone('')
    try {
      const r = await got<{ leads_linked: readonly number[] }>(
        api.post('/v1/clients/{id}/contacts', {
          path: { id: props.clientId },
          body: { contact_id: contact.id, link: on },
        }),
      )
      await props.onChange()
      if (on) setQ('')
      setDone(
        !on
          ? tr('pl.cc.unlinked', { name: contact.name })
          : r.data.leads_linked.length > 0
            ? tr('pl.cc.linked_leads', { name: contact.name, n: r.data.leads_linked.length })
            : tr('pl.cc.linked', { name: contact.name }),
      )
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const linked = new Set(props.contacts.map((c) => c.id))
  return (
    <Panel title={tr('pl.c.contacts')} id="pl-client-contacts">
      {props.contacts.length === 0 ? <p class="k-muted">{tr('pl.client_no_contacts')}</p> : null}
      <ul class="pl-list" data-testid="client-contacts">
        {props.contacts.map((x) => (
          <li key={x.id}>
            <div>
              <Link to={`/contacts/${x.id}`}>{x.name || x.phone || x.email}</Link>
              <span class="pl-when">{[x.job_title, x.phone, x.email].filter(Boolean).join(' · ')}</span>
            </div>
            {manage ? (
              <button
                type="button"
                class="k-btn"
                disabled={busy}
                aria-label={tr('pl.cc.unlink_x', { name: x.name || x.phone || x.email || '' })}
                onClick={() => void link(x, false)}
              >
                {tr('pl.cc.unlink')}
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {done ? <Notice kind="ok">{done}</Notice> : null}
      <FailNotice error={error} />
      {manage && can('contacts.view') ? (
        <div class="pl-link">
          <TextField
            label={tr('pl.cc.search')}
            name="client_contact_q"
            value={q}
            onValue={setQ}
            hint={tr('pl.cc.search_hint')}
            error={failFields(error).contact_id}
          />
          {found === null ? null : found.length === 0 ? (
            <p class="k-muted">{tr('pl.cc.none_found')}</p>
          ) : (
            <ul class="pl-list" aria-label={tr('pl.cc.found')}>
              {found.map((c) => (
                <li key={c.id}>
                  <span>{contactLine(c)}</span>
                  {linked.has(c.id) ? (
                    <span class="k-muted">{tr('pl.cc.already')}</span>
                  ) : (
                    <button
                      type="button"
                      class="k-btn"
                      disabled={busy}
                      aria-label={tr('pl.cc.link_x', { name: c.name })}
                      onClick={() => void link(c, true)}
                    >
                      {tr('pl.cc.link')}
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : null}
    </Panel>
  )
}
