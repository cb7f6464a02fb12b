/**
 * Resources whose routes declare no response schema in the OpenAPI document yet (their `data` is
 * `unknown` in schema.d.ts): the shapes the app reads, written from the presenters
 * (actors/inbox/conversations.ts `presentItem`/`presentDetail`, ConversationActor `presentMessage`)
 * and exercised by the browser tests.
 */
export type Tab = 'unreplied' | 'new' | 'waiting' | 'replied' | 'solved' | 'closed'
export type Status = 'open' | 'solved' | 'closed'

export interface Named {
  readonly id: number
  readonly name: string
}

export interface InteractionItem {
  readonly id: number
  readonly kind: 'chat' | 'group'
  readonly status: Status
  readonly reply_state: string
  readonly sla: {
    readonly level: 'warn' | 'breach'
    readonly minutes: number
    readonly due_at: string
  } | null
  readonly subject: string | null
  readonly preview: string | null
  readonly unread_count: number
  readonly channel: { readonly id: number; readonly type: string; readonly name: string } | null
  readonly contact: { readonly id: number; readonly name: string; readonly avatar_url: string | null } | null
  readonly group: Named | null
  readonly team: Named | null
  readonly assignee: (Named & { readonly avatar_url: string | null }) | null
  readonly category: Named | null
  readonly picked_up: boolean
  readonly last_message_at: string | null
  readonly created_at: string
  readonly updated_at: string
}

export interface CustomFieldValue {
  readonly id: number
  readonly name: string
  readonly value: unknown
}

export interface InteractionDetail extends InteractionItem {
  readonly contact:
    | (InteractionItem['contact'] & {
        readonly details?: {
          readonly phone: string | null
          readonly email: string | null
          readonly labels: readonly (Named & { readonly color: string })[]
        }
        readonly custom_fields?: readonly CustomFieldValue[]
      })
    | null
  readonly notes_count: number
  readonly custom_fields: readonly CustomFieldValue[]
  readonly ai_summary: string | null
}

export interface Reaction {
  readonly emoji: string
  readonly from: string
  readonly name?: string | null
  readonly user_id?: number
}

export interface Message {
  readonly id: number
  readonly interaction_id: number
  readonly seq: number
  readonly direction: 'in' | 'out'
  readonly type: string
  readonly body: string
  readonly media: {
    readonly url: string
    readonly name: string | null
    readonly mime: string | null
    readonly size: number | null
  } | null
  readonly reply_to: {
    readonly id: number
    readonly type: string | null
    readonly body: string
    readonly sender: { readonly name: string | null }
  } | null
  readonly location: {
    readonly latitude?: number
    readonly longitude?: number
    readonly name?: string
    readonly address?: string
  } | null
  readonly shared_contact: {
    readonly name?: string
    readonly phone?: string
    readonly phones?: readonly string[]
  } | null
  readonly email: {
    readonly subject: string | null
    readonly html: string | null
    readonly cc: readonly string[]
    readonly attachments: readonly {
      readonly index: number
      readonly name: string
      readonly size: number
      readonly url: string
    }[]
  } | null
  readonly source: string | null
  readonly sender: {
    readonly name: string | null
    readonly user_id: number | null
    readonly jid?: string | null
  }
  readonly status: string
  readonly error: string | null
  readonly reactions: readonly Reaction[]
  readonly client_id: string | null
  readonly edited_at: string | null
  readonly deleted_at: string | null
  readonly sent_at: string | null
  readonly created_at: string
}

export interface Template {
  readonly id: number
  readonly name: string
  readonly shortcut?: string | null
  readonly body?: string
  readonly rendered?: string
}
