/** The shapes of spec 1 §4.2 the people pages read (as actors/admin/*.ts answer them). */

export interface Member {
  readonly id: number
  readonly user: { readonly id: number; readonly name: string; readonly email: string }
  readonly role: { readonly id: number; readonly name: string; readonly is_admin: boolean }
  readonly status: 'active' | 'disabled'
  readonly disabled_reason: string | null
  readonly channel_access: 'all' | 'selected'
  readonly channel_ids: readonly number[]
  readonly team_ids: readonly number[]
  readonly view_all: boolean
  readonly reply_initial: string
  readonly is_owner: boolean
  readonly is_me: boolean
  readonly editable: boolean
  readonly joined_at: string
}

export interface Invitation {
  readonly id: number
  readonly email: string
  readonly role: { readonly id: number; readonly name: string }
  readonly team_ids: readonly number[]
  readonly view_all: boolean
  readonly channel_access: 'all' | 'selected'
  readonly channel_ids: readonly number[]
  readonly status: 'pending' | 'expired' | 'accepted' | 'cancelled'
  readonly invited_by: { readonly id: number; readonly name: string } | null
  readonly mail: 'off' | 'sent' | 'failed'
  readonly sent_at: string | null
  readonly expires_at: string
  readonly created_at: string
}

export interface Role {
  readonly id: number
  readonly name: string
  readonly permissions: readonly string[]
  readonly is_admin: boolean
  readonly is_owner: boolean
  readonly editable: boolean
  readonly usage: { readonly members: number; readonly invitations: number }
  readonly created_at: string
}

export interface PermissionGroup {
  readonly menu: string
  readonly label: string
  readonly permissions: readonly { readonly key: string; readonly label: string }[]
}

export type TeamType = 'frontline' | 'backoffice'

export interface Team {
  readonly id: number
  readonly type: TeamType
  readonly name: string
  readonly description: string
  readonly member_ids: readonly number[]
  readonly members: readonly { readonly id: number; readonly name: string; readonly email: string }[]
}

export interface Channel {
  readonly id: number
  readonly name: string
  readonly type: string
}

export interface UsersQuota {
  readonly used: number
  readonly limit: number
}
