// No circles between the folders of src/modules (type-only imports count too): the file-level
// test (import-circles.test.ts) cannot see auth/a.ts → users/b.ts → auth/c.ts. Where two
// modules need each other, the shared piece moves to the folder that owns it, to a module
// folder of its own that both import (outbox/), or below the modules (src/acting.ts,
// src/scopes.ts). madge reads the imports as the compiler resolves them.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, test } from 'node:test'

const cli = createRequire(import.meta.url).resolve('madge/bin/cli.js')
const root = fileURLToPath(new URL('../../', import.meta.url))

/** Every file under `folder` with the files it imports, relative to `folder`. */
async function fileGraph(folder: string): Promise<Record<string, string[]>> {
  const { stdout } = await promisify(execFile)(process.execPath, [cli, '--json', '--extensions', 'ts', folder], { cwd: root, maxBuffer: 64 * 1024 * 1024 })
  return JSON.parse(stdout) as Record<string, string[]>
}

/** The module folder of a path relative to the modules' folder; undefined outside one. */
const folderOf = (file: string) => (file.startsWith('../') || !file.includes('/') ? undefined : file.slice(0, file.indexOf('/')))

/**
 * The circles between the folders under `folder`: each group of folders that reach each
 * other through imports (a strongly connected component), written as its edges, each edge
 * with the imports that make it (`auth → users: auth/a.ts → users/b.ts`).
 */
async function folderCircles(folder: string): Promise<string[][]> {
  const edges = new Map<string, Map<string, string[]>>()
  for (const [file, imports] of Object.entries(await fileGraph(folder))) {
    const from = folderOf(file)
    if (from === undefined) continue
    for (const imported of imports) {
      const to = folderOf(imported)
      if (to === undefined || to === from) continue
      const targets = edges.get(from) ?? new Map<string, string[]>()
      edges.set(from, targets)
      targets.set(to, [...(targets.get(to) ?? []), `${file} → ${imported}`])
    }
  }
  // Tarjan's strongly connected components, over the folders in name order.
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const components: string[][] = []
  const visit = (node: string) => {
    index.set(node, index.size)
    low.set(node, index.get(node) ?? 0)
    stack.push(node)
    for (const next of [...(edges.get(node)?.keys() ?? [])].sort()) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0))
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0))
      }
    }
    if (low.get(node) !== index.get(node)) return
    const component: string[] = []
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      component.push(member)
      if (member === node) break
    }
    if (component.length > 1) components.push(component.sort())
  }
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node)
  return components
    .sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''))
    .map((component) =>
      component.flatMap((from) =>
        [...(edges.get(from) ?? new Map<string, string[]>())]
          .filter(([to]) => component.includes(to))
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([to, imports]) => `${from} → ${to}: ${imports.sort().join(', ')}`),
      ),
    )
}

describe('circles between module folders', () => {
  test('src/modules has none', async () => {
    assert.deepEqual(await folderCircles(join(root, 'src', 'modules')), [], 'a circle between module folders: move the shared piece to its owner or below the modules')
  })

  test('a circle through other files and a type-only import is found, with its files', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'engage-module-circles-'))
    try {
      for (const name of ['a', 'b', 'c']) await mkdir(join(folder, name))
      await writeFile(join(folder, 'a', 'one.ts'), "import { b } from '../b/two.js'\nexport const a = b + 1\n")
      await writeFile(join(folder, 'a', 'three.ts'), 'export type A = { a: number }\n')
      await writeFile(join(folder, 'b', 'two.ts'), "import type { A } from '../a/three.js'\nexport const b = 1\nexport type B = A\n")
      await writeFile(join(folder, 'c', 'four.ts'), "import { a } from '../a/one.js'\nexport const c = a\n")
      assert.deepEqual(await folderCircles(folder), [['a → b: a/one.ts → b/two.ts', 'b → a: b/two.ts → a/three.ts']])
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })
})
