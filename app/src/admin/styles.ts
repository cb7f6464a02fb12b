import { addStyles, ensureKitStyles } from '../kit/styles'

/** The admin pages' own styles (the audit entries, usage meters, the key shown once), on the kit's. */
const CSS = `
.adm-once{border-color:#f59e0b;background:#fffbeb}
.adm-log{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
.adm-log li{background:#fff;border:1px solid var(--line,#e2e5ea);border-radius:8px;padding:10px 14px;display:flex;flex-direction:column;gap:4px;font-size:14px;overflow-wrap:anywhere}
.adm-log .adm-what{display:flex;gap:8px;flex-wrap:wrap;align-items:baseline}
.adm-log .adm-details{color:#374151;font-size:13px}
.adm-log .adm-meta{color:var(--muted,#5b6676);font-size:12.5px;display:flex;gap:4px 14px;flex-wrap:wrap}
.adm-filters{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:10px 12px;align-items:start;max-width:none}
.adm-filters .k-row{grid-column:1/-1;margin:0}
.adm-meters{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(230px,1fr));gap:14px 20px}
.adm-invoice{margin-top:12px;padding:12px 14px;border:1px solid var(--line,#e2e5ea);border-radius:8px;background:#f9fafb}
.adm-invoice h3{font-size:14px;margin:0 0 8px}
.adm-invoice dl+h3{margin-top:14px}
.adm-invoice ul{margin:6px 0 0;padding-left:18px;font-size:14px}
.adm-two{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:10px 12px}
.adm-frozen{border-color:#fecaca;background:#fef2f2}
.adm-frozen h2{color:#991b1b}
@media (max-width:640px){.adm-two{grid-template-columns:1fr}.adm-filters{grid-template-columns:1fr 1fr}.adm-filters>.k-field:nth-child(5){grid-column:1/-1}.k-stack>*{min-width:0}}
`

export const ensureStyles = () => {
  ensureKitStyles()
  addStyles('admin', CSS)
}
