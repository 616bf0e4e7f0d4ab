// The TypeScript loader of `npm test`: tsx's transform (esbuild, this project's tsconfig),
// without tsx's hooks on every module the tests load. tsx resolves and loads each of the
// ~1,000 modules of an app test through its own hooks (0.5 s of CPU per test file, more than
// its transform); these hooks only turn `./x.js` into `./x.ts` and compile .ts files, cached
// on disk (node_modules/.cache/engage-test-loader: one file per source file, recompiled when
// the source changes). Node without module.registerHooks (before 22.15): tsx itself.
// Measured in docs/performance.md ("Test suite time").
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import module from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

if (typeof module.registerHooks !== 'function') {
  await import('tsx')
} else {
  const { transformSync, version } = await import('esbuild')
  const root = fileURLToPath(new URL('..', import.meta.url))
  const tsconfig = readFileSync(join(root, 'tsconfig.json'), 'utf8')
  const { compilerOptions } = JSON.parse(tsconfig)
  const cacheDir = join(root, 'node_modules', '.cache', 'engage-test-loader')
  mkdirSync(cacheDir, { recursive: true })
  const salt = createHash('sha256').update(version).update(process.version).update(tsconfig).digest('hex')
  process.setSourceMapsEnabled(true)

  const compile = (source, path) => {
    const cached = join(cacheDir, `${createHash('sha256').update(path).digest('hex').slice(0, 32)}.js`)
    const stamp = `// ${createHash('sha256').update(salt).update(source).digest('hex')}\n`
    let hit
    try {
      hit = readFileSync(cached, 'utf8')
    } catch {
      // not compiled yet
    }
    if (hit?.startsWith(stamp)) return hit.slice(stamp.length)
    const { code } = transformSync(source, {
      loader: 'ts',
      format: 'esm',
      target: `node${process.versions.node}`,
      sourcemap: 'inline',
      sourcefile: path,
      tsconfigRaw: { compilerOptions },
    })
    const partial = `${cached}.${String(process.pid)}`
    writeFileSync(partial, stamp + code)
    renameSync(partial, cached) // whole or not at all, for the files running at once
    return code
  }

  module.registerHooks({
    resolve(specifier, context, nextResolve) {
      if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
        try {
          return nextResolve(specifier, context)
        } catch {
          return nextResolve(`${specifier.slice(0, -3)}.ts`, context)
        }
      }
      return nextResolve(specifier, context)
    },
    load(url, context, nextLoad) {
      if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context)
      const path = fileURLToPath(url)
      return { format: 'module', source: compile(readFileSync(path, 'utf8'), path), shortCircuit: true }
    },
  })
}
