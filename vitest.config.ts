import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One line when suites will skip for a missing Debian package (test/support/systemPackages.ts).
    globalSetup: ['test/support/globalSetup.ts'],
  },
})
