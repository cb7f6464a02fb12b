import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The project's root: the folder holding package.json, found upward from this module. Files that
 * are not TypeScript (SQL migrations, Lua scripts, the widget's browser files) stay in the source
 * tree and are read from there both when the code runs from source (tsx, tests) and when it runs
 * compiled (`dist/`, bundled into chunks whose own location says nothing about the source layout).
 */
const findRoot = (from: string): string => {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`)
  }
}

export const root = findRoot(path.dirname(fileURLToPath(import.meta.url)))

/** A file or folder of the source tree, by its path from the root (`sourcePath('store', 'migrations')`). */
export const sourcePath = (...segments: readonly string[]) => path.join(root, ...segments)
