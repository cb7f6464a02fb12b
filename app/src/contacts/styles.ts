import { addStyles, ensureKitStyles } from '../kit/styles'

/** The contacts pages' own styles (`ct-`): the virtual list, label chips, the profile's columns. */
const CSS = `
.ct-list-page{display:flex;flex-direction:column;overflow:hidden}
.ct-list-page>*{max-width:none}
.ct-filters{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-end;margin-bottom:12px}
.ct-filters .k-field{min-width:150px}
.ct-filters .ct-search{flex:1 1 240px}
.ct-count{margin:0 0 8px}
.ct-scroller{flex:1;min-height:240px;overflow-y:auto;overflow-x:hidden;background:#fff;border:1px solid var(--line,#e2e5ea);border-radius:10px;position:relative;contain:strict}
.ct-space{position:relative;width:100%;list-style:none;margin:0;padding:0}
.ct-row{position:absolute;left:0;right:0;display:grid;grid-template-columns:minmax(0,2fr) minmax(0,1.3fr) minmax(0,1.6fr) minmax(0,1.6fr);gap:12px;align-items:center;padding:0 14px;box-sizing:border-box;border-bottom:1px solid #f1f5f9;font-size:14px;contain:layout paint}
.ct-row>span{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;min-width:0}
.ct-row a{color:var(--accent,#0f6e5f);font-weight:600;text-decoration:none}
.ct-row a:hover,.ct-row a:focus-visible{text-decoration:underline}
.ct-sub{display:block;color:var(--muted,#5b6676);font-size:12.5px;overflow:hidden;text-overflow:ellipsis}
.ct-ghost{display:block;height:10px;border-radius:5px;background:#eef0f3;width:60%}
.ct-labels{display:flex;gap:4px;flex-wrap:nowrap;overflow:hidden}
.ct-label{display:inline-flex;align-items:center;gap:5px;padding:1px 8px;border-radius:999px;border:1px solid var(--line,#e2e5ea);font-size:12.5px;white-space:nowrap;background:#fff}
.ct-label i{width:8px;height:8px;border-radius:50%;display:inline-block}
.ct-label button{border:0;background:none;cursor:pointer;padding:0 2px;font-size:14px;line-height:1;color:#4b5563;min-width:24px;min-height:24px}
.ct-empty{padding:24px;text-align:center}
.ct-head{display:flex;gap:14px;align-items:center;flex-wrap:wrap;margin:4px 0 18px}
.ct-head h1{font-size:22px;margin:0;overflow-wrap:anywhere}
.ct-avatar{width:48px;height:48px;border-radius:50%;background:var(--accent-soft,#e3f2ef);color:var(--accent,#0f6e5f);display:flex;align-items:center;justify-content:center;font-weight:600;flex:none}
.ct-actions{display:flex;gap:8px;flex-wrap:wrap;margin-left:auto}
.ct-cols{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1.3fr);gap:16px;align-items:start}
.ct-stats{display:grid;grid-template-columns:repeat(auto-fill,minmax(130px,1fr));gap:10px;margin:0}
.ct-stats div{background:#f9fafb;border-radius:8px;padding:8px 10px}
.ct-stats dt{font-size:12.5px;color:var(--muted,#5b6676)}
.ct-stats dd{margin:2px 0 0;font-size:18px;font-weight:600}
.ct-items{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:10px}
.ct-items li{border-left:3px solid var(--line,#e2e5ea);padding:2px 0 2px 10px;font-size:14px;overflow-wrap:anywhere}
.ct-items li.ct-conv{border-left-color:var(--accent,#0f6e5f)}
.ct-items li.ct-note{border-left-color:#b45309}
.ct-items a{color:var(--accent,#0f6e5f);font-weight:500}
.ct-when{display:block;color:var(--muted,#5b6676);font-size:12.5px}
.ct-merge{width:100%}
.k-page .ct-merge{display:table;table-layout:fixed;overflow:visible}
.ct-merge td{overflow-wrap:anywhere}
.ct-merge th{overflow-wrap:normal;word-break:normal;hyphens:auto}
.ct-progress{display:flex;flex-direction:column;gap:6px}
.ct-progress progress{width:100%;height:10px}
.ct-picker{display:flex;gap:8px;flex-wrap:wrap;align-items:flex-end;margin-top:12px}
.ct-picker .k-btn{align-self:flex-end}
.k-page a.k-btn{text-decoration:none;display:inline-flex;align-items:center;box-sizing:border-box}
.ct-chips{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:6px}
.ct-inline{display:inline}
.ct-note-body{white-space:pre-wrap;margin:0}
@media (max-width:900px){.ct-cols{grid-template-columns:minmax(0,1fr)}}
@media (max-width:640px){.k-page .ct-merge{font-size:13px}.k-page .ct-merge td,.k-page .ct-merge th{padding:8px 6px}.ct-row{grid-template-columns:minmax(0,1fr) auto;padding:0 10px}.ct-row .ct-wide{display:none}.ct-actions{margin-left:0}.ct-filters .k-field{min-width:0;flex:1 1 140px}}
`

export const ensureStyles = () => {
  ensureKitStyles()
  addStyles('contacts', CSS)
}
