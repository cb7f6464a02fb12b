import { addStyles, ensureKitStyles } from '../kit/styles'

/** The pipeline pages' own styles (`pl-`): the board's columns and cards, the lead page's panels. */
const CSS = `
.pl-page>*{max-width:none}
.pl-tabs{display:flex;gap:4px;flex-wrap:wrap;margin:0 0 14px;border-bottom:1px solid var(--line,#e2e5ea)}
.pl-tabs a{padding:8px 12px;color:#374151;text-decoration:none;font-size:14px;border-bottom:2px solid transparent;margin-bottom:-1px}
.pl-tabs a[aria-current=page]{color:var(--accent,#0f6e5f);border-bottom-color:var(--accent,#0f6e5f);font-weight:600}
.pl-tabs a:focus-visible{outline:2px solid var(--accent,#0f6e5f)}
.pl-filters{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-end;margin-bottom:12px}
.pl-filters .k-field{min-width:150px}
.pl-actions{display:flex;gap:8px;flex-wrap:wrap;margin-left:auto;align-items:flex-end}
.k-page a.k-btn{text-decoration:none;display:inline-flex;align-items:center;box-sizing:border-box}
.pl-summary{display:flex;gap:18px;flex-wrap:wrap;font-size:13.5px;color:#374151;margin:0 0 10px}
.pl-summary b{font-weight:600}
.pl-board{display:flex;gap:12px;overflow-x:auto;padding-bottom:10px;align-items:flex-start;scroll-snap-type:x proximity}
.pl-col{flex:1 0 180px;max-width:300px;background:#f3f4f6;border-radius:10px;display:flex;flex-direction:column;max-height:calc(100vh - 260px);min-height:160px;scroll-snap-align:start;border:2px solid transparent}
.pl-col.pl-over{border-color:var(--accent,#0f6e5f);background:#e3f2ef}
.pl-col-head{padding:10px 12px 6px;border-top:4px solid var(--stage,#9ca3af);border-radius:10px 10px 0 0}
.pl-col-head h2{font-size:14px;margin:0;display:flex;justify-content:space-between;gap:8px}
.pl-col-head p{margin:2px 0 0;font-size:12.5px;color:#4b5563}
.pl-cards{list-style:none;margin:0;padding:6px 8px 10px;display:flex;flex-direction:column;gap:8px;overflow-y:auto;flex:1}
.pl-card{background:#fff;border:1px solid var(--line,#e2e5ea);border-radius:8px;padding:9px 10px;display:flex;flex-direction:column;gap:3px;font-size:13px;cursor:grab}
.pl-card[draggable=false]{cursor:default}
.pl-card.pl-dragging{opacity:.5}
.pl-card a{color:#111827;font-weight:600;text-decoration:none;font-size:14px;overflow-wrap:anywhere}
.pl-card a:hover,.pl-card a:focus-visible{text-decoration:underline;color:var(--accent,#0f6e5f)}
.pl-card .pl-meta{color:#4b5563;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.pl-card .pl-due{color:#b45309}
.pl-card .pl-overdue{color:#b91c1c;font-weight:600}
.pl-card select{font:inherit;font-size:12.5px;padding:3px 4px;border:1px solid #d1d5db;border-radius:5px;background:#fff;margin-top:4px;max-width:100%}
.pl-empty{color:#4b5563;font-size:13px;padding:6px 4px}
.pl-dialog{border:0;border-radius:12px;padding:20px;max-width:440px;width:calc(100% - 40px);box-sizing:border-box;box-shadow:0 10px 40px rgba(0,0,0,.25)}
.pl-dialog::backdrop{background:rgba(17,24,39,.45)}
.pl-dialog h2{margin:0 0 12px;font-size:17px}
.pl-dialog form{display:flex;flex-direction:column;gap:12px}
.pl-head{display:flex;gap:12px;align-items:center;flex-wrap:wrap;margin:4px 0 14px}
.pl-head h1{font-size:22px;margin:0;overflow-wrap:anywhere}
.pl-stage{display:inline-flex;align-items:center;gap:6px;padding:2px 10px;border-radius:999px;font-size:12.5px;font-weight:600;background:#f3f4f6;color:#1f2937}
.pl-stage i{width:9px;height:9px;border-radius:50%;display:inline-block}
.pl-cols{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1.2fr);gap:16px;align-items:start}
.pl-list{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
.pl-list li{display:flex;gap:8px;align-items:flex-start;justify-content:space-between;border-bottom:1px solid #f1f5f9;padding:0 0 8px;font-size:14px;overflow-wrap:anywhere}
.pl-list li:last-child{border-bottom:0}
.pl-list li>div{min-width:0;flex:1}
.pl-when{display:block;color:var(--muted,#5b6676);font-size:12.5px}
.pl-body{white-space:pre-wrap;margin:2px 0 0}
.pl-inline{display:flex;gap:8px;flex-wrap:wrap;align-items:flex-end;margin-top:10px}
.pl-inline .k-field{flex:1 1 160px}
.pl-checks li{align-items:center}
.pl-done{text-decoration:line-through;color:#6b7280}
.pl-tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:10px;margin:0 0 16px}
.pl-tiles div{background:#fff;border:1px solid var(--line,#e2e5ea);border-radius:10px;padding:10px 12px}
.pl-tiles dt{font-size:12.5px;color:var(--muted,#5b6676)}
.pl-tiles dd{margin:2px 0 0;font-size:20px;font-weight:600;overflow-wrap:anywhere}
.pl-bars{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
.pl-bars li{display:grid;grid-template-columns:minmax(90px,160px) 1fr auto;gap:10px;align-items:center;font-size:13.5px}
.pl-bars .k-bar span{background:var(--bar,var(--accent,#0f6e5f))}
.pl-scroll{overflow-x:auto}
.pl-table td,.pl-table th{white-space:nowrap}
.pl-table td.pl-wrap{white-space:normal;overflow-wrap:anywhere;min-width:160px}
.pl-stage-row{display:grid!important;grid-template-columns:110px minmax(140px,1fr) 130px 110px 140px;gap:10px;align-items:end}
.pl-kind{font-size:12.5px;font-weight:600;color:#4b5563;padding-bottom:9px}
.pl-stage-tools{display:flex;gap:4px}
.pl-warn{background:#fffbeb;color:#78350f;border:1px solid #fcd34d}
.pl-warn p,.k-notice-info p{margin:0 0 4px}
.pl-dup-list{margin:4px 0 6px;padding-left:20px}
.pl-dup-list a{color:inherit;font-weight:600}
.pl-archived{display:flex;gap:10px;align-items:center;flex-wrap:wrap;margin-bottom:10px}
.pl-link{margin-top:14px;display:flex;flex-direction:column;gap:8px}
.pl-list li>.pl-edit{flex:1;max-width:none}
.pl-list li>.pl-stage-tools{flex-wrap:wrap;justify-content:flex-end}
.pl-bulk{display:flex;gap:8px;flex-wrap:wrap;align-items:flex-end;padding:10px 12px;background:#eff6ff;border:1px solid #bfdbfe;border-radius:8px;margin-bottom:10px}
@media (max-width:900px){.pl-cols{grid-template-columns:minmax(0,1fr)}}
@media (max-width:640px){.pl-stage-row{grid-template-columns:1fr 1fr}.pl-kind{grid-column:1/-1;padding:0}.pl-col{flex-basis:80vw;max-height:none}.pl-filters .k-field{min-width:0;flex:1 1 140px}.pl-actions{margin-left:0}.pl-bars li{grid-template-columns:minmax(70px,110px) 1fr auto}}
`

export const ensureStyles = () => {
  ensureKitStyles()
  addStyles('pipeline', CSS)
}
