import { useEffect, useRef, useState } from 'preact/hooks'
import { href, useKitTr, useLocale } from '../kit'
import { FailNotice, Notice } from '../kit/ui'
import { ModeChoice, matchText, noteText, recentArticles, useSearch } from './common'
import { type Article, articlePath, ensureStyles, type SearchMode, useTr } from './kit'
import { plainText, Snippet } from './markdown'

/**
 * The conversation's knowledge base panel, opened from the reply composer (loaded on demand):
 * search published articles by keywords or meaning, then put one into the reply, as its text
 * (plain, since customers' apps show no Markdown) or as a link to it in this app (for notes to
 * colleagues). Before anything is typed it lists the recently updated articles.
 */
export const KbPanel = (props: { onInsert: (text: string) => void; onClose: () => void }) => {
  ensureStyles()
  const tr = useTr()
  const kt = useKitTr()
  const locale = useLocale()
  const [typed, setTyped] = useState('')
  const [q, setQ] = useState('')
  const [mode, setMode] = useState<SearchMode>('keyword')
  const [recent, setRecent] = useState<readonly Article[] | null>(null)
  const [recentError, setRecentError] = useState<unknown>(null)
  const [inserted, setInserted] = useState<string | null>(null)
  const search = useSearch(q, mode, 8)
  const box = useRef<HTMLInputElement>(null)
  useEffect(() => {
    box.current?.focus()
    recentArticles(8).then(setRecent, setRecentError)
  }, [])
  // Typing searches after a short pause; Enter at once.
  useEffect(() => {
    const t = setTimeout(() => setQ(typed), 300)
    return () => clearTimeout(t)
  }, [typed])

  const insert = (a: Article, how: 'text' | 'link') => {
    props.onInsert(
      how === 'text'
        ? plainText(a.body) || a.title
        : `${a.title}: ${location.origin}${href(articlePath(a.id))}`,
    )
    setInserted(a.title)
  }
  const row = (a: Article, extra: preact.ComponentChildren) => (
    <li key={a.id} class="kb-item" data-article-id={a.id} data-testid="kb-panel-item">
      <h3>{a.title}</h3>
      {extra}
      {a.can.insert ? (
        <div class="k-row">
          <button
            type="button"
            class="k-btn"
            aria-label={tr('kb.panel.of', { action: tr('kb.panel.insert_text'), title: a.title })}
            onClick={() => insert(a, 'text')}
          >
            {tr('kb.panel.insert_text')}
          </button>
          <button
            type="button"
            class="k-btn"
            aria-label={tr('kb.panel.of', { action: tr('kb.panel.insert_link'), title: a.title })}
            onClick={() => insert(a, 'link')}
          >
            {tr('kb.panel.insert_link')}
          </button>
        </div>
      ) : null}
    </li>
  )

  return (
    <section
      class="kb-panel"
      aria-labelledby="kb-panel-h"
      data-testid="kb-panel"
      onKeyDown={(e) => {
        if (e.key === 'Escape') props.onClose()
      }}
    >
      <div class="kb-panel-head">
        <h2 id="kb-panel-h">{tr('kb.panel.title')}</h2>
        <button type="button" class="k-btn" onClick={props.onClose}>
          {kt('k.cancel')}
          <span class="sr-only"> — {tr('kb.panel.close')}</span>
        </button>
      </div>
      <search>
        <form
          class="k-stack"
          style={{ gap: '6px' }}
          onSubmit={(e) => {
            e.preventDefault()
            setQ(typed)
          }}
        >
          <input
            ref={box}
            type="search"
            aria-label={tr('kb.search')}
            placeholder={tr('kb.search')}
            value={typed}
            onInput={(e) => setTyped(e.currentTarget.value)}
          />
          <ModeChoice name="kb-panel-mode" mode={mode} onMode={setMode} />
        </form>
      </search>
      {inserted ? (
        <p class="k-muted" role="status">
          {tr('kb.panel.inserted', { title: inserted })}
        </p>
      ) : null}
      {q.trim() === '' ? (
        <>
          <h3 class="k-muted" style={{ margin: 0, fontSize: '13px' }}>
            {tr('kb.panel.recent')}
          </h3>
          <FailNotice error={recentError} />
          {recent === null ? (
            recentError ? null : (
              <p class="k-muted">{kt('k.loading')}</p>
            )
          ) : recent.length === 0 ? (
            <p class="k-muted">{tr('kb.empty')}</p>
          ) : (
            <ul class="kb-list">{recent.map((a) => row(a, null))}</ul>
          )}
        </>
      ) : (
        <>
          {search.note ? <Notice kind="info">{noteText(search.note, tr)}</Notice> : null}
          <FailNotice error={search.error} />
          {search.items === null ? (
            search.note || search.error ? null : (
              <p class="k-muted">{kt('k.loading')}</p>
            )
          ) : search.items.length === 0 ? (
            <p class="k-muted">{tr('kb.no_results', { q })}</p>
          ) : (
            <ul class="kb-list">
              {search.items.map((i) =>
                row(
                  i.article,
                  <>
                    <Snippet html={i.snippet} />
                    <span class="k-muted">{matchText(i, tr, locale)}</span>
                  </>,
                ),
              )}
            </ul>
          )}
        </>
      )}
      <p class="k-muted" style={{ margin: 0 }}>
        {tr('kb.panel.link_hint')}
      </p>
    </section>
  )
}
