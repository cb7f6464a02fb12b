import type { ChildProcess } from 'node:child_process'

/** A child process of a test: the tail of what it printed, whether it still runs, its exit. */
export interface Watched {
  readonly output: () => string
  readonly alive: () => boolean
  /** Resolves with the exit code when the process has exited. */
  readonly exited: Promise<number | null>
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`; resolves once it has exited. */
  readonly stop: (graceMs: number) => Promise<void>
}

export const watch = (proc: ChildProcess): Watched => {
  let out = ''
  // The last 20 KB: enough for the lines before a failure, bounded for a chatty process.
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString('utf8')).slice(-20_000)
  }
  proc.stdout?.on('data', keep)
  proc.stderr?.on('data', keep)
  let running = true
  const exited = new Promise<number | null>((resolve) =>
    proc.once('exit', (code) => {
      running = false
      resolve(code)
    }),
  )
  return {
    output: () => out,
    alive: () => running,
    exited,
    stop: async (graceMs) => {
      if (!running) return
      proc.kill('SIGTERM')
      const done = await Promise.race([
        exited.then(() => true),
        new Promise((r) => setTimeout(() => r(false), graceMs)),
      ])
      if (!done) proc.kill('SIGKILL')
      await exited
    },
  }
}
