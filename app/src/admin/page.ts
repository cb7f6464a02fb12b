/** The admin pages' one entry (app/src/admin/routes.ts): API keys, the audit log, billing and plan. */
export { default as ApiKeysPage } from './ApiKeysPage'
export { default as AuditPage } from './AuditPage'
export { default as BillingPage } from './BillingPage'
