import { Cause, Data, Effect, Exit } from 'effect'
import { describe, expect, it } from 'vitest'
import * as Workspace from '../../actors/admin/WorkspaceActor'
import { apiAnswer, isAnswerable } from '../../actors/errors'
import * as Conversation from '../../actors/inbox/ConversationActor'
import { ActorDefect, ActorLoadFailed, ActorStopped } from '../../engine/actor/Actor'
import * as Codec from '../../engine/cluster/codec'

const errors = Codec.registry([Conversation, Workspace])
const roundTrip = (exit: Exit.Exit<unknown, unknown>) =>
  Codec.decodeOutcome(Codec.encodeOutcome(exit), errors)

class Unlisted extends Data.TaggedError('Unlisted')<{ readonly why: string }> {}

describe('actor codec', () => {
  it('carries replies with their Dates, Maps, Sets, bigints and bytes', () => {
    const value = {
      at: new Date('2026-11-22T08:30:00Z'),
      seen: new Map<number, string>([[1, 'a']]),
      tags: new Set(['x']),
      big: 2n ** 70n,
      bytes: new Uint8Array([1, 2, 3]),
      nested: [{ a: null, b: undefined }],
    }
    const out = roundTrip(Exit.succeed(value))
    expect(out).toEqual({ _tag: 'Success', value })
    if (out._tag === 'Success') expect((out.value as typeof value).at).toBeInstanceOf(Date)
  })

  it('re-creates typed errors of the listed modules as their own class', () => {
    const resetAt = new Date('2026-12-01T00:00:00Z')
    const out = roundTrip(
      Exit.fail(new Workspace.QuotaExceeded({ counter: 'replies_per_day', used: 200, limit: 200, resetAt })),
    )
    expect(out._tag).toBe('Failure')
    if (out._tag !== 'Failure') return
    expect(out.error).toBeInstanceOf(Workspace.QuotaExceeded)
    expect(out.error).toMatchObject({ _tag: 'QuotaExceeded', used: 200, limit: 200, resetAt })
    const nf = roundTrip(Exit.fail(new Conversation.ConversationNotFound({ id: 5 })))
    expect(nf._tag === 'Failure' && nf.error instanceof Conversation.ConversationNotFound).toBe(true)
    // The answer lives on the class, so the request pipeline still answers it (402, 404).
    const quota = isAnswerable(out.error) ? out.error[apiAnswer]() : undefined
    expect(quota?.status).toBe(402)
    expect(quota?.message).toBe('messages.replies_quota')
    expect(quota?.params).toEqual({ limit: 200, reset: '2026-12-01T00:00:00Z' })
    expect(nf._tag === 'Failure' && isAnswerable(nf.error) && nf.error[apiAnswer]().status).toBe(404)
  })

  it("re-creates the kit's errors, a Cause crossing as its rendering", () => {
    const stopped = roundTrip(Exit.fail(new ActorStopped({ actor: 'conversation', id: '5' })))
    expect(stopped._tag === 'Failure' && stopped.error instanceof ActorStopped).toBe(true)
    const defect = roundTrip(
      Exit.fail(
        new ActorDefect({
          actor: 'conversation',
          id: '5',
          tag: 'Append',
          cause: Cause.die(new Error('boom')),
        }),
      ),
    )
    expect(defect._tag).toBe('Failure')
    if (defect._tag !== 'Failure') return
    expect(defect.error).toBeInstanceOf(ActorDefect)
    const cause = (defect.error as ActorDefect).cause
    expect(Cause.isCause(cause)).toBe(true)
    expect(Cause.pretty(cause)).toContain('boom')
    const load = roundTrip(
      Exit.fail(new ActorLoadFailed({ actor: 'w', id: '1', cause: Cause.fail('db down') })),
    )
    expect(load._tag === 'Failure' && load.error instanceof ActorLoadFailed).toBe(true)
  })

  it('stands in for unlisted tagged errors so that catchTag still works', async () => {
    const out = roundTrip(Exit.fail(new Unlisted({ why: 'not registered' })))
    expect(out._tag).toBe('Failure')
    if (out._tag !== 'Failure') return
    expect(out.error).not.toBeInstanceOf(Unlisted)
    expect(out.error).toMatchObject({ _tag: 'Unlisted', why: 'not registered' })
    const caught = await Effect.runPromise(
      Effect.fail(out.error as Unlisted).pipe(Effect.catchTag('Unlisted', (e) => Effect.succeed(e.why))),
    )
    expect(caught).toBe('not registered')
  })

  it('turns defects and untagged failures into something readable', () => {
    const died = roundTrip(Exit.die(new Error('kaput')))
    expect(died._tag === 'Defect' && died.rendered.includes('kaput')).toBe(true)
    const plain = roundTrip(Exit.fail(new Error('plain')))
    expect(plain._tag === 'Failure' && (plain.error as Error).message).toBe('plain')
  })

  it('carries the causes of the errors in a Cause it renders', () => {
    // A transaction whose connection went away dies in its ROLLBACK or COMMIT (the SQL client's
    // `orDie`): the cause is what says the request may be tried again.
    const lost = new Error('Failed to execute statement', {
      cause: new Error('Connection terminated unexpectedly'),
    })
    const out = roundTrip(
      Exit.fail(new ActorDefect({ actor: 'conversation', id: '4', tag: 'Append', cause: Cause.die(lost) })),
    )
    const error = out._tag === 'Failure' ? (out.error as ActorDefect) : undefined
    expect(error).toBeInstanceOf(ActorDefect)
    expect(Cause.pretty(error!.cause)).toContain('Connection terminated unexpectedly')
    const died = roundTrip(Exit.die(lost))
    expect(died._tag === 'Defect' && died.rendered.includes('Connection terminated unexpectedly')).toBe(true)
  })

  it('keeps numeric and string entity ids apart', () => {
    expect(Codec.decodeId(Codec.encodeId(5))).toBe(5)
    expect(Codec.decodeId(Codec.encodeId('5'))).toBe('5')
  })
})
