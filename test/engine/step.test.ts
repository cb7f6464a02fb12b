import { describe, expect, it } from '@effect/vitest'
import { Cause, Context, Data, Effect, Exit, Option } from 'effect'
import * as Actor from '../../engine/actor/Actor.js'
import { andThen, Later, onExit, recover, withServices } from '../../engine/step.js'

/*
 * The request path's steps (engine/step.ts) against a real actor: an ask to a live entity is a
 * `Later` the steps continue in the reply's callback, without a fiber; on a fiber it is the
 * ordinary ask (test/engine/actor.test.ts covers those semantics).
 */

class Refused extends Data.TaggedError('Refused')<{ readonly at: number }> {}
class Other extends Data.TaggedError('Other')<Record<never, never>> {}

const counter = Actor.define({
  name: 'counter',
  load: (_id: string) => Effect.succeed(0),
  handlers: {
    Add: (n: number, msg: { readonly by: number }) => Effect.succeed([n + msg.by, n + msg.by] as const),
    Refuse: (n: number) => Effect.fail(new Refused({ at: n })),
    Other: () => Effect.fail(new Other()),
  },
})

/**
 * Runs a step as `runFast` does, without any fiber of its own: at once when done, in callbacks
 * when it is a `Later`. Anything else would need a fiber, and is reported as `'fiber'`.
 */
const stepped = <A, E, R>(step: Effect.Effect<A, E, R>): Promise<Exit.Exit<A, E> | 'fiber'> =>
  new Promise((resolve) => {
    const go = (next: Effect.Effect<A, E, R>): void => {
      if (Exit.isExit(next)) resolve(next as Exit.Exit<A, E>)
      else if (next instanceof Later) (next as Later<A, E, R>).listen(go)
      else resolve('fiber')
    }
    go(step)
  })

class Doubler extends Context.Tag('test/Doubler')<Doubler, { readonly double: (n: number) => number }>() {}

describe('request steps', () => {
  it.scoped('continue an ask in its reply, without a fiber', () =>
    Effect.gen(function* () {
      const actor = yield* Actor.make(counter)
      // The entity is started by an ordinary ask: a new entity's first ask makes its mailbox.
      expect(yield* actor.ask('a', { _tag: 'Add', by: 1 })).toBe(1)
      const step = andThen(actor.ask('a', { _tag: 'Add', by: 2 }), (n) => Effect.succeed(n * 10))
      expect(step).toBeInstanceOf(Later)
      expect(yield* Effect.promise(() => stepped(step))).toEqual(Exit.succeed(30))
      // onExit sees the reply's exit, failures included.
      const seen = yield* Effect.promise(() =>
        stepped(onExit(actor.ask('a', { _tag: 'Refuse' }), (exit) => Exit.isFailure(exit))),
      )
      expect(seen).toEqual(Exit.succeed(true))
    }),
  )

  it.scoped('send nothing until run, and once per run, by callback or on a fiber', () =>
    Effect.gen(function* () {
      const actor = yield* Actor.make(counter)
      yield* actor.ask('b', { _tag: 'Add', by: 0 })
      const add = actor.ask('b', { _tag: 'Add', by: 1 })
      expect(yield* actor.ask('b', { _tag: 'Add', by: 0 })).toBe(0)
      expect(yield* Effect.promise(() => stepped(add))).toEqual(Exit.succeed(1))
      expect(yield* Effect.promise(() => stepped(add))).toEqual(Exit.succeed(2))
      expect(yield* add).toBe(3)
      expect(yield* andThen(add, (n) => Effect.succeed(-n))).toBe(-4)
    }),
  )

  it.scoped('turn a throw in a step into a defect, and recover only the tag asked for', () =>
    Effect.gen(function* () {
      const actor = yield* Actor.make(counter)
      yield* actor.ask('c', { _tag: 'Add', by: 5 })
      const thrown = yield* Effect.promise(() =>
        stepped(
          andThen(actor.ask('c', { _tag: 'Add', by: 1 }), () => {
            throw new Error('a bug')
          }),
        ),
      )
      expect(thrown !== 'fiber' && Exit.isFailure(thrown) && Cause.isDie(thrown.cause)).toBe(true)
      const recovered = yield* Effect.promise(() =>
        stepped(
          recover(actor.ask('c', { _tag: 'Refuse' }), 'Refused', (e) => Effect.succeed(`refused at ${e.at}`)),
        ),
      )
      expect(recovered).toEqual(Exit.succeed('refused at 6'))
      const passed = yield* Effect.promise(() =>
        stepped(
          recover(actor.ask('c', { _tag: 'Other' }) as Effect.Effect<never, Other | Refused>, 'Refused', () =>
            Effect.succeed('no'),
          ),
        ),
      )
      expect(
        passed !== 'fiber' && Exit.isFailure(passed) && Option.getOrNull(Cause.failureOption(passed.cause)),
      ).toEqual(new Other())
      // On a fiber, the same composition.
      expect(yield* recover(actor.ask('c', { _tag: 'Refuse' }), 'Refused', (e) => Effect.succeed(e.at))).toBe(
        6,
      )
    }),
  )

  it.scoped("keep a throw in the caller's callback out of the actor", () =>
    Effect.gen(function* () {
      const loads: string[] = []
      const actor = yield* Actor.make({
        ...counter,
        load: (id: string) =>
          Effect.sync(() => {
            loads.push(id)
            return 0
          }),
      })
      expect(yield* actor.ask('d', { _tag: 'Add', by: 5 })).toBe(5)
      // Two asks answered in one turn: the first caller's callback throws, the second's must
      // still come, and the entity keeps its state (no restart, no second load).
      const first = actor.ask('d', { _tag: 'Add', by: 1 }) as Later<number, unknown>
      const second = actor.ask('d', { _tag: 'Add', by: 1 })
      first.listen(() => {
        throw new Error('the transport broke')
      })
      expect(yield* Effect.promise(() => stepped(second))).toEqual(Exit.succeed(7))
      expect(yield* actor.ask('d', { _tag: 'Add', by: 0 })).toBe(7)
      expect(loads).toEqual(['d'])
    }),
  )

  it('take a service from the services being stepped, in callbacks too', async () => {
    const services = Context.make(Doubler, { double: (n) => n * 2 })
    const step = withServices(services, () => andThen(Doubler, (d) => Effect.succeed(d.double(21))))
    expect(await stepped(step)).toEqual(Exit.succeed(42))
    // Without them the step is an ordinary effect, for a fiber with the service in its context.
    const plain = andThen(Doubler, (d) => Effect.succeed(d.double(1)))
    expect(await stepped(plain)).toBe('fiber')
    expect(
      await Effect.runPromise(Effect.provide(plain, Context.make(Doubler, { double: (n) => n * 3 }))),
    ).toBe(3)
    // A Later made under the services gives them to what follows its callback.
    const later = new Later<number>(
      (k) => setTimeout(() => k(Exit.succeed(5)), 1),
      () => Effect.succeed(5),
    )
    const chained = withServices(services, () =>
      andThen(later, (n) => andThen(Doubler, (d) => Effect.succeed(d.double(n)))),
    )
    expect(await stepped(chained)).toEqual(Exit.succeed(10))
  })
})
