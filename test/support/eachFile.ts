import { forgetSockets } from '../../connectors/msgapp/TransportTest'

/**
 * Runs before each test file. Files share their worker's process and modules (vitest.config.ts,
 * `isolate: false`), so what a module keeps for the whole process and a file could trip over is
 * reset here: the test transport's sockets, known by channel ids that every file's database repeats.
 */
forgetSockets()
