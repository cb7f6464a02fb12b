import { defineTexts } from '../kit'
import { addStyles, ensureKitStyles } from '../kit/styles'
import { type TextKey, texts } from './texts'

/** What the people pages take beyond the kit (app/src/kit): their texts, styles and events. */
export const useTr = defineTexts(texts)

/** A permission's one-line description, or nothing for one this app does not know yet. */
export const permissionHint = (key: string): TextKey | null =>
  `pp.perm.${key}` in texts ? (`pp.perm.${key}` as TextKey) : null

const CSS = `
.pp-marks{display:inline-flex;gap:4px;margin-left:6px;vertical-align:middle}
.pp-mark{background:#e0e7ff;color:#3730a3}
.pp-email{display:block;color:var(--muted,#5b6676);font-size:13px;overflow-wrap:anywhere}
.pp-actions{display:flex;gap:8px;flex-wrap:wrap;align-items:center}
.pp-perms{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:12px;align-items:start}
.pp-perm{display:grid;grid-template-columns:auto 1fr;gap:2px 8px;align-items:start;font-size:14px;padding:4px 0}
.pp-perm input{margin-top:3px}
.pp-perm small{grid-column:2;color:var(--muted,#5b6676);font-size:12.5px}
.pp-perm-off{opacity:.75}
.pp-checks{display:flex;flex-wrap:wrap;gap:4px 18px}
.pp-radio{display:flex;align-items:center;gap:8px;font-size:14px}
@media (max-width:640px){.pp-perms{grid-template-columns:1fr}.pp-radio,.pp-checks .k-check{min-height:32px}
.pp-rows.k-table{display:block;overflow:visible}
.pp-rows thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.pp-rows tbody,.pp-rows tr,.pp-rows td{display:block}
.pp-rows tr{padding:8px 0;border-bottom:1px solid var(--line,#e2e5ea)}
.pp-rows tr:last-child{border-bottom:0}
.pp-rows td{border:0;padding:3px 12px}
.pp-rows td[data-label]::before{content:attr(data-label) ": ";color:var(--muted,#5b6676);font-size:12.5px}}
`

export const ensureStyles = () => {
  ensureKitStyles()
  addStyles('people', CSS)
}
