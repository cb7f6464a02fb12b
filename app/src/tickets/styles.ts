import { addStyles, ensureKitStyles } from '../kit/styles'

/** The tickets area's styles (prefix `tk-`), on the kit's; added when one of its screens renders. */
const CSS = `
.tk-tabs{display:flex;flex-wrap:wrap;gap:6px;margin:0 0 14px;padding:0;list-style:none}
.tk-tabs a{display:inline-flex;gap:6px;align-items:center;padding:6px 12px;border-radius:999px;border:1px solid var(--line,#e2e5ea);background:#fff;color:inherit;text-decoration:none;font-size:14px}
.tk-tabs a[aria-current=page]{background:var(--accent,#0f6e5f);border-color:var(--accent,#0f6e5f);color:#fff}
.tk-tabs .tk-n{font-size:12.5px;opacity:.85}
.tk-filters{display:grid;grid-template-columns:2fr repeat(3,minmax(0,1fr)) auto;gap:10px 12px;align-items:end;margin-bottom:14px;max-width:none}
.tk-filters .k-check{padding-bottom:8px}
.tk-list{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
.tk-item{background:#fff;border:1px solid var(--line,#e2e5ea);border-radius:8px;padding:10px 14px;display:flex;flex-direction:column;gap:4px;font-size:14px;min-width:0}
.tk-item a{color:var(--accent,#0f6e5f);font-weight:600;text-decoration:none;overflow-wrap:anywhere}
.tk-item a:hover,.tk-item a:focus-visible{text-decoration:underline}
.tk-meta{display:flex;flex-wrap:wrap;gap:4px 12px;align-items:center;color:var(--muted,#5b6676);font-size:13px}
.tk-grid{display:grid;grid-template-columns:minmax(0,2fr) minmax(260px,1fr);gap:16px;align-items:start;max-width:1200px}
.tk-side{display:flex;flex-direction:column;gap:16px;min-width:0}
.tk-main{display:flex;flex-direction:column;gap:16px;min-width:0}
.tk-title{overflow-wrap:anywhere}
.tk-controls{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:10px}
.tk-people{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
.tk-people li{display:flex;flex-wrap:wrap;align-items:center;gap:6px 10px;font-size:14px}
.tk-people .tk-who{flex:1;min-width:0;overflow-wrap:anywhere}
.tk-msgs{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:10px}
.tk-msg{border:1px solid var(--line,#e2e5ea);border-radius:8px;padding:10px 12px;background:#fafbfc;font-size:14px;min-width:0}
.tk-msg.tk-k-conclusion{background:#f0fdf4;border-color:#bbf7d0}
.tk-msg.tk-k-update_request{background:#fffbeb;border-color:#fde68a}
.tk-msg-head{display:flex;flex-wrap:wrap;gap:4px 10px;align-items:baseline;font-size:13px;color:var(--muted,#5b6676);margin-bottom:4px}
.tk-msg-head strong{color:var(--text,#1f2937)}
.tk-msg-head .k-badge:not(.k-ok){background:#eef1f5;color:#374151}
.tk-body{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
.tk-mention{background:var(--accent-soft,#e3f2ef);color:#0b5247;border-radius:4px;padding:0 3px;font-weight:500}
.tk-files{list-style:none;margin:6px 0 0;padding:0;display:flex;flex-wrap:wrap;gap:6px 12px;font-size:13px}
.tk-files a{color:var(--accent,#0f6e5f)}
.tk-log{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:4px;font-size:13px;color:#374151}
.tk-banner{border:1px solid #fde68a;background:#fffbeb;color:#78350f;border-radius:8px;padding:10px 14px;font-size:14px}
.tk-sla{display:flex;flex-direction:column;gap:4px;font-size:14px}
.tk-row-end{display:flex;flex-wrap:wrap;gap:8px;align-items:center;justify-content:space-between}
.tk-dialog{border:0;border-radius:12px;padding:0;width:min(640px,calc(100vw - 24px));max-height:calc(100vh - 32px);box-shadow:0 12px 40px rgba(0,0,0,.25);color:var(--text,#1f2937)}
.tk-dialog::backdrop{background:rgba(15,23,42,.45)}
.tk-dialog form,.tk-dialog .tk-dbody{padding:18px 20px;display:flex;flex-direction:column;gap:12px}
.tk-dialog h2{font-size:17px;margin:0;white-space:normal;overflow:visible;flex:none}
.tk-cites{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:4px;max-height:220px;overflow:auto;border:1px solid var(--line,#e2e5ea);border-radius:8px;padding:6px 10px}
.tk-cites label{display:flex;gap:8px;align-items:flex-start;font-size:13.5px;overflow-wrap:anywhere}
.tk-assignees{display:flex;flex-wrap:wrap;gap:4px 14px}
.tk-briefs{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:10px}
.tk-briefs>li{border:1px solid var(--line,#e2e5ea);border-radius:8px;padding:10px 12px;display:flex;flex-direction:column;gap:6px;font-size:14px}
.tk-summary{margin:0;padding-left:20px;display:flex;flex-direction:column;gap:4px;font-size:14px}
@media (max-width:1000px){.tk-grid{grid-template-columns:1fr}.tk-filters{grid-template-columns:1fr 1fr}.tk-filters>:first-child{grid-column:1/-1}}
@media (max-width:640px){.tk-controls{grid-template-columns:1fr}}
`

export const ensureStyles = () => {
  ensureKitStyles()
  addStyles('tickets', CSS)
}
