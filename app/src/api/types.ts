import type { components, paths } from './schema'

/**
 * The inbox's resources as the app names them. Conversations and messages come from the server's
 * response schemas (actors/inbox/schemas.ts, through the generated schema.d.ts); what is still
 * written by hand is marked so.
 */
type Schemas = components['schemas']

export type InteractionItem = Schemas['InteractionItem']
export type InteractionDetail = Schemas['Interaction']
export type Message = Schemas['Message']
export type Reaction = Message['reactions'][number]
export type CustomFieldValue = InteractionDetail['custom_fields'][number]
export type Status = InteractionItem['status']

/** The list's tabs (the `tab` query of `GET /v1/interactions`). */
export type Tab = NonNullable<NonNullable<paths['/v1/interactions']['get']['parameters']['query']>['tab']>

export interface Named {
  readonly id: number
  readonly name: string
}

/** By hand: the templates routes declare no response schema yet. */
export interface Template {
  readonly id: number
  readonly name: string
  readonly shortcut?: string | null
  readonly body?: string
  readonly rendered?: string
}
