// No import circles in src/ (type-only imports count too): a module that needs another's
// type or helper and is needed by it back is split instead (contacts.record.ts, demo/seeder.ts,
// rate-limit/decision.ts). madge reads the imports as the TypeScript compiler resolves them.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, test } from 'node:test'

const cli = createRequire(import.meta.url).resolve('madge/bin/cli.js')
const root = fileURLToPath(new URL('../../', import.meta.url))

/** The circles madge finds under `folder`, each a list of files. */
async function circles(folder: string): Promise<string[][]> {
  // madge exits 1 when it finds a circle; its answer is on stdout either way.
  const stdout = await promisify(execFile)(process.execPath, [cli, '--circular', '--json', '--extensions', 'ts', folder], { cwd: root }).then(
    (done) => done.stdout,
    (err: unknown) => {
      const output = (err as { stdout?: unknown }).stdout
      if (typeof output !== 'string' || output === '') throw err
      return output
    },
  )
  return JSON.parse(stdout) as string[][]
}

describe('import circles', () => {
  test('src/ has none', async () => {
    assert.deepEqual(await circles(join(root, 'src')), [])
  })

  test('a circle through a type-only import is found', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'engage-circles-'))
    try {
      await writeFile(join(folder, 'a.ts'), "import type { B } from './b.js'\nexport type A = { b: B }\n")
      await writeFile(join(folder, 'b.ts'), "import type { A } from './a.js'\nexport type B = { a?: A }\n")
      assert.deepEqual(await circles(folder), [['a.ts', 'b.ts']])
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })
})
