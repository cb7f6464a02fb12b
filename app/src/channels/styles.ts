/**
 * The channel pages' styles, added to the document the first time one of them renders. They live
 * in the pages' own chunk (loaded with `import()`), so they cost the first load nothing; a CSS file
 * imported from a lazy chunk would not be linked by the page.
 */
const CSS = `
.chs-page{height:100%;overflow:auto;box-sizing:border-box;padding:22px 28px 48px;color:var(--text,#1f2937)}
.chs-page>*{max-width:1100px}
.chs-page h1{font-size:22px;margin:0}
.chs-head{display:flex;align-items:center;gap:14px;flex-wrap:wrap;margin:4px 0 18px}
.chs-sub{font-size:16px;margin:28px 0 10px}
.chs-muted{color:var(--muted,#5b6676);font-size:13px}
.chs-back{display:inline-block;margin-bottom:10px;color:var(--accent,#0f6e5f);text-decoration:none;font-size:14px}
.chs-back:hover{text-decoration:underline}
.chs-table{width:100%;border-collapse:collapse;background:#fff;border:1px solid var(--line,#e2e5ea);border-radius:8px;overflow:hidden;font-size:14px}
.chs-table th{text-align:left;font-weight:600;color:#4b5563;background:#f9fafb;padding:9px 12px;border-bottom:1px solid var(--line,#e2e5ea)}
.chs-table td{padding:9px 12px;border-bottom:1px solid #f1f5f9;vertical-align:top}
.chs-table tr:last-child td{border-bottom:0}
.chs-table a{color:var(--accent,#0f6e5f);font-weight:500;text-decoration:none}
.chs-table a:hover,.chs-table a:focus-visible{text-decoration:underline}
.chs-badge{display:inline-flex;align-items:center;gap:6px;padding:2px 10px;border-radius:999px;font-size:12.5px;font-weight:500;white-space:nowrap}
.chs-dot{width:8px;height:8px;border-radius:50%;background:currentColor}
.chs-ok{background:#dcfce7;color:#166534}
.chs-wait{background:#fef3c7;color:#92400e}
.chs-bad{background:#fee2e2;color:#991b1b}
.chs-cards{list-style:none;padding:0;margin:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:12px}
.chs-card{display:flex;flex-direction:column;gap:4px;padding:14px 16px;border:1px solid var(--line,#e2e5ea);border-radius:10px;background:#fff;color:inherit;text-decoration:none;height:100%;box-sizing:border-box}
.chs-card:hover,.chs-card:focus-visible{border-color:var(--accent,#0f6e5f);box-shadow:0 0 0 3px var(--accent-soft,#e3f2ef);outline:none}
.chs-card span{color:var(--muted,#5b6676);font-size:13px}
.chs-stack{display:flex;flex-direction:column;gap:16px}
.chs-row{display:flex;align-items:center;gap:10px;flex-wrap:wrap;margin:0}
.chs-panel{background:#fff;border:1px solid var(--line,#e2e5ea);border-radius:10px;padding:16px 18px}
.chs-panel h2{font-size:15px;margin:0 0 10px}
.chs-form{display:flex;flex-direction:column;gap:12px;max-width:640px}
.chs-split .chs-form,.chs-form.chs-panel{max-width:none}
.chs-panel .chs-row,.chs-panel>.chs-btn{margin-top:12px}
.chs-form h2{margin:0}
.chs-form p{margin:0}
.chs-narrow>*{max-width:760px}
.chs-field{display:flex;flex-direction:column;gap:4px;min-width:0}
.chs-field label{font-size:13px;font-weight:600;color:#374151}
.chs-field input,.chs-field select,.chs-field textarea{font:inherit;font-size:14px;padding:7px 9px;border:1px solid #d1d5db;border-radius:6px;background:#fff;color:inherit;min-width:0}
.chs-field textarea{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px;resize:vertical}
.chs-field input:focus-visible,.chs-field select:focus-visible,.chs-field textarea:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:1px;border-color:var(--accent,#0f6e5f)}
.chs-invalid input,.chs-invalid select{border-color:#dc2626;background:#fef2f2}
.chs-error{color:#b91c1c;font-size:12.5px}
.chs-hint{color:var(--muted,#5b6676);font-size:12.5px}
.chs-check{display:flex;align-items:center;gap:8px;font-size:14px}
.chs-fieldset{border:1px solid var(--line,#e2e5ea);border-radius:8px;padding:8px 12px;display:flex;flex-direction:column;gap:6px}
.chs-fieldset legend{font-size:13px;font-weight:600;padding:0 4px}
.chs-grid3{display:grid;grid-template-columns:2fr 1fr 1fr;gap:10px 12px}
.chs-grid3eq{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:10px 12px}
@media (max-width:640px){.chs-grid3eq{grid-template-columns:1fr}}
.chs-btn{font:inherit;font-size:14px;padding:7px 14px;border-radius:6px;border:1px solid #d1d5db;background:#fff;color:#1f2937;cursor:pointer;align-self:flex-start}
.chs-btn:hover{background:#f3f4f6}
.chs-btn:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:2px}
.chs-btn:disabled{opacity:.6;cursor:default}
.chs-primary{background:var(--accent,#0f6e5f);border-color:var(--accent,#0f6e5f);color:#fff}
.chs-primary:hover{filter:brightness(.92)}
.chs-btn-danger{color:#b91c1c;border-color:#fecaca}
.chs-btn-danger:hover{background:#fef2f2}
.chs-danger{margin-top:28px;padding-top:16px;border-top:1px solid var(--line,#e2e5ea)}
.chs-notice{margin:0;padding:9px 12px;border-radius:6px;font-size:14px}
.chs-notice-ok{background:#f0fdf4;color:#166534;border:1px solid #bbf7d0}
.chs-notice-bad{background:#fef2f2;color:#991b1b;border:1px solid #fecaca}
.chs-notice-info{background:#eff6ff;color:#1e40af;border:1px solid #bfdbfe}
.chs-copy{display:flex;gap:8px;align-items:flex-start}
.chs-copy input,.chs-copy textarea{flex:1;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px;background:#f9fafb}
.chs-link{display:grid;grid-template-columns:minmax(300px,1fr) minmax(260px,1fr);gap:16px;align-items:start}
.chs-qr{display:flex;justify-content:center;padding:8px}
.chs-qr img{width:260px;height:260px;image-rendering:pixelated;border:1px solid var(--line,#e2e5ea);border-radius:8px}
.chs-qr-wait{width:260px;height:260px;display:flex;align-items:center;justify-content:center;background:#f3f4f6;border-radius:8px;color:var(--muted,#5b6676);font-size:14px}
.chs-code{font:600 28px/1.2 ui-monospace,Menlo,Consolas,monospace;letter-spacing:.12em;margin:6px 0 0}
.chs-dl{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;margin:0;font-size:14px}
.chs-dl dt{color:var(--muted,#5b6676)}
.chs-dl dd{margin:0}
.chs-color{display:flex;gap:8px;align-items:center}
.chs-color input[type=color]{width:44px;height:34px;padding:2px;cursor:pointer}
.chs-color input:not([type]){width:100px;font-family:ui-monospace,Menlo,Consolas,monospace}
.chs-split{display:grid;grid-template-columns:minmax(0,1fr) 400px;gap:20px;align-items:start}
.chs-preview-wrap{position:sticky;top:0}
.chs-preview-wrap h2{font-size:15px;margin:0 0 10px}
.chs-preview{position:relative;height:500px;border-radius:10px;background:repeating-linear-gradient(45deg,#f3f4f6 0 12px,#eef0f3 12px 24px);border:1px solid var(--line,#e2e5ea);overflow:hidden}
.chs-pv-panel{position:absolute;bottom:86px;width:330px;background:#fff;box-shadow:0 12px 40px rgba(0,0,0,.22);overflow:hidden;font-size:14px;color:#1f2937}
.chs-preview-right .chs-pv-panel,.chs-preview-right .chs-pv-launcher{right:16px}
.chs-preview-left .chs-pv-panel,.chs-preview-left .chs-pv-launcher{left:16px}
.chs-pv-head{color:#fff;padding:14px 16px;display:flex;gap:10px;align-items:center}
.chs-pv-titles{display:flex;flex-direction:column;gap:2px;min-width:0}
.chs-pv-logo{width:36px;height:36px;border-radius:50%;object-fit:cover;background:#fff}
.chs-logo{width:40px;height:40px;border-radius:8px;object-fit:cover;border:1px solid var(--line,#e2e5ea)}
.chs-pv-head .chs-pv-title{font-size:16px;font-weight:700;opacity:1}
.chs-pv-head span{font-size:12px;opacity:.9}
.chs-pv-body{padding:14px 16px;display:flex;flex-direction:column;gap:8px}
.chs-pv-body p{margin:0 0 4px}
.chs-pv-input{border:1px solid #d1d5db;border-radius:6px;padding:7px 9px;color:#9ca3af;font-size:13px}
.chs-pv-consent{font-size:12.5px;display:flex;gap:6px;align-items:center}
.chs-pv-box{width:13px;height:13px;border:1px solid #9ca3af;border-radius:3px;display:inline-block}
.chs-pv-start{color:#fff;text-align:center;padding:9px;font-weight:600}
.chs-pv-launcher{position:absolute;bottom:16px;width:58px;height:58px;border-radius:50%;color:#fff;display:flex;align-items:center;justify-content:center;box-shadow:0 6px 20px rgba(0,0,0,.25)}
.chs-history{margin-top:12px}
.chs-history .chs-row{align-items:flex-end}
.chs-end{align-self:flex-end}
.chs-once{border-color:#f59e0b;background:#fffbeb}
@media (max-width:900px){.chs-split,.chs-link{grid-template-columns:1fr}.chs-grid3{grid-template-columns:1fr}}
@media (max-width:640px){.chs-page{padding:14px 12px 40px}.chs-split>*,.chs-link>*,.chs-stack>*{min-width:0}.chs-panel{padding:14px 12px}.chs-field input,.chs-field select,.chs-field textarea{font-size:16px}.chs-btn{min-height:44px}.chs-copy{flex-direction:column;align-items:stretch}.chs-copy .chs-btn{align-self:flex-start}.chs-table-wrap,.chs-table{display:block;overflow-x:auto}.chs-dl{grid-template-columns:1fr;gap:2px}.chs-dl dd{margin-bottom:8px;overflow-wrap:anywhere}.chs-qr img,.chs-qr-wait{width:min(260px,100%);height:auto;aspect-ratio:1}.chs-pv-panel{width:auto;left:12px;right:12px}}
`

let added = false
export const ensureStyles = () => {
  if (added || typeof document === 'undefined') return
  added = true
  const el = document.createElement('style')
  el.dataset.channels = ''
  el.textContent = CSS
  document.head.append(el)
}
