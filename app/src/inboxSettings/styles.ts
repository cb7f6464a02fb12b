import { addStyles, ensureKitStyles } from '../kit/styles'

/** The inbox settings' own styles (`is-`): colour swatches, order buttons, the template preview. */
const CSS = `
.is-swatches{display:flex;flex-wrap:wrap;gap:6px;border:0;padding:0;margin:0}
.is-swatches legend{font-size:13px;font-weight:600;color:#374151;padding:0;margin-bottom:6px}
.is-swatch{position:relative;display:inline-flex}
.is-swatch input{position:absolute;opacity:0;width:100%;height:100%;margin:0;cursor:pointer}
.is-swatch span{display:block;width:28px;height:28px;border-radius:50%;border:2px solid #fff;box-shadow:0 0 0 1px #cbd5e1}
.is-swatch input:checked+span{box-shadow:0 0 0 2px #111827}
.is-swatch input:focus-visible+span{outline:2px solid var(--accent,#0f6e5f);outline-offset:3px}
.is-swatch .is-none{background:repeating-linear-gradient(45deg,#fff 0 4px,#e5e7eb 4px 8px)}
.is-chip{display:inline-block;width:12px;height:12px;border-radius:50%;margin-right:8px;vertical-align:-1px;box-shadow:0 0 0 1px rgba(0,0,0,.12)}
.is-order{display:inline-flex;gap:4px}
.is-order .k-btn{padding:4px 9px;line-height:1}
.is-wrap{position:relative}
.k-sub.is-sub{margin:8px 0 0}
.is-narrow{display:none}
.is-stack>p{margin:0}
.is-stack+.is-stack{margin-top:28px}
.is-acts{display:flex;gap:6px;flex-wrap:wrap;justify-content:flex-end}
.k-table td.is-acts-cell{text-align:right}
.is-edit{display:grid;grid-template-columns:minmax(0,1fr) 360px;gap:20px;align-items:start}
.is-edit .k-form{max-width:none}
.is-two{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:12px}
.is-preview h3{font-size:14px;margin:0 0 4px}
.is-preview p{margin:0 0 10px}
.is-composer{position:relative;border:1px solid var(--line,#e2e5ea);border-radius:10px;background:var(--panel,#fff);padding:8px 10px 10px;margin-top:6px}
.is-composer .templates{position:static;margin:0 0 8px;box-shadow:0 4px 14px rgba(20,30,50,.12)}
.is-composer .templates .on{background:var(--accent-soft,#e3f2ef);padding:6px 8px;border-radius:6px}
.is-typed{border:1px solid #d1d5db;border-radius:6px;padding:7px 9px;font-size:14px;min-height:20px;background:#fff}
.is-caret{display:inline-block;width:1px;height:16px;background:#111827;vertical-align:-3px;margin-left:1px}
.is-result{white-space:pre-wrap;border-left:3px solid var(--accent,#0f6e5f);background:#f9fafb;padding:8px 10px;border-radius:0 6px 6px 0;font-size:14px;overflow-wrap:anywhere}
.is-tabs{display:flex;gap:6px;flex-wrap:wrap;margin:0;border:0;padding:0;min-width:0}
.is-tabs .k-btn[aria-pressed=true]{background:var(--accent,#0f6e5f);border-color:var(--accent,#0f6e5f);color:#fff}
.is-indent{display:inline-block}
.is-sentence{margin:0;font-size:14px}
.k-table td.is-tree-1{padding-left:30px}
.k-table td.is-tree-2{padding-left:48px}
.is-mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
.is-file{display:flex;gap:8px;align-items:center;flex-wrap:wrap;font-size:14px}
.is-search{font:inherit;font-size:14px;padding:7px 9px;border:1px solid #d1d5db;border-radius:6px;min-width:0;flex:1;max-width:320px;background:#fff}
.is-search:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:1px}
@media (max-width:900px){.is-edit{grid-template-columns:minmax(0,1fr)}}
.is-edit input[type=file]{max-width:100%;min-width:0}
@media (max-width:640px){.is-two{grid-template-columns:1fr}.is-order .k-btn{min-width:44px}.is-swatch span{width:34px;height:34px}.is-search{font-size:16px;max-width:none}.k-table .is-wide{display:none}.is-narrow{display:block}.is-acts{flex-direction:column;align-items:flex-end}}
`

export const ensureStyles = () => {
  ensureKitStyles()
  addStyles('inbox-settings', CSS)
}
