/**
 * The styles of the app's pages beyond the inbox (channels, settings, administration), added to
 * the document the first time one of them renders. They live in those pages' chunks (loaded with
 * `import()`), so they cost the first load nothing; a CSS file imported from a lazy chunk would
 * not be linked by the page. Class names start with `k-`; an area's own styles add their own
 * prefix (channels: `chs-`).
 */
const CSS = `
.k-page{height:100%;overflow:auto;box-sizing:border-box;padding:22px 28px 48px;color:var(--text,#1f2937)}
.k-page>*{max-width:1100px}
.k-page h1{font-size:22px;margin:0}
.k-head{display:flex;align-items:center;gap:14px;flex-wrap:wrap;margin:4px 0 18px}
.k-sub{font-size:16px;margin:28px 0 10px}
.k-muted{color:var(--muted,#5b6676);font-size:13px}
.k-back{display:inline-block;margin-bottom:10px;color:var(--accent,#0f6e5f);text-decoration:none;font-size:14px}
.k-back:hover{text-decoration:underline}
.k-table{width:100%;border-collapse:collapse;background:#fff;border:1px solid var(--line,#e2e5ea);border-radius:8px;overflow:hidden;font-size:14px}
.k-table th{text-align:left;font-weight:600;color:#4b5563;background:#f9fafb;padding:9px 12px;border-bottom:1px solid var(--line,#e2e5ea)}
.k-table td{padding:9px 12px;border-bottom:1px solid #f1f5f9;vertical-align:top}
.k-table tr:last-child td{border-bottom:0}
.k-table a{color:var(--accent,#0f6e5f);font-weight:500;text-decoration:none}
.k-table a:hover,.k-table a:focus-visible{text-decoration:underline}
.k-badge{display:inline-flex;align-items:center;gap:6px;padding:2px 10px;border-radius:999px;font-size:12.5px;font-weight:500;white-space:nowrap}
.k-dot{width:8px;height:8px;border-radius:50%;background:currentColor}
.k-ok{background:#dcfce7;color:#166534}
.k-wait{background:#fef3c7;color:#92400e}
.k-bad{background:#fee2e2;color:#991b1b}
.k-cards{list-style:none;padding:0;margin:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:12px}
.k-card{display:flex;flex-direction:column;gap:4px;padding:14px 16px;border:1px solid var(--line,#e2e5ea);border-radius:10px;background:#fff;color:inherit;text-decoration:none;height:100%;box-sizing:border-box}
.k-card:hover,.k-card:focus-visible{border-color:var(--accent,#0f6e5f);box-shadow:0 0 0 3px var(--accent-soft,#e3f2ef);outline:none}
.k-card span{color:var(--muted,#5b6676);font-size:13px}
.k-stack{display:flex;flex-direction:column;gap:16px}
.k-row{display:flex;align-items:center;gap:10px;flex-wrap:wrap;margin:0}
.k-panel{background:#fff;border:1px solid var(--line,#e2e5ea);border-radius:10px;padding:16px 18px}
.k-panel h2{font-size:15px;margin:0 0 10px}
.k-form{display:flex;flex-direction:column;gap:12px;max-width:640px}
.k-form.k-panel{max-width:none}
.k-panel .k-row,.k-panel>.k-btn{margin-top:12px}
.k-form h2{margin:0}
.k-form p{margin:0}
.k-narrow>*{max-width:760px}
.k-field{display:flex;flex-direction:column;gap:4px;min-width:0}
.k-field label{font-size:13px;font-weight:600;color:#374151}
.k-field input,.k-field select,.k-field textarea{font:inherit;font-size:14px;padding:7px 9px;border:1px solid #d1d5db;border-radius:6px;background:#fff;color:inherit;min-width:0}
.k-field textarea{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px;resize:vertical}
.k-field input:focus-visible,.k-field select:focus-visible,.k-field textarea:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:1px;border-color:var(--accent,#0f6e5f)}
.k-invalid input,.k-invalid select{border-color:#dc2626;background:#fef2f2}
.k-error{color:#b91c1c;font-size:12.5px}
.k-hint{color:var(--muted,#5b6676);font-size:12.5px}
.k-check{display:flex;align-items:center;gap:8px;font-size:14px}
.k-fieldset{border:1px solid var(--line,#e2e5ea);border-radius:8px;padding:8px 12px;display:flex;flex-direction:column;gap:6px}
.k-fieldset legend{font-size:13px;font-weight:600;padding:0 4px}
.k-grid3{display:grid;grid-template-columns:2fr 1fr 1fr;gap:10px 12px}
.k-grid3eq{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:10px 12px}
@media (max-width:640px){.k-grid3eq{grid-template-columns:1fr}}
.k-btn{font:inherit;font-size:14px;padding:7px 14px;border-radius:6px;border:1px solid #d1d5db;background:#fff;color:#1f2937;cursor:pointer;align-self:flex-start}
.k-btn:hover{background:#f3f4f6}
.k-btn:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:2px}
.k-btn:disabled{opacity:.6;cursor:default}
.k-primary{background:var(--accent,#0f6e5f);border-color:var(--accent,#0f6e5f);color:#fff}
.k-primary:hover{filter:brightness(.92);background:var(--accent,#0f6e5f)}
.k-btn-danger{color:#b91c1c;border-color:#fecaca}
.k-btn-danger:hover{background:#fef2f2}
.k-danger{margin-top:28px;padding-top:16px;border-top:1px solid var(--line,#e2e5ea)}
.k-notice{margin:0;padding:9px 12px;border-radius:6px;font-size:14px}
.k-notice-ok{background:#f0fdf4;color:#166534;border:1px solid #bbf7d0}
.k-notice-bad{background:#fef2f2;color:#991b1b;border:1px solid #fecaca}
.k-notice-info{background:#eff6ff;color:#1e40af;border:1px solid #bfdbfe}
.k-copy{display:flex;gap:8px;align-items:flex-start}
.k-copy input,.k-copy textarea{flex:1;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px;background:#f9fafb}
.k-dl{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;margin:0;font-size:14px}
.k-dl dt{color:var(--muted,#5b6676)}
.k-dl dd{margin:0}
.k-end{align-self:flex-end}
.k-field textarea.k-prose{font-family:inherit;font-size:14px}
.k-meter{display:flex;flex-direction:column;gap:4px;font-size:14px}
.k-meter-head{display:flex;justify-content:space-between;gap:8px;flex-wrap:wrap}
.k-bar{height:8px;border-radius:4px;background:#e5e7eb;overflow:hidden}
.k-bar span{display:block;height:100%;background:var(--accent,#0f6e5f)}
.k-bar span.k-near{background:#b45309}
.k-bar span.k-full{background:#b91c1c}
.k-confirm{display:inline-flex;align-items:center;gap:8px;flex-wrap:wrap;font-size:14px}
@media (max-width:900px){.k-grid3{grid-template-columns:1fr}}
@media (max-width:640px){.k-page{padding:14px 12px 40px}.k-panel{padding:14px 12px}.k-field input,.k-field select,.k-field textarea{font-size:16px}.k-btn{min-height:44px}.k-copy{flex-direction:column;align-items:stretch}.k-copy .k-btn{align-self:flex-start}.k-table-wrap,.k-table{display:block;overflow-x:auto}.k-dl{grid-template-columns:1fr;gap:2px}.k-dl dd{margin-bottom:8px;overflow-wrap:anywhere}}
`

const added = new Set<string>()

/** Adds `css` to the document once per `name` (the kit's own under `kit`). */
export const addStyles = (name: string, css: string) => {
  if (added.has(name) || typeof document === 'undefined') return
  added.add(name)
  const el = document.createElement('style')
  el.dataset.styles = name
  el.textContent = css
  document.head.append(el)
}

export const ensureKitStyles = () => addStyles('kit', CSS)
