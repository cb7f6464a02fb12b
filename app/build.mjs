// The agent web app's build (called by build.mjs, so `npm install` and `npm run build` make it):
// app/src/main.tsx bundled for browsers into dist/app/assets/ with content-hashed names, split so
// that pages loaded with `import()` stay out of the first load, and dist/app/index.html naming
// the entry's script and styles. The server serves it at /app (http/routes/app.ts).
import * as fs from 'node:fs'
import * as path from 'node:path'
import * as esbuild from 'esbuild'

const page = (js, css) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Kotak</title>
<link rel="icon" href="data:,">
${css ? `<link rel="stylesheet" href="/app/assets/${css}">` : ''}
<script type="module" src="/app/assets/${js}"></script>
</head>
<body>
<div id="root"></div>
</body>
</html>
`

export const buildApp = async (root) => {
  const outdir = path.join(root, 'dist', 'app')
  const assets = path.join(outdir, 'assets')
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['app/src/main.tsx'],
    outdir: assets,
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: 'app/tsconfig.json',
    minify: true,
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
  })
  const outputs = Object.keys(result.metafile.outputs).map((f) => path.resolve(root, f))
  const written = new Set(outputs)
  for (const f of fs.readdirSync(assets)) {
    if (!written.has(path.join(assets, f))) fs.rmSync(path.join(assets, f), { force: true })
  }
  const entry = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint === 'app/src/main.tsx')
  const js = path.basename(entry[0])
  const css = entry[1].cssBundle ? path.basename(entry[1].cssBundle) : null
  fs.writeFileSync(path.join(outdir, 'index.html'), page(js, css))
  const bytes = outputs.filter((f) => f.endsWith('.js')).reduce((n, f) => n + fs.statSync(f).size, 0)
  return { files: outputs.length, bytes }
}
