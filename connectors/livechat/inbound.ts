import { Effect } from 'effect'
import { widgetOf } from '../../actors/channels/livechatSettings'
import { visitorMessage } from '../../actors/channels/visitorPresenters'
import { invalid } from '../../actors/errors'
import { publish, topics } from '../../actors/events'
import type { UploadedFile } from '../../actors/fields'
import { receiveInbound } from '../../actors/inbox/inbound'
import { mediaType } from '../../actors/inbox/messages'
import { admitFile } from '../../actors/livechat/visitors'
import { nameForType } from '../../engine/mime'
import type { ChannelRow } from '../../store/channels'
import * as Files from '../../store/files'
import type * as Livechat from '../../store/livechat'
import * as Messages from '../../store/messages'

/** A visitor writes from the open widget: always fresh, and from the customer. */
const arrival = { outgoing: false, history: false, group: false, automatic: false } as const

/**
 * The inbound side of live chat (spec 1 §4.6): a visitor's message from the widget, with at most
 * one file the widget's settings admit, appended through the ConversationActor. A resend with the
 * same `client_id` answers the stored message; the visitor's other tabs get it on `visitor:`.
 */
export const receive = (
  key: string,
  v: { readonly visitor: Livechat.VisitorRow; readonly channel: ChannelRow; readonly widget: unknown },
  body: { readonly text?: string | undefined; readonly client_id: string },
  files: readonly UploadedFile[],
) =>
  Effect.gen(function* () {
    const { visitor, channel } = v
    const clientId = `lc:${visitor.id}:${body.client_id}`
    const again = yield* Messages.byClientId(visitor.conversation_id, clientId)
    if (again) return { duplicate: true, message: visitorMessage(again, key) }
    const text = (body.text ?? '').trim()
    const file = files.find((f) => f.field === 'file')
    if (!file && text === '') return yield* Effect.fail(invalid({ text: { key: 'field.message_empty' } }))
    const admitted = file ? yield* admitFile(widgetOf(v.widget), file) : null
    const saved =
      file && admitted
        ? yield* Files.save(
            visitor.workspace_id,
            // Named after what its bytes are (a PNG sent as `invoice.html` is `invoice.html.png`).
            {
              name: nameForType(file.filename || 'file', admitted.mime),
              mime: admitted.mime,
              bytes: file.bytes,
            },
            null,
          ).pipe(Effect.orDie)
        : null
    const shown = yield* receiveInbound(
      {
        channel,
        conversationId: visitor.conversation_id,
        // Opened with the visitor: the visitor's first message is what makes it new.
        opening: 'awaiting first message',
        message: {
          direction: 'in',
          type: saved ? mediaType(saved.mime) : 'text',
          body: text,
          sender: { name: visitor.name, visitor_id: visitor.id },
          clientId,
          fileId: saved?.id ?? null,
        },
        arrival,
      },
      // The visitor's tabs see the message before any automatic reply to it.
      (stored) =>
        Effect.gen(function* () {
          const view = (yield* Messages.view(stored.id)) ?? stored
          const shown = visitorMessage(view as Messages.MessageView, key)
          yield* publish(topics.visitor(visitor.session), 'message', shown)
          return shown
        }),
    )
    return { duplicate: false, message: shown }
  })
