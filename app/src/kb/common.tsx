import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, api, can, me, useLocale, useWorkspaceEvents } from '../kit'
import { type Article, type SearchItem, type SearchMode, type Tr, useTr } from './kit'

/** Pieces the knowledge base's pages and the conversation's panel share. */

/**
 * Runs `f` on each `kb.changed` (and with `{}` after missed events) while the page is shown; the
 * latest `f` each time, so it sees the page's current filters and article.
 */
export const useKbChanged = (f: (d: Readonly<Record<string, unknown>>) => void) => {
  const latest = useRef(f)
  latest.current = f
  useWorkspaceEvents(['kb.changed'], (d) => latest.current(d))
}

/** Draft or published, as a badge. */
export const StatusBadge = ({ a }: { a: Pick<Article, 'status'> }) => {
  const tr = useTr()
  return (
    <span class={`k-badge ${a.status === 'published' ? 'k-ok' : 'k-wait'}`} data-status={a.status}>
      {tr(`kb.status.${a.status}`)}
    </span>
  )
}

const EMB_CLASS = {
  none: 'kb-badge-n',
  pending: 'k-wait',
  processing: 'k-wait',
  done: 'k-ok',
  failed: 'k-bad',
}

/** Where the article's semantic processing is, as a badge (for who manages the knowledge base). */
export const EmbeddingBadge = ({ a }: { a: Pick<Article, 'embedding_status'> }) => {
  const tr = useTr()
  return (
    <span class={`k-badge ${EMB_CLASS[a.embedding_status]}`} data-embedding={a.embedding_status}>
      {tr(`kb.emb.badge.${a.embedding_status}`)}
    </span>
  )
}

/** The teams an article is for, in words. */
export const teamsText = (a: Pick<Article, 'teams'>, tr: Tr) =>
  a.teams.length === 0 ? tr('kb.all_teams') : a.teams.map((t) => t.name).join(', ')

/** May this member search by meaning at all (their role; the plan and the server are asked). */
export const canSemantic = () => can('ai.use')

export type SearchNote = 'ai_unavailable' | 'plan' | null

/**
 * `GET /v1/kb/search` for a query and mode; the latest call wins. A semantic search the server
 * cannot do (no AI provider: 503 `ai_unavailable`; a plan without AI: 402 `plan_required`) is a
 * note, not a failure.
 */
export const useSearch = (q: string, mode: SearchMode, limit = 20) => {
  const [items, setItems] = useState<readonly SearchItem[] | null>(null)
  const [note, setNote] = useState<SearchNote>(null)
  const [error, setError] = useState<unknown>(null)
  const [usage, setUsage] = useState<{ used: number; limit: number } | null>(null)
  const seq = useRef(0)
  useEffect(() => {
    const n = ++seq.current
    setError(null)
    setNote(null)
    if (q.trim() === '') {
      setItems(null)
      return
    }
    api.get('/v1/kb/search', { query: { q: q.trim(), mode, limit } }).then(
      (r) => {
        if (n !== seq.current) return
        setItems(r.data)
        const ai = r.meta.ai as { used?: number; limit?: number } | undefined
        setUsage(
          ai && typeof ai.used === 'number' && typeof ai.limit === 'number'
            ? { used: ai.used, limit: ai.limit }
            : null,
        )
      },
      (e: unknown) => {
        if (n !== seq.current) return
        setItems(null)
        if (e instanceof ApiError && e.code === 'ai_unavailable') setNote('ai_unavailable')
        else if (e instanceof ApiError && e.code === 'plan_required') setNote('plan')
        else setError(e)
      },
    )
  }, [q, mode, limit])
  return { items, note, error, usage }
}

/** The words shown for a search the server could not do by meaning. */
export const noteText = (note: Exclude<SearchNote, null>, tr: Tr) =>
  note === 'plan' ? tr('kb.ai_plan') : tr('kb.ai_unavailable')

/** Keywords or meaning, as two radio buttons (meaning only for who may use AI). */
export const ModeChoice = (props: { mode: SearchMode; onMode: (m: SearchMode) => void; name: string }) => {
  const tr = useTr()
  if (!canSemantic()) return null
  return (
    <fieldset class="kb-modes">
      <legend>{tr('kb.mode')}</legend>
      {(['keyword', 'semantic'] as const).map((m) => (
        <label key={m}>
          <input
            type="radio"
            name={props.name}
            value={m}
            checked={props.mode === m}
            onChange={() => props.onMode(m)}
          />
          {tr(`kb.mode.${m}`)}
        </label>
      ))}
    </fieldset>
  )
}

/** How well a result matched, in words. */
export const matchText = (i: SearchItem, tr: Tr, locale: string) =>
  i.match === 'semantic'
    ? tr('kb.match.semantic', {
        score: new Intl.NumberFormat(locale === 'id' ? 'id-ID' : 'en-GB', { style: 'percent' }).format(
          i.score,
        ),
      })
    : tr('kb.match.keyword')

/** Recently updated published articles (the panel's list before anything is typed). */
export const recentArticles = async (perPage: number) =>
  (await api.get('/v1/kb/articles', { query: { status: 'published', per_page: perPage } })).data

export { me, useLocale }
