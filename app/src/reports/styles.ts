import { addStyles, ensureKitStyles } from '../kit/styles'

/** The reports area's styles (prefix `rp-`), on the kit's; added when one of its pages renders. */
const CSS = `
.rp-tabs{display:flex;gap:6px;flex-wrap:wrap;align-items:center;margin:0 0 14px}
.rp-tabs a{padding:6px 14px;border-radius:999px;border:1px solid var(--line,#e2e5ea);background:#fff;color:inherit;text-decoration:none;font-size:14px}
.rp-tabs a[aria-current=page]{background:var(--accent,#0f6e5f);border-color:var(--accent,#0f6e5f);color:#fff}
.rp-tabs a:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:2px}
.rp-tabs a.rp-aside{margin-left:auto;border:0;background:none;color:var(--accent,#0f6e5f);padding:6px 0}
.rp-filters{display:flex;flex-wrap:wrap;gap:10px 12px;align-items:flex-end;margin:0 0 10px}
.rp-filters .k-field{min-width:150px}
.rp-filters input[type=date]{font:inherit;font-size:14px;padding:6px 8px;border:1px solid #d1d5db;border-radius:6px;background:#fff}
.rp-filters input[type=date]:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:1px}
.rp-note{margin:0 0 16px;font-size:14px}
.rp-note p{margin:0 0 4px}
.rp-cards{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(210px,1fr));gap:12px}
.rp-card{background:#fff;border:1px solid var(--line,#e2e5ea);border-radius:10px;padding:12px 14px;display:flex;flex-direction:column;gap:3px;min-width:0}
.rp-card h3{margin:0;font-size:13px;font-weight:600;color:#4b5563}
.rp-card .rp-fig{font-size:24px;font-weight:650;font-variant-numeric:tabular-nums;color:#111827}
.rp-card small{font-size:12.5px;color:var(--muted,#5b6676)}
.rp-delta{font-size:12.5px;font-weight:600}
.rp-better{color:#166534}
.rp-worse{color:#b91c1c}
.rp-flat{color:#4b5563}
.rp-grid2{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,1fr);gap:16px;align-items:start}
@media (max-width:1000px){.rp-grid2{grid-template-columns:minmax(0,1fr)}}
.rp-scroll:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:2px}
.rp-scroll{overflow-x:auto}
.rp-scroll>.k-table{display:table;min-width:100%}
.rp-scroll th[scope=row]{white-space:nowrap}
.rp-num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.k-table th.rp-scroll th[scope=row]{white-space:nowrap}
.rp-num{text-align:right}
.rp-by{display:flex;gap:6px;flex-wrap:wrap;margin:0 0 10px;padding:0;list-style:none}
.rp-by button{font:inherit;font-size:14px;padding:5px 12px;border-radius:999px;border:1px solid #d1d5db;background:#fff;color:inherit;cursor:pointer}
.rp-by button[aria-pressed=true]{background:#e3f2ef;border-color:var(--accent,#0f6e5f);color:#0b4f44;font-weight:600}
.rp-by button:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:2px}
.rp-dot{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:6px;vertical-align:baseline;border:1px solid rgba(0,0,0,.15)}
.rp-exports{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:8px}
.rp-exports a{text-decoration:none;display:inline-block}
.rp-gap{margin:0 0 10px}
.rp-top0{margin-top:0}
.rp-sort{font:inherit;font-weight:600;color:inherit;background:none;border:0;padding:0;cursor:pointer;text-align:inherit}
.rp-sort:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:2px}
.rp-indent{display:inline-block}
.rp-head2{display:flex;justify-content:space-between;align-items:baseline;gap:10px;flex-wrap:wrap}
.rp-head2 h2{margin:0 0 10px}
@media (max-width:640px){.rp-filters .k-field{flex:1 1 140px;min-width:0}.rp-filters input[type=date]{font-size:16px;min-height:44px}.rp-card .rp-fig{font-size:21px}.rp-cards{grid-template-columns:repeat(2,minmax(0,1fr));gap:8px}.rp-card{padding:10px}.rp-by button{min-height:40px}.rp-tabs a{padding:9px 14px}}
`

export const ensureStyles = () => {
  ensureKitStyles()
  addStyles('reports', CSS)
}
