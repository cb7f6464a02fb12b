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
import { buildApp } from './app/build.mjs'

const root = path.dirname(fileURLToPath(import.meta.url))
const outdir = path.join(root, 'dist')
// The embedded database's thread (store/embeddedWorker.ts) is a worker's entry of its own.
const entryPoints = ['main.ts', 'cli.ts', 'social/main.ts', 'social/cli.ts', 'store/embeddedWorker.ts']

/**
 * Packages stay in node_modules, except Effect's (`effect`, `@effect/*`, and fast-check with its
 * generator, which Effect's Schema imports for property tests): bundled, so that only the modules
 * the service uses are loaded (their barrels import every module, ~600 for `effect` alone) and one
 * copy of Effect serves every @effect package. (measured: docs/decisions.md,
 * "Production start and footprint")
 */
const externalExceptEffect = {
  name: 'external-except-effect',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      /^(effect|@effect\/[^/]+|fast-check|pure-rand)(\/|$)/.test(args.path)
        ? undefined
        : { path: args.path, external: true },
    )
  },
}

// Base64 VLQ, the encoding of source map segments.
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const decodeVlq = (s) => {
  const out = []
  let value = 0
  let shift = 0
  for (const ch of s) {
    const digit = B64.indexOf(ch)
    value += (digit & 31) << shift
    if (digit & 32) shift += 5
    else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1)
      value = 0
      shift = 0
    }
  }
  return out
}
const encodeVlq = (n) => {
  let v = n < 0 ? (-n << 1) | 1 : n << 1
  let s = ''
  do {
    let digit = v & 31
    v >>>= 5
    if (v > 0) digit |= 32
    s += B64[digit]
  } while (v > 0)
  return s
}

/**
 * Keeps the source map's mappings of our own code only, line by line. Node parses the whole map of
 * every module it loads when source maps are on (`--enable-source-maps`): Effect's bundled code
 * would cost about 20 MB of heap for stack frames nobody reads as TypeScript, and a segment per
 * token of ours 6 MB. Effect's segments are left unmapped (a chunk of nothing but Effect has no
 * map), ours kept once per original line.
 */
const ownMappingsOnly = (file) => {
  const map = JSON.parse(fs.readFileSync(file, 'utf8'))
  const foreign = map.sources.map((s) => s.includes('node_modules/'))
  if (foreign.every(Boolean)) {
    // A chunk of Effect alone: no map at all (Node would still parse every unmapped segment).
    fs.rmSync(file)
    const js = file.slice(0, -'.map'.length)
    const code = fs.readFileSync(js, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\n?$/, '\n')
    fs.writeFileSync(js, code)
    return
  }
  const state = [0, 0, 0, 0] // source, line, column, name (absolute, carried across lines)
  const out = []
  let outState = [0, 0, 0]
  for (const line of map.mappings.split(';')) {
    let col = 0
    let outCol = 0
    const kept = []
    // One segment per original line on a generated line: a stack frame names the right line (its
    // column is that of the line's first mapped token), and Node keeps a quarter of the entries.
    let last = null
    for (const seg of line ? line.split(',') : []) {
      const d = decodeVlq(seg)
      col += d[0]
      if (d.length === 1) continue
      for (let i = 1; i < d.length; i++) state[i - 1] += d[i]
      if (foreign[state[0]]) {
        // An unmapped segment ends the range of the mapped one before it, if any.
        if (last === null || last === 'foreign') continue
        last = 'foreign'
        kept.push(encodeVlq(col - outCol))
        outCol = col
        continue
      }
      const key = `${state[0]}:${state[1]}`
      if (key === last) continue
      last = key
      kept.push(
        encodeVlq(col - outCol) +
          encodeVlq(state[0] - outState[0]) +
          encodeVlq(state[1] - outState[1]) +
          encodeVlq(state[2] - outState[2]),
      )
      outCol = col
      outState = [state[0], state[1], state[2]]
    }
    out.push(kept.join(','))
  }
  map.mappings = out.join(';')
  map.names = []
  fs.writeFileSync(file, JSON.stringify(map))
}

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
  plugins: [externalExceptEffect],
  sourcemap: 'linked',
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
})
// Chunks of earlier builds that this one no longer references.
const written = new Set(Object.keys(result.metafile.outputs).map((f) => path.resolve(root, f)))
const chunks = path.join(outdir, 'chunks')
for (const f of fs.existsSync(chunks) ? fs.readdirSync(chunks) : []) {
  if (!written.has(path.join(chunks, f))) fs.rmSync(path.join(chunks, f), { force: true })
}
for (const f of written) if (f.endsWith('.js.map')) ownMappingsOnly(f)
const files = [...written].filter((f) => f.endsWith('.js'))
const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0)
console.log(
  `build: ${entryPoints.length} entry points, ${files.length} files, ${Math.round(bytes / 1024)} KiB in dist/ (${Math.round(performance.now() - t0)} ms)`,
)
const app = await buildApp(root)
console.log(
  `build: the agent app, ${app.files} files, ${Math.round(app.bytes / 1024)} KiB of JavaScript in dist/app/`,
)
