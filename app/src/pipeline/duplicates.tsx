import { useEffect, useState } from 'preact/hooks'
import type { ContactBrief } from '../kit/contactSearch'
import { contactLine } from '../kit/contactSearch'
import { api, can, got, type Lead, useTr } from './kit'

/**
 * The new-lead form's duplicates check. The form names its contact by phone and e-mail, which the
 * server matches (phone first, then e-mail) to a contact it has; `GET /leads/duplicates` takes
 * that contact's id. So, 500 ms after the phone or e-mail stops changing, the contact is looked
 * up as the server would match it (the contacts list's search with `contacts.view`, else the
 * contacts of the leads the person sees), and its open leads in the chosen workflow are listed
 * before anything is saved: each opens in a new tab, so the form is kept, and those the person
 * may not see are counted. `onFound` tells the form how many there are ("Create anyway").
 */
export const Duplicates = (props: {
  readonly pipelineId: number | null
  readonly phone: string
  readonly email: string
  readonly onFound: (n: number) => void
}) => {
  const tr = useTr()
  const [found, setFound] = useState<Found | null>(null)
  const phone = props.phone.trim()
  const email = props.email.trim().toLowerCase()
  useEffect(() => {
    setFound(null)
    props.onFound(0)
    const pipelineId = props.pipelineId
    if (pipelineId === null || (digits(phone).length < 6 && !email.includes('@'))) return
    let stale = false
    const t = setTimeout(() => {
      void check(pipelineId, phone, email).then(
        (f) => {
          if (stale) return
          setFound(f)
          props.onFound(f ? f.leads.length + f.hidden : 0)
        },
        () => null,
      )
    }, 500)
    return () => {
      stale = true
      clearTimeout(t)
    }
  }, [props.pipelineId, phone, email])
  if (!found) return null
  const n = found.leads.length + found.hidden
  return (
    <div
      class={`k-notice ${n > 0 ? 'pl-warn' : 'k-notice-info'}`}
      role="status"
      data-testid="lead-duplicates"
    >
      <p>{tr('pl.dup.contact', { contact: contactLine(found.contact) })}</p>
      {n > 0 ? (
        <>
          <p>
            <strong>{tr('pl.dup.open', { n })}</strong>
          </p>
          <ul class="pl-dup-list">
            {found.leads.map((l) => (
              <li key={l.id}>
                <a href={`/app/pipeline/leads/${l.id}`} target="_blank" rel="noreferrer">
                  {l.identifier} {l.title}
                  <span class="sr-only"> {tr('pl.new_tab')}</span>
                </a>
                {` · ${l.stage.label}${l.assignee ? ` · ${l.assignee.name}` : ''}`}
              </li>
            ))}
          </ul>
          {found.hidden > 0 ? <p>{tr('pl.dup.hidden', { n: found.hidden })}</p> : null}
          <p>{tr('pl.dup.hint')}</p>
        </>
      ) : null}
    </div>
  )
}

interface Found {
  readonly contact: ContactBrief
  readonly leads: readonly Lead[]
  readonly hidden: number
}

/** A phone's digits without the leading zeros of a national number: `0812-345` → `812345`. */
const digits = (s: string) => s.replace(/\D/g, '').replace(/^0+/, '')

/** Whether a stored (E.164) number is the one typed, with or without its country code. */
const samePhone = (stored: string | null, typed: string) => {
  const a = digits(stored ?? '')
  const b = digits(typed)
  return b.length >= 6 && a.endsWith(b) && a.length - b.length <= 3
}

/** The contact the server would match: by phone, then by e-mail. */
const contactOf = async (phone: string, email: string): Promise<ContactBrief | null> => {
  const tests: readonly (readonly [string, (c: ContactBrief) => boolean])[] = [
    ...(digits(phone).length >= 6
      ? [[digits(phone), (c: ContactBrief) => samePhone(c.phone, phone)] as const]
      : []),
    ...(email.includes('@') ? [[email, (c: ContactBrief) => c.email?.toLowerCase() === email] as const] : []),
  ]
  for (const [q, same] of tests) {
    const list = can('contacts.view')
      ? (await got<ContactBrief[]>(api.get('/v1/contacts', { query: { q, per_page: 10 } as never }))).data
      : (await got<Lead[]>(api.get('/v1/leads', { query: { q, per_page: 20 } as never }))).data.flatMap(
          (l) => (l.contact ? [l.contact] : []),
        )
    const hit = list.find(same)
    if (hit) return hit
  }
  return null
}

const check = async (pipelineId: number, phone: string, email: string): Promise<Found | null> => {
  const contact = await contactOf(phone, email)
  if (!contact) return null
  const r = await got<Lead[]>(
    api.get('/v1/leads/duplicates', {
      query: { contact_id: contact.id, pipeline_id: pipelineId } as never,
    }),
  )
  return { contact, leads: r.data, hidden: Number(r.meta.hidden ?? 0) }
}
