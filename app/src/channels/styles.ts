import { addStyles, ensureKitStyles } from '../kit/styles'

/** The channel pages' own styles (the live-chat preview, the QR code, …), on top of the kit's. */
const CSS = `
.chs-split .k-form{max-width:none}
.chs-link{display:grid;grid-template-columns:minmax(300px,1fr) minmax(260px,1fr);gap:16px;align-items:start}
.chs-qr{display:flex;justify-content:center;padding:8px}
.chs-qr img{width:260px;height:260px;image-rendering:pixelated;border:1px solid var(--line,#e2e5ea);border-radius:8px}
.chs-qr-wait{width:260px;height:260px;display:flex;align-items:center;justify-content:center;background:#f3f4f6;border-radius:8px;color:var(--muted,#5b6676);font-size:14px}
.chs-code{font:600 28px/1.2 ui-monospace,Menlo,Consolas,monospace;letter-spacing:.12em;margin:6px 0 0}
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
.chs-history .k-row{align-items:flex-end}
.chs-once{border-color:#f59e0b;background:#fffbeb}
.chs-settings,.k-form.chs-email-edit,.k-form.chs-fallback{max-width:760px}
.chs-day{display:grid;grid-template-columns:11em 1fr;align-items:start;gap:6px 12px;padding:4px 0;border-top:1px solid #f1f5f9}
.chs-day:first-of-type{border-top:0}
.chs-day-name{min-height:34px}
.chs-day-times{display:flex;align-items:flex-start;gap:8px;min-height:34px;line-height:34px}
.chs-time{display:flex;flex-direction:column;gap:2px;line-height:normal}
.chs-time input{font:inherit;font-size:14px;width:6.5em;padding:7px 9px;border:1px solid #d1d5db;border-radius:6px;font-variant-numeric:tabular-nums}
.chs-time input:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:1px;border-color:var(--accent,#0f6e5f)}
.chs-time.k-invalid input{border-color:#dc2626;background:#fef2f2}
@media (max-width:900px){.chs-split,.chs-link{grid-template-columns:1fr}}
@media (max-width:640px){.chs-day{grid-template-columns:1fr;gap:2px}.chs-day-times{line-height:44px}.chs-time input{font-size:16px;min-height:44px;box-sizing:border-box}.chs-day-name{min-height:44px}.chs-split>*,.chs-link>*,.k-stack>*{min-width:0}.chs-qr img,.chs-qr-wait{width:min(260px,100%);height:auto;aspect-ratio:1}.chs-pv-panel{width:auto;left:12px;right:12px}}
`

export const ensureStyles = () => {
  ensureKitStyles()
  addStyles('channels', CSS)
}
