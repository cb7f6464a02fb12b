import type { SqlClient } from '@effect/sql'
import { Clock, Effect, Layer } from 'effect'
import { Mailer } from '../../actors/admin/Mailer'
import type { ConnectorShape, Delivery, OutboundMessage, Signal } from '../../actors/channels/Connector'
import { hostAllowed, hostOf, widgetOf } from '../../actors/channels/livechatSettings'
import { visibleToVisitor, visitorMessage } from '../../actors/channels/visitorPresenters'
import { publish, topics } from '../../actors/events'
import { addMessages, pickLocale, t } from '../../actors/i18n'
import { ownText } from '../../actors/livechat/visitors'
import type { Bus } from '../../engine/bus/Bus'
import { currentTime, type WallClock } from '../../engine/clock'
import type { Config } from '../../engine/config'
import { Log } from '../../engine/log'
import type { ChannelRow } from '../../store/channels'
import * as Livechat from '../../store/livechat'
import * as Messages from '../../store/messages'
import { ConnectorFor } from '../router'

/**
 * The outbound side of a live chat channel: an agent's reply (or an automatic one) goes to the
 * visitor's real-time channel `visitor:{session}` as `message`; while the visitor's widget is
 * closed (no heartbeat for `AWAY_AFTER_MS`) and the channel has `email_fallback`, it also goes to
 * the visitor's e-mail address. Pickup (`agent_joined`) tells the visitor who joined and moves
 * everyone behind them up the queue (`queue`); the agent reading (`read`) and typing (`typing`)
 * reach the widget too. Delivery to the socket is at most once; the widget catches up with
 * `GET /livechat/{key}/conversation?after=` on reconnect.
 */
export const AWAY_AFTER_MS = 75_000

addMessages({
  'livechat.mail_subject': { en: '{title}: a reply to your chat', id: '{title}: balasan untuk obrolan Anda' },
  'livechat.mail_continue': { en: 'Continue the chat: {link}', id: 'Lanjutkan obrolan: {link}' },
})

/** `seen_at` is the database's now(): `nowMs` is real time (Effect's Clock), not a test's offset. */
export const isAway = (v: Livechat.VisitorRow, nowMs: number) =>
  v.seen_at === null || nowMs - v.seen_at.getTime() > AWAY_AFTER_MS

/** Tells every visitor still waiting on the channel their place. */
export const announceQueue = (channelId: number) =>
  Effect.gen(function* () {
    for (const w of yield* Livechat.waiting(channelId)) {
      yield* publish(topics.visitor(w.session), 'queue', {
        position: w.position,
        waiting: true,
        agent: null,
      })
    }
  })

const make = Effect.gen(function* () {
  // The ChannelActor calls the adapter without services: it keeps its own.
  const services = yield* Effect.context<SqlClient.SqlClient | Bus | Config | Log | WallClock>()
  const mailer = yield* Mailer

  const send = (channel: ChannelRow, message: OutboundMessage) =>
    Effect.gen(function* () {
      const visitor = yield* Livechat.visitorOfConversation(message.conversationId)
      const lc = yield* Livechat.byChannel(channel.id)
      if (!visitor || !lc) return { _tag: 'Rejected', reason: 'No visitor for this chat.' } satisfies Delivery
      const view = yield* Messages.view(message.messageId)
      // The stored message decides, not what the caller said it was: a note never reaches the widget.
      if (view && !visibleToVisitor(view))
        return {
          _tag: 'Rejected',
          reason: 'An internal note is never sent to the visitor.',
        } satisfies Delivery
      if (view)
        yield* publish(topics.visitor(visitor.session), 'message', visitorMessage(view, lc.public_key))
      const widget = widgetOf(lc.widget)
      // A visitor who gave no address (the pre-chat form left it optional or hidden) gets the reply
      // in the widget only. The address is the visitor's word, never proven: only a person's reply
      // goes to it, so an automatic greeting cannot be made to mail whatever address a stranger
      // typed, with the service's name on it.
      const automatic = view?.sender.auto === true
      if (
        widget.email_fallback &&
        visitor.email !== null &&
        !automatic &&
        isAway(visitor, yield* Clock.currentTimeMillis) &&
        message.body.trim() !== ''
      ) {
        // Back to the page the chat began on only when the widget is limited to the site's own
        // domains: otherwise the page is whatever the visitor said, a link of their choosing.
        const page = visitor.page_url
        const link =
          page && widget.allowed_domains.length > 0 && hostAllowed(widget.allowed_domains, hostOf(page))
            ? page
            : null
        // In the language the visitor chatted in (the `locale` they started with).
        const locale = pickLocale(visitor.locale)
        // In the background: the channel's actor hands out one delivery at a time, and no reply on
        // this chat should wait for a mail server.
        yield* mailer
          .send({
            to: visitor.email,
            subject: t(locale, 'livechat.mail_subject', { title: ownText(widget, 'title', locale) }),
            text: `${message.body}\n\n— ${channel.name}${link ? `\n${t(locale, 'livechat.mail_continue', { link })}` : ''}`,
          })
          .pipe(
            Effect.catchAll((e) =>
              Effect.flatMap(Log, (log) =>
                Effect.sync(() => log.warn('live chat e-mail fallback failed', { reason: e.reason })),
              ),
            ),
            Effect.forkDaemon,
          )
      }
      return { _tag: 'Sent', externalId: `lc-${message.messageId}` } satisfies Delivery
    }).pipe(
      Effect.catchAllCause(() =>
        Effect.succeed<Delivery>({ _tag: 'Rejected', reason: 'Live chat unavailable.' }),
      ),
      Effect.provide(services),
    )

  const signal = (channel: ChannelRow, conversationId: number, s: Signal) =>
    Effect.gen(function* () {
      const visitor = yield* Livechat.visitorOfConversation(conversationId)
      if (!visitor) return
      const topic = topics.visitor(visitor.session)
      if (s.kind === 'agent_joined') {
        yield* publish(topic, 'queue', { position: 0, waiting: false, agent: { name: s.agentName } })
        yield* announceQueue(channel.id)
      } else if (s.kind === 'read') {
        yield* publish(topic, 'read', { by: 'agent', at: (yield* currentTime).toISOString() })
      } else if (s.kind === 'typing') {
        yield* publish(topic, 'typing', { from: 'agent', name: s.name, typing: s.typing })
      }
    }).pipe(
      Effect.catchAllCause(() => Effect.void),
      Effect.provide(services),
    )

  return { send, signal } satisfies ConnectorShape
})

export const layer = Layer.effect(ConnectorFor('livechat'), make)
