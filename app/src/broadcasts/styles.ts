import { addStyles, ensureKitStyles } from '../kit/styles'

/**
 * The broadcasts pages' own styles (`bc-`): the area's tabs, status tabs, progress bars, the rule
 * rows, the estimate, the dashboard.
 */
const CSS = `
.bc-nav{display:flex;gap:4px;flex-wrap:wrap;margin:0 0 14px;border-bottom:1px solid var(--line,#e2e5ea)}
.bc-nav a{padding:8px 12px;color:#374151;text-decoration:none;font-size:14px;border-bottom:2px solid transparent;margin-bottom:-1px}
.bc-nav a[aria-current=page]{color:var(--accent,#0f6e5f);border-bottom-color:var(--accent,#0f6e5f);font-weight:600}
.bc-nav a:focus-visible{outline:2px solid var(--accent,#0f6e5f)}
.bc-tabs{display:flex;flex-wrap:wrap;gap:6px;list-style:none;margin:0 0 12px;padding:0}
.bc-tabs button{font:inherit;font-size:13.5px;padding:5px 12px;border-radius:999px;border:1px solid var(--line,#e2e5ea);background:#fff;color:#374151;cursor:pointer}
.bc-tabs button[aria-pressed=true]{background:var(--accent,#0f6e5f);border-color:var(--accent,#0f6e5f);color:#fff}
.bc-filters{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-end;margin-bottom:12px}
.bc-filters .k-field{flex:1 1 220px;max-width:360px}
.bc-actions{display:flex;gap:8px;flex-wrap:wrap;margin-left:auto;align-items:center}
.k-page a.k-btn{text-decoration:none;display:inline-flex;align-items:center;box-sizing:border-box}
.bc-bar{height:8px;border-radius:4px;background:#e5e7eb;overflow:hidden;min-width:80px}
.bc-bar span{display:block;height:100%;background:var(--accent,#0f6e5f);transition:width .4s}
.bc-sub{display:block;color:var(--muted,#5b6676);font-size:12.5px}
.bc-s-running,.bc-s-scheduled{background:#dbeafe;color:#1e40af}
.bc-s-draft{background:#f3f4f6;color:#374151}
.bc-s-paused{background:#fef3c7;color:#92400e}
.bc-s-completed{background:#dcfce7;color:#166534}
.bc-s-cancelled{background:#fee2e2;color:#991b1b}
.bc-cols{display:grid;grid-template-columns:minmax(0,1.5fr) minmax(0,1fr);gap:16px;align-items:start}
.bc-cols>div{display:flex;flex-direction:column;gap:16px;min-width:0}
.bc-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:10px 12px}
.bc-grid .k-field{justify-content:flex-end}
.bc-stats{display:grid;grid-template-columns:repeat(auto-fill,minmax(110px,1fr));gap:10px;margin:0}
.bc-stats div{background:#f9fafb;border-radius:8px;padding:8px 10px;min-width:0}
.bc-stats dt{font-size:12.5px;color:var(--muted,#5b6676)}
.bc-stats dd{margin:2px 0 0;font-size:20px;font-weight:600}
.bc-variant{border:1px solid var(--line,#e2e5ea);border-radius:8px;padding:10px 12px;display:flex;flex-direction:column;gap:8px}
.bc-variant-head{display:flex;justify-content:space-between;align-items:center;gap:8px;font-weight:600;font-size:14px}
.bc-picks{border:0;padding:0;margin:0;display:flex;flex-direction:column;gap:4px}
.bc-picks legend{font-size:13px;font-weight:600;color:#374151;padding:0;margin-bottom:4px}
.bc-picks .k-check{font-size:14px}
.bc-chosen{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:4px}
.bc-chosen li{display:flex;align-items:center;justify-content:space-between;gap:8px;font-size:14px;min-width:0}
.bc-chosen li>span:first-child{overflow-wrap:anywhere}
.bc-risk{display:flex;flex-direction:column;gap:6px;list-style:none;margin:0;padding:0}
.bc-risk li{font-size:13.5px;padding:6px 10px;border-radius:6px;border-left:4px solid #d1d5db;background:#f9fafb}
.bc-risk li.bc-high{border-left-color:#b91c1c;background:#fef2f2}
.bc-risk li.bc-medium{border-left-color:#b45309;background:#fffbeb}
.bc-level-low{background:#dcfce7;color:#166534}
.bc-level-medium{background:#fef3c7;color:#92400e}
.bc-level-high{background:#fee2e2;color:#991b1b}
.bc-preview{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
.bc-preview li{font-size:13.5px}
.bc-bubble{white-space:pre-wrap;overflow-wrap:anywhere;background:#dcf8c6;border-radius:8px;padding:8px 10px;margin-top:3px}
.bc-rule{display:grid;grid-template-columns:minmax(0,1.3fr) minmax(0,1fr) minmax(0,1.2fr) auto;gap:8px;align-items:end;padding:8px 0;border-bottom:1px solid #f1f5f9}
.bc-rule .k-btn{align-self:end;justify-self:start}
.bc-pair{display:flex;gap:6px;align-items:end}
.bc-pair>*{flex:1;min-width:0}
.bc-count{font-size:18px;font-weight:600;margin:0}
.bc-msg{white-space:pre-wrap;overflow-wrap:anywhere;max-width:420px;font-size:13px}
.bc-table td{overflow-wrap:anywhere}
.bc-pager{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin-top:10px}
.bc-dash2{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px;align-items:start}
.bc-range{margin:0;font-size:14px}
.bc-empty{margin:0 0 12px;font-size:15px}
.bc-scroll{overflow-x:auto}
.bc-scroll:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:2px}
.bc-scroll>.k-table{display:table;min-width:100%}
.bc-aside{display:flex;flex-wrap:wrap;gap:6px 20px;margin:12px 0 0;font-size:14px}
.bc-aside div{display:flex;gap:6px}
.bc-aside dt{color:var(--muted,#5b6676)}
.bc-aside dd{margin:0;font-weight:600;font-variant-numeric:tabular-nums}
.bc-bar-col{width:100px}
.bc-count-cell{display:inline-flex;align-items:center;gap:8px}
.bc-meters{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:14px}
.bc-number{display:inline-flex;align-items:center;gap:6px;flex-wrap:wrap}
.bc-meta{display:flex;flex-wrap:wrap;align-items:center;gap:2px 8px;margin-top:3px;color:var(--muted,#5b6676);font-size:12.5px}
@media (max-width:1000px){.bc-dash2{grid-template-columns:minmax(0,1fr)}}
@media (max-width:640px){.bc-bar-col{display:none}}
@media (max-width:900px){.bc-cols{grid-template-columns:minmax(0,1fr)}}
.bc-filters .k-field select{padding:8px 9px}
@media (max-width:640px){.bc-wide{display:none}.bc-rule{grid-template-columns:minmax(0,1fr)}.bc-actions{margin-left:0}.bc-filters .k-field{max-width:none}.bc-msg{max-width:none}}
`

export const ensureStyles = () => {
  ensureKitStyles()
  addStyles('broadcasts', CSS)
}
