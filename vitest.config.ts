import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The database pool's guard records every wait it had to break (store/pool.ts); the test
    // server fails the file that caused one. Child servers inherit it through the environment.
    env: { DB_STRICT: '1' },
    // In CI one retry: a socket that gets no frame at all after `subscribed` fails a realtime test
    // now and then under the whole suite's load (three different tests in two of four clean-clone
    // runs on 2026-11-26, not reproduced alone; docs/decisions.md, "Known intermittent failure").
    // A failure that repeats still fails; run without CI set, nothing is retried.
    retry: process.env.CI ? 1 : 0,
    // One line when suites will skip for a missing Debian package (test/support/systemPackages.ts).
    globalSetup: ['test/support/globalSetup.ts'],
  },
})
