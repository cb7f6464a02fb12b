import { useEffect, useState } from 'preact/hooks'
import { api, got } from '.'

/** A contact as a search lists it (the contacts list's own fields, the few a picker shows). */
export interface ContactBrief {
  readonly id: number
  readonly name: string
  readonly phone: string | null
  readonly email: string | null
}

/**
 * The contacts list's search (`GET /contacts?q=`: name, phone, e-mail, company) for a picker:
 * asked 250 ms after the words stop changing and only from two characters, `per` at the most.
 * `null` while there is nothing to show; the answer carries the words it answers, so a picker
 * shows a list only for what is in its box now. Needs `contacts.view` (a refusal lists nothing).
 */
export const useContactSearch = (words: string, per = 5) => {
  const [found, setFound] = useState<{
    readonly term: string
    readonly list: readonly ContactBrief[]
  } | null>(null)
  const term = words.trim()
  useEffect(() => {
    if (term.length < 2) {
      setFound(null)
      return
    }
    const t = setTimeout(() => {
      void got<ContactBrief[]>(api.get('/v1/contacts', { query: { q: term, per_page: per } as never })).then(
        (r) => setFound({ term, list: r.data }),
        () => setFound({ term, list: [] }),
      )
    }, 250)
    return () => clearTimeout(t)
  }, [term, per])
  return found && found.term === term ? found.list : null
}

/** A contact in one line: its name with its phone, else its e-mail. */
export const contactLine = (c: ContactBrief) => {
  const reach = c.phone ?? c.email
  return reach && reach !== c.name ? `${c.name} · ${reach}` : c.name || reach || `#${c.id}`
}
