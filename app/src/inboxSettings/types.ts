import type { paths } from '../api/schema'

/** The records of the inbox settings as the API's schema types them (spec 2 §4.2, §4.4). */
type ListOf<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': { data: readonly (infer T)[] } } } } }
}
  ? T
  : never

export type Template = ListOf<'/v1/templates'>
export type Category = ListOf<'/v1/conversation-categories'>
export type Label = ListOf<'/v1/labels'>
export type Rule = ListOf<'/v1/msgapp-label-rules'>
export type RuleAction = Rule['action']
export type CustomField = ListOf<'/v1/custom-fields'>

/** The entities with custom fields and the fields' types, in the order the page offers them. */
export const ENTITIES = ['contact', 'interaction', 'ticket', 'lead', 'client'] as const
export type Entity = (typeof ENTITIES)[number]
export const FIELD_TYPES = ['text', 'textarea', 'number', 'date', 'select', 'checkbox'] as const
export type FieldType = (typeof FIELD_TYPES)[number]
