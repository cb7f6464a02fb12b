import { Layer } from 'effect'
import * as ClusterActor from '../engine/cluster/ClusterActor'
import * as AppendWriter from '../store/appendWriter'
import * as Workspace from './admin/WorkspaceActor'
import type { AiProvider } from './ai/AiProvider'
import { windowsLayer as broadcastWindowsLayer, type EventWindows } from './broadcasts/events'
import * as BroadcastNudge from './broadcasts/nudge'
import * as ApiThreads from './channels/apiThreads'
import * as Channel from './channels/ChannelActor'
import type { MailServers } from './channels/MailServers'
import type { NumberLink } from './channels/msgapp'
import * as Conversation from './inbox/ConversationActor'
import type { ConversationTickets } from './inbox/conversationTickets'
import { conversationTicketsLayer } from './tickets/conversationSide'
import * as Ticket from './tickets/TicketActor'

/**
 * Every actor type of a node, each a service, with the node's group-commit writer of messages;
 * requires the store, bus and rate limiter.
 */
export const layer = Layer.mergeAll(
  Conversation.layer,
  Workspace.layer,
  Channel.layer,
  Ticket.layer,
  conversationTicketsLayer,
  ApiThreads.layer,
  BroadcastNudge.layer,
  broadcastWindowsLayer,
).pipe(Layer.provide(AppendWriter.layer))

/**
 * The same actors spread over the nodes of a cluster (each entity on one node at a time); also
 * requires `Cluster.layer`. Each module's tagged errors cross nodes as their own classes.
 */
export const clusterLayer = Layer.mergeAll(
  ClusterActor.layer(Conversation.ConversationActor, Conversation.definition, { errors: [Conversation] }),
  ClusterActor.layer(Workspace.WorkspaceActor, Workspace.definition, { errors: [Workspace] }),
  ClusterActor.layer(Channel.ChannelActor, Channel.definition, { errors: [Channel] }),
  ClusterActor.layer(Ticket.TicketActor, Ticket.definition, { errors: [Ticket] }),
  conversationTicketsLayer,
  ApiThreads.layer,
  BroadcastNudge.layer,
  broadcastWindowsLayer,
).pipe(Layer.provide(AppendWriter.layer))

/**
 * What the domain offers handlers (http/route.ts `Services`): every area's actors and the ports
 * its operations need (their adapters are provided by http/app.ts). A new area with an actor adds
 * its tag here, beside its layer above, and nothing in http/ changes.
 */
export type DomainServices =
  | Conversation.ConversationActor
  | Workspace.WorkspaceActor
  | Channel.ChannelActor
  | Ticket.TicketActor
  | ConversationTickets
  | ApiThreads.ApiThreads
  | BroadcastNudge.BroadcastNudge
  | EventWindows
  | MailServers
  | NumberLink
  | AiProvider
