import { useEffect, useState } from 'preact/hooks'
import { api, can, Link, useKitTr, useLocale } from '../kit'
import { FailNotice, MoreButton, Notice, SelectField, when } from '../kit/ui'
import { here, navigate } from '../lib/router'
import { use } from '../lib/state'
import {
  EmbeddingBadge,
  ModeChoice,
  matchText,
  noteText,
  StatusBadge,
  teamsText,
  useKbChanged,
  useSearch,
} from './common'
import {
  type Article,
  articlePath,
  type Category,
  type Counts,
  ensureStyles,
  type SearchMode,
  useTr,
} from './kit'
import { Snippet } from './markdown'

const PER_PAGE = 25

/** The address's `?q=…&mode=…`, so a search can be shared and survives a reload. */
const fromAddress = (search: string) => {
  const sp = new URLSearchParams(search)
  return {
    q: sp.get('q') ?? '',
    mode: (sp.get('mode') === 'semantic' ? 'semantic' : 'keyword') as SearchMode,
  }
}

/**
 * `/app/kb`: the articles (by category and, for who manages, by status, with the published and
 * draft counts), and search by keywords or by meaning with snippets. Another person's change
 * (`kb.changed`) reloads the list.
 */
export const KbPage = () => {
  ensureStyles()
  const tr = useTr()
  const kt = useKitTr()
  const locale = useLocale()
  const manage = can('kb.manage')
  const addr = fromAddress(use(here).search)
  const [typed, setTyped] = useState(addr.q)
  const [category, setCategory] = useState('')
  const [status, setStatus] = useState('')
  const [categories, setCategories] = useState<readonly Category[]>([])
  const [articles, setArticles] = useState<readonly Article[] | null>(null)
  const [counts, setCounts] = useState<Counts | null>(null)
  const [more, setMore] = useState<number | null>(null)
  const [error, setError] = useState<unknown>(null)
  const search = useSearch(addr.q, addr.mode)

  const query = (page: number) => ({
    page,
    per_page: PER_PAGE,
    ...(category === '' ? {} : { category_id: category === 'none' ? ('none' as const) : Number(category) }),
    ...(status === 'draft' || status === 'published' ? { status: status as Article['status'] } : {}),
  })
  const load = (page = 1) =>
    api.get('/v1/kb/articles', { query: query(page) }).then(
      (r) => {
        setArticles((prev) => (page === 1 || !prev ? r.data : [...prev, ...r.data]))
        setCounts((r.meta.counts as Counts | undefined) ?? null)
        setMore(r.meta.has_more === true ? page + 1 : null)
        setError(null)
      },
      (e) => setError(e),
    )
  const loadCategories = () =>
    api.get('/v1/kb/categories').then(
      (r) => setCategories(r.data),
      () => null,
    )
  useEffect(() => {
    void load()
  }, [category, status])
  useEffect(() => {
    void loadCategories()
  }, [])
  useKbChanged(() => {
    void load()
    void loadCategories()
  })

  const go = (q: string, mode: SearchMode) => {
    const sp = new URLSearchParams()
    if (q.trim()) sp.set('q', q.trim())
    if (q.trim() && mode === 'semantic') sp.set('mode', mode)
    const s = sp.toString()
    navigate(`/kb${s ? `?${s}` : ''}`, true)
  }

  return (
    <div class="k-page" data-testid="kb">
      <div class="k-head">
        <h1>{tr('kb.title')}</h1>
        {manage ? (
          <>
            <Link class="k-btn k-primary" to="/kb/articles/new">
              {tr('kb.new_article')}
            </Link>
            <Link class="k-btn" to="/kb/categories">
              {tr('kb.categories')}
            </Link>
          </>
        ) : null}
      </div>
      <div class="k-stack">
        <search>
          <form
            class="k-panel kb-search"
            onSubmit={(e) => {
              e.preventDefault()
              go(typed, addr.mode)
            }}
          >
            <div class="k-field">
              <label for="kb-q">{tr('kb.search')}</label>
              <input
                id="kb-q"
                type="search"
                name="q"
                value={typed}
                onInput={(e) => setTyped(e.currentTarget.value)}
              />
            </div>
            <ModeChoice name="kb-mode" mode={addr.mode} onMode={(m) => go(typed, m)} />
            <button type="submit" class="k-btn k-primary">
              {tr('kb.search_go')}
            </button>
          </form>
        </search>
        {addr.q ? (
          <section aria-labelledby="kb-results" class="k-stack" data-testid="kb-results">
            <div class="k-row">
              <h2 id="kb-results" class="k-sub" style={{ margin: 0 }}>
                {tr('kb.results', { q: addr.q })}
              </h2>
              <button
                type="button"
                class="k-btn"
                onClick={() => {
                  setTyped('')
                  go('', addr.mode)
                }}
              >
                {tr('kb.clear')}
              </button>
            </div>
            {search.note ? <Notice kind="info">{noteText(search.note, tr)}</Notice> : null}
            <FailNotice error={search.error} />
            {search.usage && addr.mode === 'semantic' ? (
              <p class="k-muted">{tr('kb.ai_usage', search.usage)}</p>
            ) : null}
            {search.items === null ? (
              search.note || search.error ? null : (
                <p class="k-muted">{kt('k.loading')}</p>
              )
            ) : search.items.length === 0 ? (
              <p class="k-muted">{tr('kb.no_results', { q: addr.q })}</p>
            ) : (
              <ul class="kb-list">
                {search.items.map((i) => (
                  <li key={i.article.id} class="kb-item" data-article-id={i.article.id} data-testid="kb-hit">
                    <h3>
                      <Link to={articlePath(i.article.id)}>{i.article.title}</Link>
                    </h3>
                    <Snippet html={i.snippet} />
                    <div class="kb-meta">
                      <span>{matchText(i, tr, locale)}</span>
                      {i.article.category ? <span>{i.article.category.name}</span> : null}
                    </div>
                  </li>
                ))}
              </ul>
            )}
          </section>
        ) : (
          <section aria-labelledby="kb-list" class="k-stack">
            <div class="k-row">
              <h2 id="kb-list" class="k-sub" style={{ margin: 0 }}>
                {tr('kb.articles')}
              </h2>
              {manage && counts ? <span class="k-muted">{tr('kb.counts', { ...counts })}</span> : null}
            </div>
            <div class="kb-filters">
              <SelectField
                label={tr('kb.filter.category')}
                name="category"
                value={category}
                onValue={setCategory}
                options={[
                  ['', tr('kb.filter.all')],
                  ['none', tr('kb.filter.none')],
                  ...categories.map((c) => [String(c.id), c.name] as const),
                ]}
              />
              {manage ? (
                <SelectField
                  label={tr('kb.filter.status')}
                  name="status"
                  value={status}
                  onValue={setStatus}
                  options={[
                    ['', tr('kb.filter.all')],
                    ['published', tr('kb.status.published')],
                    ['draft', tr('kb.status.draft')],
                  ]}
                />
              ) : null}
            </div>
            <FailNotice error={error} />
            {articles === null ? (
              error ? null : (
                <p class="k-muted">{kt('k.loading')}</p>
              )
            ) : articles.length === 0 ? (
              <p class="k-muted">{manage ? tr('kb.empty_manage') : tr('kb.empty')}</p>
            ) : (
              <ul class="kb-list" data-testid="kb-articles">
                {articles.map((a) => (
                  <li key={a.id} class="kb-item" data-article-id={a.id}>
                    <h3>
                      <Link to={articlePath(a.id)}>{a.title}</Link>
                    </h3>
                    <div class="kb-meta">
                      {manage ? <StatusBadge a={a} /> : null}
                      {manage && a.status === 'published' ? <EmbeddingBadge a={a} /> : null}
                      <span>{a.category?.name ?? tr('kb.filter.none')}</span>
                      <span>{teamsText(a, tr)}</span>
                      <span>{tr('kb.updated', { when: when(a.updated_at, locale) })}</span>
                    </div>
                  </li>
                ))}
              </ul>
            )}
            <MoreButton
              next={more === null ? null : String(more)}
              onMore={() => more !== null && void load(more)}
            />
          </section>
        )}
      </div>
    </div>
  )
}
