import * as fs from 'node:fs'
import * as path from 'node:path'

/**
 * A `--cpu-prof` profile of the server, summarised for a results page: where its own time went
 * (self time by function) and by package, so a missed target says what the limit is.
 */
interface Node {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
}
interface Profile {
  readonly nodes: readonly Node[]
  readonly samples: readonly number[]
}

const short = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/.*node_modules\//, '')
    .replace(/.*\/(?=(http|engine|store|actors|connectors|social)\/)/, '')

/** The `n` largest counts of `m`, each as a per cent of `total` (one decimal). */
export const top = (m: Map<string, number>, total: number, n: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => ({ name: k, percent: Math.round((1000 * v) / total) / 10 }))

export const summarise = (dir: string) => {
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')) : []
  if (files.length === 0) return null
  // The main thread's profile is the largest.
  const file = files
    .map((f) => path.join(dir, f))
    .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]!
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const self = new Map<string, number>()
  const byPackage = new Map<string, number>()
  for (const id of p.samples) {
    const n = byId.get(id)
    if (!n) continue
    const f = n.callFrame
    const where = short(f.url)
    self.set(
      `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber}`,
      (self.get(`${f.functionName || '(anonymous)'} ${where}:${f.lineNumber}`) ?? 0) + 1,
    )
    const pkg =
      where === ''
        ? f.functionName || '(native)'
        : where
            .split('/')
            .slice(0, where.startsWith('@') ? 2 : 1)
            .join('/')
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + 1)
  }
  const total = p.samples.length
  return { file, self: top(self, total, 12), packages: top(byPackage, total, 10) }
}

export const markdown = (s: NonNullable<ReturnType<typeof summarise>>) =>
  `## Server profile (--cpu-prof, main thread)\n\n` +
  `| self time | function |\n| --- | --- |\n${s.self.map((x) => `| ${x.percent} % | \`${x.name}\` |`).join('\n')}\n\n` +
  `| by package | |\n| --- | --- |\n${s.packages.map((x) => `| ${x.percent} % | ${x.name} |`).join('\n')}\n`
