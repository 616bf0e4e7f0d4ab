// A name found by search is the one thing it names: no two files of src/ share a name (a
// module's face, index.ts, aside), and no two files export a function, constant, class, type
// or interface of the same name (a schema and its type, `const X` and `type X`, are one
// name in one file), so that a reader never opens the wrong one.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'

const src = fileURLToPath(new URL('../../src/', import.meta.url))
const files = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .map((file) => file.split('\\').join('/'))
  .filter((file) => /\.(?:ts|css|svg|json|sql)$/.test(file))
  .sort()

/** Each name given to more than one place, with its places. */
function repeated(places: [name: string, place: string][]): Record<string, string[]> {
  const byName = new Map<string, string[]>()
  for (const [name, place] of places) {
    const where = byName.get(name) ?? []
    if (!where.includes(place)) byName.set(name, [...where, place])
  }
  return Object.fromEntries([...byName].filter(([, where]) => where.length > 1).sort(([a], [b]) => a.localeCompare(b)))
}

/** The names a source exports by declaration (`export function x`, `export const X`, …). */
export function exportedNames(text: string): string[] {
  return [...text.matchAll(/^export (?:declare )?(?:async )?(?:function\*? |const |let |class |interface |type |enum )([A-Za-z_$][\w$]*)/gm)].map((match) => match[1] ?? '')
}

test('no two files of src/ have the same name (index.ts aside)', () => {
  assert.ok(files.length > 150, `only ${String(files.length)} files`)
  const names = files.map((file): [string, string] => [basename(file), file]).filter(([name]) => name !== 'index.ts')
  assert.deepEqual(repeated(names), {})
})

test('no two declarations exported from src/ have the same name', () => {
  const names = files
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) => exportedNames(readFileSync(join(src, file), 'utf8')).map((name): [string, string] => [name, file]))
  assert.ok(names.length > 500, `only ${String(names.length)} exported names`)
  assert.deepEqual(repeated(names), {})
})

test('the reading of exports finds each kind of declaration', () => {
  const text = ['export function a() {}', 'export async function b() {}', 'export const C = 1', 'export interface D {}', 'export type E = 1', 'export class F {}', 'const g = 1', '  export const h = 1'].join('\n')
  assert.deepEqual(exportedNames(text), ['a', 'b', 'C', 'D', 'E', 'F'])
})
