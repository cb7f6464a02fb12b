import type { paths } from '../api/schema'
import { defineTexts } from '../kit'
import { addStyles, ensureKitStyles } from '../kit/styles'
import { texts } from './texts'

/** What the knowledge base's pages share beyond the kit: texts, types from the API, styles. */
export const useTr = defineTexts(texts)
export type Tr = ReturnType<typeof useTr>

type Ok<P extends keyof paths, M extends 'get'> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': { data: infer D } } } }
}
  ? D
  : never

export type SearchItem = Ok<'/v1/kb/search', 'get'>[number]
export type Article = SearchItem['article']
export type Category = Ok<'/v1/kb/categories', 'get'>[number]
export type EmbeddingStatus = Article['embedding_status']
export type SearchMode = 'keyword' | 'semantic'

/** `meta.counts` of `GET /v1/kb/articles`. */
export interface Counts {
  readonly published: number
  readonly draft: number
}

const CSS = `
.k-page a.k-btn{text-decoration:none;display:inline-block}
.kb-search{display:flex;gap:8px;align-items:flex-end;flex-wrap:wrap}
.kb-search .k-field{flex:1 1 260px}
.kb-modes{display:flex;gap:12px;flex-wrap:wrap;border:0;padding:0;margin:0;font-size:14px}
.kb-modes legend{font-size:13px;font-weight:600;color:#374151;padding:0;margin-bottom:4px}
.kb-modes label{display:inline-flex;align-items:center;gap:6px}
.kb-filters{display:flex;gap:12px;flex-wrap:wrap;align-items:flex-end}
.kb-filters .k-field{min-width:160px}
.kb-list{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:10px}
.kb-item{background:#fff;border:1px solid var(--line,#e2e5ea);border-radius:10px;padding:12px 16px;display:flex;flex-direction:column;gap:6px;min-width:0}
.kb-item h3{font-size:15px;margin:0}
.kb-item h3 a{color:var(--accent,#0f6e5f);text-decoration:none}
.kb-item h3 a:hover,.kb-item h3 a:focus-visible{text-decoration:underline}
.kb-meta{display:flex;gap:6px 10px;flex-wrap:wrap;align-items:center;font-size:13px;color:var(--muted,#5b6676)}
.kb-snippet{margin:0;font-size:14px;color:#374151;overflow-wrap:anywhere}
.kb-snippet mark,.kb-md mark{background:#fef08a;color:inherit;padding:0 1px;border-radius:2px}
.kb-badge-n{background:#f3f4f6;color:#374151}
.kb-md{font-size:15px;line-height:1.55;overflow-wrap:anywhere}
.kb-md>:first-child{margin-top:0}
.kb-md h2{font-size:19px;margin:18px 0 8px}.kb-md h3{font-size:17px;margin:16px 0 6px}.kb-md h4,.kb-md h5,.kb-md h6{font-size:15px;margin:14px 0 6px}
.kb-md p{margin:0 0 10px}
.kb-md a{color:var(--accent,#0f6e5f)}
.kb-md code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;background:#f3f4f6;padding:1px 4px;border-radius:4px}
.kb-md pre{background:#f3f4f6;padding:10px 12px;border-radius:6px;overflow:auto}
.kb-md pre code{background:none;padding:0}
.kb-md blockquote{margin:0 0 10px;padding:2px 12px;border-left:3px solid #d1d5db;color:#4b5563}
.kb-md ul,.kb-md ol{margin:0 0 10px;padding-left:22px}
.kb-table{overflow-x:auto;margin:0 0 10px}
.kb-md table{border-collapse:collapse;font-size:14px}
.kb-md th,.kb-md td{border:1px solid var(--line,#e2e5ea);padding:5px 9px;text-align:left}
.kb-edit{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px;align-items:start}
.kb-edit textarea{min-height:340px}
.kb-preview{background:#fff;border:1px solid var(--line,#e2e5ea);border-radius:10px;padding:12px 16px;min-height:120px}
.kb-preview h2.kb-ph{font-size:13px;font-weight:600;color:#374151;margin:0 0 8px;text-transform:none}
.kb-fields{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:12px}
.kb-checks{display:flex;flex-wrap:wrap;gap:6px 16px}
.kb-reader{max-width:820px}
.kb-reader h1{overflow-wrap:anywhere}
.kb-cats td input{font:inherit;font-size:14px;padding:5px 7px;border:1px solid #d1d5db;border-radius:6px;width:100%;box-sizing:border-box}
.kb-cats .k-row{margin:0;gap:6px}
.kb-icon{min-width:36px;padding:5px 8px}
.kb-panel{border-top:1px solid var(--line,#e2e5ea);background:#fafafa;padding:10px 12px;display:flex;flex-direction:column;gap:8px;max-height:340px;overflow:auto;font-size:14px}
.kb-panel-head{display:flex;justify-content:space-between;align-items:center;gap:8px}
.kb-panel-head h2{font-size:14px;margin:0}
.kb-panel .kb-list{gap:6px}
.kb-panel .kb-item{padding:8px 10px;gap:4px}
.kb-panel .kb-item h3{font-size:14px}
.kb-panel input[type=search]{font:inherit;font-size:14px;padding:6px 8px;border:1px solid #d1d5db;border-radius:6px;width:100%;box-sizing:border-box}
.kb-panel .k-btn{font-size:13px;padding:4px 10px}
@media (max-width:900px){.kb-edit{grid-template-columns:1fr}.kb-edit textarea{min-height:220px}}
@media (max-width:640px){.kb-panel input[type=search]{font-size:16px}.kb-cats,.kb-cats tbody,.kb-cats tr,.kb-cats td{display:block}.kb-cats thead{display:none}.kb-cats tr{border-bottom:1px solid var(--line,#e2e5ea);padding:6px 0}.kb-cats td{border:0;padding:4px 12px}.kb-cats td[data-label]::before{content:attr(data-label) ': ';color:var(--muted,#5b6676);font-size:13px}}
`

/** The kit's styles and the knowledge base's own (`kb-`). */
export const ensureStyles = () => {
  ensureKitStyles()
  addStyles('kb', CSS)
}

/** An article's place in the app. */
export const articlePath = (id: number) => `/kb/articles/${id}`
