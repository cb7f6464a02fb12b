import { describe, expect, it } from '@effect/vitest'
import { Cause, Context, Data, Deferred, Effect, Exit, Fiber, Option, Ref, Scope, TestClock } from 'effect'
import * as Actor from '../../engine/actor/Actor.js'

// All tests run on the TestClock: nothing here waits on real time or asserts durations.

class Insufficient extends Data.TaggedError('Insufficient')<{ readonly balance: number }> {}

/** A stand-in for the database: the durable balance per id, and how often each id was loaded. */
const makeStore = Effect.gen(function* () {
  const balances = yield* Ref.make(new Map<string, number>())
  const loads = yield* Ref.make(0)
  return {
    balances,
    loads,
    load: (id: string) =>
      Effect.zipRight(
        Ref.update(loads, (n) => n + 1),
        Effect.map(Ref.get(balances), (m) => m.get(id) ?? 0),
      ),
    save: (id: string, balance: number) => Ref.update(balances, (m) => new Map(m).set(id, balance)),
  }
})
type Store = Effect.Effect.Success<typeof makeStore>

type Options = Pick<
  Actor.Definition<string, number, Actor.Handlers<string, number>, never, never, never>,
  'mailbox' | 'idleMs' | 'sweepMs' | 'restart'
>

const account = (store: Store, options: Options = {}) =>
  Actor.define({
    name: 'account',
    load: (id: string) => store.load(id),
    handlers: {
      Deposit: (balance, msg: { readonly amount: number }) =>
        Effect.succeed([balance + msg.amount, balance + msg.amount] as const),
      Withdraw: (balance, msg: { readonly amount: number }) =>
        msg.amount > balance
          ? Effect.fail(new Insufficient({ balance }))
          : Effect.succeed([balance - msg.amount, balance - msg.amount] as const),
      Balance: (balance) => Effect.succeed([balance, balance] as const),
      Save: (balance, _msg: unknown, ctx) =>
        Effect.as(store.save(ctx.id, balance), [balance, balance] as const),
      Die: (_balance, msg: { readonly how: 'die' | 'throw' }) => {
        if (msg.how === 'throw') throw new Error('thrown')
        return Effect.die(new Error('died'))
      },
    },
    mailbox: options.mailbox,
    idleMs: options.idleMs,
    sweepMs: options.sweepMs,
    onPassivate: (id, balance) => store.save(id, balance),
    restart: options.restart,
  })

/** Lets forked fibers run until they block. */
const settle = Effect.repeatN(Effect.yieldNow(), 50)

describe('Actor', () => {
  it.scoped('keeps state across asks, per entity', () =>
    Effect.gen(function* () {
      const store = yield* makeStore
      const actor = yield* Actor.make(account(store))
      expect(yield* actor.ask('a', { _tag: 'Deposit', amount: 5 })).toBe(5)
      expect(yield* actor.ask('a', { _tag: 'Deposit', amount: 2 })).toBe(7)
      expect(yield* actor.ask('b', { _tag: 'Deposit', amount: 1 })).toBe(1)
      expect(yield* actor.ask('a', { _tag: 'Balance' })).toBe(7)
      expect(yield* actor.size).toBe(2)
      expect(yield* Ref.get(store.loads)).toBe(2)
    }),
  )

  it.scoped('serves 1,000 concurrent asks to one entity in order, without loss', () =>
    Effect.gen(function* () {
      for (const mailbox of [1024, 8]) {
        const log = yield* Actor.make({
          name: 'log',
          load: (_id: string) => Effect.succeed<ReadonlyArray<number>>([]),
          handlers: {
            Append: (items, msg: { readonly value: number }) =>
              Effect.succeed([items.length + 1, [...items, msg.value]] as const),
            Read: (items) => Effect.succeed([items, items] as const),
          },
          mailbox,
        })
        const values = Array.from({ length: 1000 }, (_, i) => i)
        const seqs = yield* Effect.forEach(values, (value) => log.ask('one', { _tag: 'Append', value }), {
          concurrency: 'unbounded',
        })
        const items = yield* log.ask('one', { _tag: 'Read' })
        expect(items).toEqual(values)
        expect(seqs).toEqual(values.map((v) => v + 1))
      }
    }),
  )

  it.scoped('processes messages from one sender in the order sent', () =>
    Effect.gen(function* () {
      const log = yield* Actor.make({
        name: 'log',
        load: (_id: string) => Effect.succeed<ReadonlyArray<number>>([]),
        handlers: {
          Append: (items, msg: { readonly value: number }) =>
            Effect.succeed([undefined, [...items, msg.value]] as const),
          Read: (items) => Effect.succeed([items, items] as const),
        },
        mailbox: 4,
      })
      const values = Array.from({ length: 100 }, (_, i) => i)
      yield* Effect.forEach(values, (value) => log.tell('one', { _tag: 'Append', value }), { discard: true })
      expect(yield* log.ask('one', { _tag: 'Read' })).toEqual(values)
    }),
  )

  it.scoped('a typed failure fails that ask only and keeps the old state', () =>
    Effect.gen(function* () {
      const store = yield* makeStore
      const actor = yield* Actor.make(account(store))
      yield* actor.ask('a', { _tag: 'Deposit', amount: 10 })
      const error = yield* Effect.flip(actor.ask('a', { _tag: 'Withdraw', amount: 11 }))
      expect(error).toEqual(new Insufficient({ balance: 10 }))
      expect(yield* actor.ask('a', { _tag: 'Balance' })).toBe(10)
      expect(yield* actor.ask('a', { _tag: 'Withdraw', amount: 4 })).toBe(6)
      expect(yield* Ref.get(store.loads)).toBe(1)
    }),
  )

  it.scoped('a defect fails the ask with ActorDefect, restarts the entity, and the next ask succeeds', () =>
    Effect.gen(function* () {
      const store = yield* makeStore
      const actor = yield* Actor.make(account(store))
      yield* actor.ask('a', { _tag: 'Deposit', amount: 3 })
      yield* actor.ask('a', { _tag: 'Save' })
      yield* actor.ask('a', { _tag: 'Deposit', amount: 100 }) // not saved: lost by the restart

      for (const how of ['die', 'throw'] as const) {
        const error = yield* Effect.flip(actor.ask('a', { _tag: 'Die', how }))
        expect(error._tag).toBe('ActorDefect')
        if (error._tag !== 'ActorDefect') return
        expect(error.tag).toBe('Die')
        expect(error.id).toBe('a')
        expect(Cause.squash(error.cause)).toEqual(new Error(how === 'die' ? 'died' : 'thrown'))
        expect(error.message).toContain('account/a')
        // Restarted: the state was reloaded from the store, not the half-way in-memory one.
        expect(yield* actor.ask('a', { _tag: 'Balance' })).toBe(3)
      }
      expect(yield* Ref.get(store.loads)).toBe(3)
    }),
  )

  it.scoped('repeated crashes back off before reloading', () =>
    Effect.gen(function* () {
      const store = yield* makeStore
      const actor = yield* Actor.make(account(store, { restart: { baseMs: 1000, maxMs: 5000 } }))
      yield* Effect.flip(actor.ask('a', { _tag: 'Die', how: 'die' }))
      // First restart: immediate. Crash again right after reloading.
      yield* Effect.flip(actor.ask('a', { _tag: 'Die', how: 'die' }))
      expect(yield* Ref.get(store.loads)).toBe(2)
      // Second restart: waits for the backoff (1 s on the TestClock).
      const next = yield* Effect.fork(actor.ask('a', { _tag: 'Balance' }))
      yield* settle
      expect(Option.isNone(yield* Fiber.poll(next))).toBe(true)
      yield* TestClock.adjust('1 second')
      expect(yield* Fiber.join(next)).toBe(0)
      expect(yield* Ref.get(store.loads)).toBe(3)
    }),
  )

  it.scoped('a failing load fails the ask with ActorLoadFailed; the next ask loads again', () =>
    Effect.gen(function* () {
      const attempts = yield* Ref.make(0)
      const actor = yield* Actor.make({
        name: 'flaky',
        load: (_id: string) =>
          Effect.flatMap(
            Ref.updateAndGet(attempts, (n) => n + 1),
            (n) =>
              n <= 3
                ? Effect.fail('db down' as const)
                : n <= 5
                  ? Effect.die(new Error('bug'))
                  : Effect.succeed(n),
          ),
        handlers: { Get: (n) => Effect.succeed([n, n] as const) },
        restart: { baseMs: 1000, maxMs: 5000 },
      })
      // Typed failures (the store out of reach) are answers, not crashes: each next ask loads at
      // once, however many came before (no clock moved here).
      for (let i = 0; i < 3; i++) {
        const failed = yield* Effect.flip(actor.ask('x', { _tag: 'Get' }))
        expect(failed._tag).toBe('ActorLoadFailed')
        if (failed._tag === 'ActorLoadFailed') expect(Cause.squash(failed.cause)).toBe('db down')
      }
      const died = yield* Effect.flip(actor.ask('x', { _tag: 'Get' }))
      expect(died._tag).toBe('ActorLoadFailed')
      if (died._tag === 'ActorLoadFailed') expect(Cause.isDie(died.cause)).toBe(true)
      // A load that died is a crash: the first reload is immediate, the next waits the backoff.
      expect((yield* Effect.flip(actor.ask('x', { _tag: 'Get' })))._tag).toBe('ActorLoadFailed')
      const next = yield* Effect.fork(actor.ask('x', { _tag: 'Get' }))
      yield* settle
      expect(Option.isNone(yield* Fiber.poll(next))).toBe(true)
      yield* TestClock.adjust('1 second')
      expect(yield* Fiber.join(next)).toBe(6)
      expect(yield* actor.ask('x', { _tag: 'Get' })).toBe(6)
    }),
  )

  it.scoped('a full mailbox makes senders wait instead of failing', () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const actor = yield* Actor.make({
        name: 'slow',
        load: (_id: string) => Effect.succeed<ReadonlyArray<string>>([]),
        handlers: {
          Block: (items) =>
            Effect.zipRight(
              Deferred.succeed(started, undefined),
              Effect.as(Deferred.await(gate), [undefined, [...items, 'block']] as const),
            ),
          Add: (items, msg: { readonly item: string }) =>
            Effect.succeed([undefined, [...items, msg.item]] as const),
          Read: (items) => Effect.succeed([items, items] as const),
        },
        mailbox: 1,
      })
      const blocked = yield* Effect.fork(actor.ask('s', { _tag: 'Block' }))
      yield* Deferred.await(started)
      // The handler is busy: the first tell fills the one-slot mailbox, the second has to wait.
      yield* actor.tell('s', { _tag: 'Add', item: 'one' })
      const waiting = yield* Effect.fork(actor.tell('s', { _tag: 'Add', item: 'two' }))
      const asking = yield* Effect.fork(actor.ask('s', { _tag: 'Read' }))
      yield* settle
      expect(Option.isNone(yield* Fiber.poll(waiting))).toBe(true)
      expect(Option.isNone(yield* Fiber.poll(asking))).toBe(true)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(blocked)
      yield* Fiber.join(waiting)
      expect(yield* Fiber.join(asking)).toEqual(['block', 'one', 'two'])
    }),
  )

  it.scoped('passivates idle entities with one sweeper and reloads them on the next ask', () =>
    Effect.gen(function* () {
      const store = yield* makeStore
      const passivated = yield* Deferred.make<readonly [string, number]>()
      const definition = account(store, { idleMs: 1000, sweepMs: 100 })
      const actor = yield* Actor.make({
        ...definition,
        onPassivate: (id, balance) =>
          Effect.zipRight(store.save(id, balance), Deferred.succeed(passivated, [id, balance] as const)),
      })
      expect(yield* actor.ask('a', { _tag: 'Deposit', amount: 42 })).toBe(42)
      yield* TestClock.adjust('500 millis')
      expect(yield* actor.size).toBe(1)
      yield* TestClock.adjust('1 second')
      expect(yield* Deferred.await(passivated)).toEqual(['a', 42])
      expect(yield* actor.size).toBe(0)
      expect(yield* Ref.get(store.loads)).toBe(1)
      // Re-activation: load runs again and sees what onPassivate saved.
      expect(yield* actor.ask('a', { _tag: 'Balance' })).toBe(42)
      expect(yield* Ref.get(store.loads)).toBe(2)
    }),
  )

  it.scoped('a new incarnation does not load before the previous one has finished onPassivate', () =>
    Effect.gen(function* () {
      const store = yield* makeStore
      const passivating = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const definition = account(store, { idleMs: 0, sweepMs: Number.POSITIVE_INFINITY })
      const actor = yield* Actor.make({
        ...definition,
        onPassivate: (id, balance) =>
          Deferred.succeed(passivating, undefined).pipe(
            Effect.zipRight(Deferred.await(gate)),
            Effect.zipRight(store.save(id, balance)),
          ),
      })
      yield* actor.ask('a', { _tag: 'Deposit', amount: 7 })
      expect(yield* actor.passivateIdle).toBe(1)
      yield* Deferred.await(passivating)
      const next = yield* Effect.fork(actor.ask('a', { _tag: 'Deposit', amount: 1 }))
      yield* settle
      expect(Option.isNone(yield* Fiber.poll(next))).toBe(true)
      expect(yield* Ref.get(store.loads)).toBe(1)
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(next)).toBe(8)
      expect(yield* Ref.get(store.loads)).toBe(2)
    }),
  )

  it.scoped('passivateIdle leaves busy entities alone', () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const actor = yield* Actor.make({
        name: 'busy',
        load: (_id: string) => Effect.succeed(0),
        handlers: {
          Wait: (n) =>
            Effect.zipRight(
              Deferred.succeed(started, undefined),
              Effect.as(Deferred.await(gate), [n, n] as const),
            ),
          Get: (n) => Effect.succeed([n, n] as const),
        },
        idleMs: 0,
        sweepMs: Number.POSITIVE_INFINITY,
      })
      yield* actor.ask('idle', { _tag: 'Get' })
      const waiting = yield* Effect.fork(actor.ask('busy', { _tag: 'Wait' }))
      yield* Deferred.await(started)
      expect(yield* actor.passivateIdle).toBe(1)
      expect(yield* actor.size).toBe(1)
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(waiting)).toBe(0)
      expect(yield* actor.passivateIdle).toBe(1)
      expect(yield* actor.size).toBe(0)
    }),
  )

  it.scoped('stop finishes the mailbox, runs onPassivate, and the next ask starts a new incarnation', () =>
    Effect.gen(function* () {
      const store = yield* makeStore
      const actor = yield* Actor.make(account(store))
      yield* actor.ask('a', { _tag: 'Deposit', amount: 9 })
      yield* actor.tell('a', { _tag: 'Deposit', amount: 1 })
      yield* actor.stop('a')
      expect(yield* actor.size).toBe(0)
      expect((yield* Ref.get(store.balances)).get('a')).toBe(10)
      expect(yield* actor.ask('a', { _tag: 'Balance' })).toBe(10)
      expect(yield* Ref.get(store.loads)).toBe(2)
      yield* actor.stop('unknown')
    }),
  )

  it.scoped('an ask interrupted while queued is dropped unapplied', () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const actor = yield* Actor.make({
        name: 'counter',
        load: (_id: string) => Effect.succeed(0),
        handlers: {
          Block: (n) =>
            Effect.zipRight(
              Deferred.succeed(started, undefined),
              Effect.as(Deferred.await(gate), [n, n] as const),
            ),
          Inc: (n) => Effect.succeed([n + 1, n + 1] as const),
        },
      })
      const blocked = yield* Effect.fork(actor.ask('c', { _tag: 'Block' }))
      yield* Deferred.await(started)
      const queued = yield* Effect.fork(actor.ask('c', { _tag: 'Inc' }))
      yield* settle
      yield* Fiber.interrupt(queued)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(blocked)
      expect(yield* actor.ask('c', { _tag: 'Inc' })).toBe(1)
    }),
  )

  it.effect('closing the scope interrupts entities and fails pending asks with ActorStopped', () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const started = yield* Deferred.make<void>()
      const actor = yield* Scope.extend(
        Actor.make({
          name: 'stuck',
          load: (_id: string) => Effect.succeed(0),
          handlers: {
            Hang: (n) =>
              Effect.zipRight(Deferred.succeed(started, undefined), Effect.as(Effect.never, [n, n] as const)),
            Get: (n) => Effect.succeed([n, n] as const),
          },
          mailbox: 1,
        }),
        scope,
      )
      const inFlight = yield* Effect.fork(actor.ask('s', { _tag: 'Hang' }))
      yield* Deferred.await(started)
      const queued = yield* Effect.fork(actor.ask('s', { _tag: 'Get' }))
      const waitingForRoom = yield* Effect.fork(actor.ask('s', { _tag: 'Get' }))
      yield* settle
      yield* Scope.close(scope, Exit.void)
      for (const fiber of [inFlight, queued, waitingForRoom]) {
        const error = yield* Effect.flip(Fiber.join(fiber))
        expect(error).toEqual(new Actor.ActorStopped({ actor: 'stuck', id: 's' }))
      }
      const late = yield* Effect.flip(actor.ask('s', { _tag: 'Get' }))
      expect(late._tag).toBe('ActorStopped')
      expect(late.message).toBe('actor stuck/s is stopped')
      expect(yield* actor.size).toBe(0)
    }),
  )

  it.scoped('handlers and load get their services from where the actor was made', () =>
    Effect.gen(function* () {
      class Greeting extends Context.Tag('Greeting')<Greeting, string>() {}
      class Greeter extends Actor.Tag('Greeter')<Greeter, typeof greeter>() {}
      const greeter = Actor.define({
        name: 'greeter',
        load: (id: string) => Effect.map(Greeting, (g) => `${g}, ${id}`),
        handlers: {
          Greet: (line, msg: { readonly punctuation: string }) =>
            Effect.map(Greeting, (g) => [`${line}${msg.punctuation} (${g})`, line] as const),
        },
      })
      const reply = yield* Effect.flatMap(Greeter, (actor) =>
        actor.ask('ana', { _tag: 'Greet', punctuation: '!' }),
      ).pipe(Effect.provide(Actor.layer(Greeter, greeter)), Effect.provideService(Greeting, 'hello'))
      expect(reply).toBe('hello, ana! (hello)')
    }),
  )
})

describe('Actor batch handlers', () => {
  /** A ledger whose `Add` takes whatever has queued up as one run (one "commit" per run). */
  const ledger = (runs: number[][], gate: Deferred.Deferred<void>) =>
    Actor.define({
      name: 'ledger',
      load: (_id: string) => Effect.succeed([] as readonly number[]),
      handlers: {
        Add: (s: readonly number[], m: { readonly n: number }) =>
          m.n < 0
            ? Effect.fail(new Insufficient({ balance: m.n }))
            : Effect.succeed([s.length + 1, [...s, m.n]] as const),
        Hold: (s: readonly number[]) => Effect.as(Deferred.await(gate), [s.length, s] as const),
        Entries: (s: readonly number[]) => Effect.succeed([s, s] as const),
      },
      batch: {
        Add: (s: readonly number[], msgs: ReadonlyArray<{ readonly n: number }>) =>
          Effect.sync(() => {
            runs.push(msgs.map((m) => m.n))
            let next = s
            const exits = msgs.map((m) => {
              if (m.n < 0) return Exit.fail(new Insufficient({ balance: m.n }))
              next = [...next, m.n]
              return Exit.succeed(next.length)
            })
            return [exits, next] as const
          }),
      },
    })

  it.scoped('takes what queued up as one run, in order, with one reply each', () =>
    Effect.gen(function* () {
      const runs: number[][] = []
      const gate = yield* Deferred.make<void>()
      const actor = yield* Actor.make(ledger(runs, gate))
      const held = yield* Effect.fork(actor.ask('a', { _tag: 'Hold' }))
      yield* settle
      // Queued behind Hold: 1, 2, 3, a failing -1, then Entries, then 4 and 5.
      const first = yield* Effect.forEach(
        [1, 2, 3, -1],
        (n) => Effect.fork(Effect.exit(actor.ask('a', { _tag: 'Add', n }))),
        {
          concurrency: 1,
        },
      )
      yield* settle
      const entries = yield* Effect.fork(actor.ask('a', { _tag: 'Entries' }))
      yield* settle
      const later = yield* Effect.forEach([4, 5], (n) => Effect.fork(actor.ask('a', { _tag: 'Add', n })), {
        concurrency: 1,
      })
      yield* settle
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(held)
      const replies = yield* Effect.forEach(first, Fiber.join)
      expect(replies.slice(0, 3).map((e) => (Exit.isSuccess(e) ? e.value : null))).toEqual([1, 2, 3])
      expect(Exit.isFailure(replies[3]!)).toBe(true)
      // The run stopped at Entries, which saw exactly the first run's work.
      expect(yield* Fiber.join(entries)).toEqual([1, 2, 3])
      expect(yield* Effect.forEach(later, Fiber.join)).toEqual([4, 5])
      expect(runs).toEqual([
        [1, 2, 3, -1],
        [4, 5],
      ])
    }),
  )
})
