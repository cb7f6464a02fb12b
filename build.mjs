#!/usr/bin/env node
// `npm run build` (and `prepare`, so `npm install` / `npm ci` build too): compiles the service's
// entry points to dist/ with esbuild (installed with tsx). Our own modules are bundled, split into
// shared chunks so that what is imported with `import()` (the messaging-app, e-mail, OIDC, cluster
// and embedded-database stacks) stays out of the start; packages stay in node_modules. Files that
// are not TypeScript (SQL, Lua, the widget) are read from the source tree (engine/sourceTree.ts).
// Run with `node --enable-source-maps dist/main.js` so stack traces name the .ts lines.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

const root = path.dirname(fileURLToPath(import.meta.url))
const outdir = path.join(root, 'dist')
const entryPoints = ['main.ts', 'cli.ts', 'social/main.ts', 'social/cli.ts']

const t0 = performance.now()
const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints,
  outdir,
  outbase: '.',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  keepNames: true,
  metafile: true,
  logLevel: 'warning',
})
// Chunks of earlier builds that this one no longer references.
const written = new Set(Object.keys(result.metafile.outputs).map((f) => path.resolve(root, f)))
const chunks = path.join(outdir, 'chunks')
for (const f of fs.existsSync(chunks) ? fs.readdirSync(chunks) : []) {
  if (!written.has(path.join(chunks, f))) fs.rmSync(path.join(chunks, f), { force: true })
}
const files = [...written].filter((f) => f.endsWith('.js'))
const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0)
console.log(
  `build: ${entryPoints.length} entry points, ${files.length} files, ${Math.round(bytes / 1024)} KiB in dist/ (${Math.round(performance.now() - t0)} ms)`,
)
