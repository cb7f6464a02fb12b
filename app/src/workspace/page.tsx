import { addStyles } from '../kit/styles'

/**
 * The workspace area's chunk (app/src/workspace/routes.ts picks a page from it): workspace
 * settings, your workspaces, the dashboard, and the area's few styles (`wsx-`).
 */
addStyles(
  'workspace',
  `
.wsx-hours input[type=time]{font:inherit;font-size:14px;padding:5px 7px;border:1px solid #d1d5db;border-radius:6px;background:#fff}
.wsx-hours input[type=time]:disabled{background:#f3f4f6;color:#6b7280}
.wsx-hours input[type=checkbox]{width:18px;height:18px}
.wsx-hours input:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:1px}
.wsx-hours .k-error{display:block;margin-top:4px}
.wsx-list{list-style:none;margin:0 0 10px;padding:0;display:flex;flex-direction:column;gap:10px}
.wsx-list>li{display:flex;justify-content:space-between;gap:12px;flex-wrap:wrap;font-size:14px;border-bottom:1px solid #f1f5f9;padding-bottom:8px}
.wsx-list>li:last-child{border-bottom:0}
.wsx-list>li.wsx-request{display:flex;flex-direction:column;justify-content:flex-start;gap:8px}
.wsx-list p{margin:0}
.wsx-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:16px;align-items:start}
.wsx-meters{list-style:none;margin:0 0 10px;padding:0;display:flex;flex-direction:column;gap:12px}
.wsx-num{font-variant-numeric:tabular-nums;color:#374151}
.wsx-chart{margin:0}
.wsx-chart figcaption{font-size:14px;margin-bottom:6px}
.wsx-bars{display:flex;align-items:stretch;gap:2px;height:180px;padding-bottom:22px;position:relative}
.wsx-bars::after{content:'';position:absolute;left:0;right:0;bottom:22px;border-top:1px solid #d1d5db}
.wsx-day{flex:1;min-width:0;display:flex;flex-direction:column;position:relative}
.wsx-cols{flex:1;display:flex;align-items:flex-end;justify-content:center;gap:2px}
.wsx-cols span{display:block;width:38%;max-width:16px;min-height:0}
.wsx-in{background:#0f6e5f}
.wsx-out{background:#60a5fa}
.wsx-tick{position:absolute;bottom:-20px;left:50%;transform:translateX(-50%);font-size:11.5px;color:#4b5563;white-space:nowrap}
.wsx-t2{visibility:hidden}
.wsx-day:last-child .wsx-tick{left:auto;right:0;transform:none}
.wsx-legend{display:flex;align-items:center;gap:6px;font-size:13px;margin:0 0 4px;color:#374151}
.wsx-key{display:inline-block;width:12px;height:12px;border-radius:2px;margin-left:8px}
.wsx-key:first-child{margin-left:0}
.wsx-details{margin-top:10px;font-size:14px}
.wsx-details summary{cursor:pointer;color:var(--accent,#0f6e5f)}
.wsx-details summary:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:2px}
.wsx-details .k-table-wrap{margin-top:8px}
.wsx-details th[scope=row]{white-space:nowrap}
.wsx-aside{margin-left:auto;align-self:center;color:var(--accent,#0f6e5f);font-size:14px}
.wsx-scroll:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:2px}
@media (max-width:640px){.wsx-scroll{overflow-x:auto}.wsx-scroll>.k-table{display:table;overflow:visible;min-width:100%}}
.k-page .gs{background:#fff;border:1px solid var(--line,#e2e5ea);border-radius:10px;padding:16px 18px}
.wsx-open{display:inline-flex;align-items:center;gap:8px}
.wsx-phone{display:none}
@media (max-width:640px){.wsx-bars{height:140px}.wsx-t4{visibility:hidden}.wsx-hours input[type=time]{font-size:16px;min-height:44px;width:100%;box-sizing:border-box}.wsx-hours input[type=checkbox]{width:24px;height:24px}
.k-table-wrap:has(.wsx-hours){overflow:visible}
.k-table.wsx-hours{display:block;overflow:visible}
.k-table.wsx-hours thead{display:none}
.k-table.wsx-hours tbody{display:block}
.k-table.wsx-hours tr{display:grid;grid-template-columns:1fr 1fr;gap:8px 10px;padding:10px 12px;border-bottom:1px solid #f1f5f9}
.k-table.wsx-hours tr:last-child{border-bottom:0}
.k-table.wsx-hours th,.k-table.wsx-hours td{display:block;padding:0;border:0;background:none;align-self:center}
.wsx-phone{display:inline;font-size:14px}}
`,
)

export { DashboardPage } from './Dashboard'
export { WorkspaceSettingsPage } from './WorkspaceSettings'
export { WorkspacesPage } from './Workspaces'
