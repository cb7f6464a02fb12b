// Records every module a Node process loads, for test/startup.test.ts and the footprint bench:
//
//   LOADED_MODULES_FILE=/tmp/x.json node --import ./test/support/loadedModules.mjs dist/main.js
//
// ES modules are seen by a loader hook (module.register; the hook runs on a thread of its own and
// posts each URL here); CommonJS modules required by other CommonJS modules never pass that hook,
// so the CommonJS cache is added. On exit the process writes the sorted list of file URLs.
import * as fs from 'node:fs'
import { createRequire, register } from 'node:module'
import { pathToFileURL } from 'node:url'
import { isMainThread, MessageChannel } from 'node:worker_threads'

const file = process.env.LOADED_MODULES_FILE
if (!file) throw new Error('loadedModules.mjs: set LOADED_MODULES_FILE')
// Workers inherit `--import`: the embedded database's thread (store/embeddedWorker.ts) is not the
// node's start, and must not write over the main thread's record.
if (isMainThread) {
  const seen = new Set()
  const { port1, port2 } = new MessageChannel()
  port1.on('message', (url) => seen.add(url))
  port1.unref()
  register('./loadedModulesHook.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] })
  const cache = createRequire(import.meta.url).cache
  process.on('exit', () => {
    for (const f of Object.keys(cache)) seen.add(pathToFileURL(f).href)
    fs.writeFileSync(
      file,
      `${JSON.stringify([...seen].filter((u) => u.startsWith('file:')).sort(), null, 1)}\n`,
    )
  })
}
