import type { Route } from '../route'
import * as ApiKeyRoutes from './apiKeys'
import * as AppRoutes from './app'
import * as AuditLogRoutes from './auditLogs'
import * as AuthRoutes from './auth'
import * as BillingRoutes from './billing'
import * as BroadcastRoutes from './broadcasts'
import * as CategoryRoutes from './categories'
import * as ChannelApiRoutes from './channelApi'
import * as ChannelIconRoutes from './channelIcons'
import * as ChannelRoutes from './channels'
import * as ClientRoutes from './clients'
import * as ContactRoutes from './contacts'
import * as ContactCsvRoutes from './contactsCsv'
import * as CustomFieldRoutes from './customFields'
import * as DashboardRoutes from './dashboard'
import * as EmailRoutes from './email'
import * as GroupRoutes from './groups'
import * as IdentityRoutes from './identity'
import * as InteractionRoutes from './interactions'
import * as InvitationRoutes from './invitations'
import * as KbRoutes from './kb'
import * as LabelRuleRoutes from './labelRules'
import * as LabelRoutes from './labels'
import * as LivechatChannelRoutes from './livechatChannels'
import * as LivechatVisitorRoutes from './livechatVisitor'
import * as LivechatWidgetRoutes from './livechatWidget'
import * as MediaRoutes from './media'
import * as MemberRoutes from './members'
import * as MessageRoutes from './messages'
import * as MsgappRoutes from './msgapp'
import * as NotificationRoutes from './notifications'
import * as PasskeyRoutes from './passkeys'
import * as PipelineRoutes from './pipeline'
import * as PlanRequestRoutes from './planRequests'
import * as ProfileRoutes from './profile'
import * as PublicRoutes from './public'
import * as RealtimeRoutes from './realtime'
import * as ReportRoutes from './reports'
import * as RoleRoutes from './roles'
import * as SegmentRoutes from './segments'
import * as SettingsRoutes from './settings'
import * as SetupRoutes from './setup'
import * as TeamRoutes from './teams'
import * as TemplateRoutes from './templates'
import * as TicketRoutes from './tickets'
import * as TransferRoutes from './transfers'
import * as WorkspaceRoutes from './workspaces'

/**
 * The route table: one module per spec section, in the order the OpenAPI document lists them. A
 * new domain adds its routes module here (one import, one line) and nothing else in http/.
 */
export const routes: readonly Route[] = [
  ...AuthRoutes.routes,
  ...IdentityRoutes.routes,
  ...PasskeyRoutes.routes,
  ...ProfileRoutes.routes,
  ...PublicRoutes.routes,
  ...SetupRoutes.routes,
  ...ApiKeyRoutes.routes,
  ...RealtimeRoutes.routes,
  ...NotificationRoutes.routes,
  ...AuditLogRoutes.routes,
  ...BillingRoutes.routes,
  ...DashboardRoutes.routes,
  ...InvitationRoutes.routes,
  ...MemberRoutes.routes,
  ...PlanRequestRoutes.routes,
  ...RoleRoutes.routes,
  ...SettingsRoutes.routes,
  ...TeamRoutes.routes,
  ...TransferRoutes.routes,
  ...WorkspaceRoutes.routes,
  ...InteractionRoutes.routes,
  ...MessageRoutes.routes,
  ...MediaRoutes.routes,
  ...GroupRoutes.routes,
  ...CategoryRoutes.routes,
  ...TemplateRoutes.routes,
  ...LabelRuleRoutes.routes,
  ...TicketRoutes.routes,
  ...ReportRoutes.routes,
  ...ContactCsvRoutes.routes,
  ...ContactRoutes.routes,
  ...LabelRoutes.routes,
  ...CustomFieldRoutes.routes,
  ...PipelineRoutes.routes,
  ...ClientRoutes.routes,
  ...KbRoutes.routes,
  ...SegmentRoutes.routes,
  ...BroadcastRoutes.routes,
  ...ChannelRoutes.routes,
  ...ChannelApiRoutes.routes,
  ...EmailRoutes.routes,
  ...MsgappRoutes.routes,
  ...LivechatChannelRoutes.routes,
  ...ChannelIconRoutes.routes,
  ...LivechatVisitorRoutes.routes,
  ...LivechatWidgetRoutes.routes,
  ...AppRoutes.routes,
]
