import { Layer } from 'effect'
import * as Channel from './channel'
import * as Conversation from './conversation'
import * as Workspace from './workspace'

/** Every actor type of a node, each a service; requires the store, bus and rate limiter. */
export const layer = Layer.mergeAll(Conversation.layer, Workspace.layer, Channel.layer)
