import { SqlClient } from '@effect/sql'
import { Context, Deferred, Effect, FiberId, Layer } from 'effect'
import { andThen } from '../../engine/step'
import * as ChannelApi from '../../store/channelApi'
import type { ChannelRow } from '../../store/channels'
import * as Contacts from '../../store/contacts'

/**
 * The API channel's threads (spec 1 §4.7): the customer's `conversation_id` names a conversation
 * of ours, opened with its contact on first use.
 */

const THREAD_CACHE_SIZE = 10_000

/**
 * Threads this node has seen, least recently used first. A thread's conversation never changes
 * while the thread exists, so an entry is a safe hint: a conversation deleted meanwhile (its thread
 * goes with it) is noticed by the append, which `forget`s it and starts over. The contact kept is
 * the one this node last wrote or read. A service of the node (not module state), so every node of
 * a process, and every database, has its own.
 */
export interface ApiThreadsShape {
  readonly get: (channelId: number, externalId: string) => ChannelApi.ThreadRow | undefined
  readonly keep: (t: ChannelApi.ThreadRow) => void
  readonly forget: (channelId: number, externalId: string) => void
  /**
   * `first`, unless a look-up of the same thread is under way on this node: then, once that one
   * has ended (whichever way), `after`. A node's cache starts empty, so without this every message
   * of a busy thread arriving before its first look-up ended read (and, with a changed contact,
   * rewrote) the same row: a storm on a node just started (2,000 msg/s over 40 threads, PostgreSQL's
   * statement log) opened 194 thread transactions against 90 with it, 80 of them the seed's and
   * the first contact's one per thread.
   */
  readonly single: <A, E, R>(
    channelId: number,
    externalId: string,
    first: Effect.Effect<A, E, R>,
    after: Effect.Effect<A, E, R>,
  ) => Effect.Effect<A, E, R>
}

export class ApiThreads extends Context.Tag('kotak/ApiThreads')<ApiThreads, ApiThreadsShape>() {}

const keyOf = (channelId: number, externalId: string) => `${channelId}\u0000${externalId}`

export const make = (): ApiThreadsShape => {
  const threads = new Map<string, ChannelApi.ThreadRow>()
  const looking = new Map<string, Deferred.Deferred<void>>()
  return {
    get: (channelId, externalId) => threads.get(keyOf(channelId, externalId)),
    keep: (t) => {
      const k = keyOf(t.channel_id, t.external_id)
      threads.delete(k)
      threads.set(k, t)
      if (threads.size > THREAD_CACHE_SIZE) threads.delete(threads.keys().next().value!)
    },
    forget: (channelId, externalId) => {
      threads.delete(keyOf(channelId, externalId))
    },
    single: (channelId, externalId, first, after) =>
      Effect.suspend(() => {
        const k = keyOf(channelId, externalId)
        const under = looking.get(k)
        if (under) return Effect.zipRight(Deferred.await(under), after)
        // Made and registered in one synchronous step: no other fiber runs in between.
        const done = Deferred.unsafeMake<void>(FiberId.none)
        looking.set(k, done)
        return Effect.ensuring(
          first,
          Effect.suspend(() => {
            if (looking.get(k) === done) looking.delete(k)
            return Deferred.succeed(done, undefined)
          }),
        )
      }),
  }
}

export const layer: Layer.Layer<ApiThreads> = Layer.sync(ApiThreads, make)

/** Drops a thread this node remembers (its conversation turned out to be gone). */
export const forgetThread = (channelId: number, externalId: string) =>
  andThen(ApiThreads, (threads) => {
    threads.forget(channelId, externalId)
    return Effect.void
  })

/**
 * The conversation of the customer's `conversation_id`, created (with its contact) on first use;
 * `created` when this message opened it.
 */
export const threadFor = (
  channel: ChannelRow,
  externalId: string,
  contact: Readonly<Record<string, unknown>>,
) =>
  // A step (engine/step.ts): on the request path the known thread is found without a fiber.
  andThen(ApiThreads, (threads) => {
    const same = (t: ChannelApi.ThreadRow) => Object.entries(contact).every(([k, v]) => t.contact[k] === v)
    const look = (hot: ChannelApi.ThreadRow | undefined) =>
      Effect.gen(function* () {
        const known = hot ? null : yield* ChannelApi.threadByExternalId(channel.id, externalId)
        if (known && same(known)) {
          threads.keep(known)
          return { thread: known, created: false }
        }
        const made = yield* openThread(channel, externalId, contact)
        threads.keep(made.thread)
        return made
      })
    // The common case, a known conversation whose contact did not change: nothing to read or
    // write per inbound message once this node has seen the thread, and no generator either.
    const hot = threads.get(channel.id, externalId)
    if (hot && same(hot)) return Effect.succeed({ thread: hot, created: false })
    // Messages of a thread being looked up wait for that look-up, then find the thread in the cache
    // or (another contact, or the look-up failed) look it up themselves.
    const after = Effect.suspend(() => {
      const now = threads.get(channel.id, externalId)
      return now && same(now) ? Effect.succeed({ thread: now, created: false }) : look(now)
    })
    return threads.single(channel.id, externalId, look(hot), after)
  })

/** The contact record of the customer's `contact` object (named by what it carries). */
const contactOf = (externalId: string, c: Readonly<Record<string, unknown>>) => {
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null)
  const email = text(c.email)
  const phone = text(c.phone)
  return { name: (text(c.name) ?? email ?? phone ?? text(c.id) ?? externalId).slice(0, 200), email, phone }
}

/**
 * The thread with the contact as the customer's system now describes it, opened when new.
 * Concurrent first messages agree on one conversation: the thread row's primary key decides, and
 * the loser's empty conversation is removed in its own transaction.
 */
const openThread = (channel: ChannelRow, externalId: string, contact: Readonly<Record<string, unknown>>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const found = yield* ChannelApi.mergeThreadContact(channel.id, externalId, contact)
        if (found) return { thread: found, created: false }
        const conversationId = yield* ChannelApi.insertThreadConversation(channel.workspace_id, channel.id)
        const made = yield* ChannelApi.insertThread(channel.id, externalId, conversationId, contact)
        if (made) {
          // The contact only once the thread is ours, so a lost race leaves no stray contact.
          const who = yield* Contacts.matchOrCreate(channel.workspace_id, contactOf(externalId, contact))
          yield* ChannelApi.setThreadConversationContact(conversationId, who.id)
          return { thread: made, created: true }
        }
        yield* ChannelApi.dropThreadConversation(conversationId)
        const other = yield* ChannelApi.threadByExternalId(channel.id, externalId)
        return { thread: other!, created: false }
      }),
    ),
  )
