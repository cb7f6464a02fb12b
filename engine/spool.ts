import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Data, Effect, type Scope } from 'effect'

/** The source of a spool failed (the client went away, the body broke off): its error is `cause`. */
export class SourceFailed extends Data.TaggedError('SourceFailed')<{ readonly cause: unknown }> {}

/**
 * Bytes that arrive at the sender's pace (an upload), copied whole to a temporary file and handed
 * back as a stream read from that file, at the disk's pace. For work that must not wait on a
 * client while it holds something others need: a transaction holds a database connection, and the
 * embedded database has only one (docs/decisions.md, "One connection, no waiting on it"). Memory
 * stays bounded (the copy follows the source's backpressure); the file is private to this
 * process's user and removed when the scope closes. A failure of the source is `SourceFailed`; one
 * of the disk (full, not writable) is a defect, as a storage fault is elsewhere (500). Interrupting
 * the copy stops it.
 */
export const spool = (
  source: AsyncIterable<Uint8Array>,
  prefix = 'kotak-spool-',
): Effect.Effect<AsyncIterable<Uint8Array>, SourceFailed, Scope.Scope> =>
  Effect.gen(function* () {
    const dir = yield* Effect.acquireRelease(
      Effect.promise(() => fs.promises.mkdtemp(path.join(os.tmpdir(), prefix))),
      (d) => Effect.ignore(Effect.tryPromise(() => fs.promises.rm(d, { recursive: true, force: true }))),
    )
    const file = path.join(dir, 'bytes')
    let failed: { readonly cause: unknown } | undefined
    async function* read() {
      try {
        for await (const chunk of source) yield chunk
      } catch (cause) {
        failed = { cause }
        throw cause
      }
    }
    yield* Effect.tryPromise({
      try: (signal) => pipeline(read(), fs.createWriteStream(file, { flags: 'wx', mode: 0o600 }), { signal }),
      catch: (e) => e,
    }).pipe(Effect.catchAll((e) => (failed ? Effect.fail(new SourceFailed(failed)) : Effect.die(e))))
    return fs.createReadStream(file)
  })
