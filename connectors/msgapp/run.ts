import type { SqlClient } from '@effect/sql'
import type { Effect } from 'effect'
import type { EventWindows } from '../../actors/broadcasts/events'
import type { ChannelActor } from '../../actors/channels/ChannelActor'
import type { ConversationActor } from '../../actors/inbox/ConversationActor'
import type { Bus } from '../../engine/bus/Bus'
import type { WallClock } from '../../engine/clock'
import type { Config } from '../../engine/config'
import type { Log } from '../../engine/log'
import type { FileStorage } from '../../engine/storage/FileStorage'

/** What a number's session runs its effects with (the supervisor's runtime). */
export type Needs =
  | SqlClient.SqlClient
  | Config
  | Log
  | ConversationActor
  | ChannelActor
  | FileStorage
  | Bus
  | WallClock
  | EventWindows

export type Run = <A, E>(e: Effect.Effect<A, E, Needs>) => Promise<A>
