// Each folder of src/modules has one public face, its index.ts: code outside the folder
// imports the module only through it, so what a module lends is listed in one place and the
// rest of its files may change freely. Files inside a module import their siblings directly.
// Only src/ is checked: tests may import a module's internals.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, test } from 'node:test'

const src = fileURLToPath(new URL('../../src/', import.meta.url))

/** The relative specifiers a source imports or re-exports: `from '…'`, `import('…')`, `import '…'`. */
function specifiers(text: string): string[] {
  const found = text.matchAll(/\bfrom\s*'([^']+)'|\bimport\s*\(\s*'([^']+)'\s*\)|^\s*import\s*'([^']+)'/gm)
  return [...found].map((match) => match[1] ?? match[2] ?? match[3] ?? '').filter((specifier) => specifier.startsWith('.'))
}

/** The module folder a path relative to src/ lies in (`modules/<name>/…`); undefined elsewhere. */
const moduleOf = (file: string) => /^modules\/([^/]+)\/./.exec(file)?.[1]

/**
 * Every import into a module's files other than its index.ts from a file outside that
 * module's folder, as `importer → imported` (paths relative to src/), given each source's text.
 */
function bypasses(sources: Record<string, string>): string[] {
  const found: string[] = []
  for (const [file, text] of Object.entries(sources)) {
    for (const specifier of specifiers(text)) {
      const imported = posix.join(posix.dirname(file), specifier).replace(/\.js$/, '.ts')
      const owner = moduleOf(imported)
      if (owner === undefined || owner === moduleOf(file) || imported === `modules/${owner}/index.ts`) continue
      found.push(`${file} → ${imported}`)
    }
  }
  return found.sort()
}

const files = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .map((file) => file.split('\\').join('/'))
  .filter((file) => file.endsWith('.ts'))
  .sort()

describe('module faces', () => {
  test('every module folder has an index.ts', () => {
    const folders = readdirSync(join(src, 'modules'), { withFileTypes: true }).filter((entry) => entry.isDirectory())
    assert.ok(folders.length > 10, `only ${String(folders.length)} module folders`)
    assert.deepEqual(folders.filter((folder) => !existsSync(join(src, 'modules', folder.name, 'index.ts'))).map((folder) => `modules/${folder.name}/`), [])
  })

  test('code outside a module imports it only through its index.ts', () => {
    assert.ok(files.length > 200, `only ${String(files.length)} source files`)
    const found = bypasses(Object.fromEntries(files.map((file) => [file, readFileSync(join(src, file), 'utf8')])))
    if (found.length > 0) assert.fail(`import these through the module's index.ts (export what is missing there):\n${found.join('\n')}`)
  })

  test('the detector finds a bypass, of every import form, and nothing else', () => {
    const sources = {
      'app.ts': "import { a } from './modules/tasks/index.js'\nimport { b } from './modules/tasks/tasks.service.js'\n",
      'web/page.ts': "import type { C } from '../modules/users/users.schemas.js'\nconst d = await import('../modules/users/users.service.js')\n",
      'cli/run.ts': "export { e } from '../modules/tags/tags.repository.js'\nimport '../modules/tags/tags.routes.js'\nimport { f } from './command.js'\n",
      'modules/index.ts': "import { tasksRoutes } from './tasks/index.js'\n",
      'modules/tasks/tasks.service.ts': "import { g } from './tasks.repository.js'\nimport { h } from '../users/index.js'\nimport { i } from '../users/users.repository.js'\n",
    }
    assert.deepEqual(bypasses(sources), [
      'app.ts → modules/tasks/tasks.service.ts',
      'cli/run.ts → modules/tags/tags.repository.ts',
      'cli/run.ts → modules/tags/tags.routes.ts',
      'modules/tasks/tasks.service.ts → modules/users/users.repository.ts',
      'web/page.ts → modules/users/users.schemas.ts',
      'web/page.ts → modules/users/users.service.ts',
    ])
  })
})
