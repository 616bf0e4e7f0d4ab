// Routes (the API's and the web application's) call services, never repositories: a handler
// hands over validated input, and the rules and statements stay behind the service. Types
// may come from a repository (`import type`). And one way to the database: no ORM, no
// Drizzle anywhere, the migrations being SQL files (docs/architecture.md, "The database").
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'

const src = fileURLToPath(new URL('../../src/', import.meta.url))

test('no route file nor web page imports a repository (types aside)', () => {
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .map((file) => file.split('\\').join('/'))
    .filter((file) => file.endsWith('.routes.ts') || (file.startsWith('web/') && file.endsWith('.ts')))
  assert.ok(files.length > 10, `only ${String(files.length)} route files`)
  const offenders = files.filter((file) =>
    /^import (?!type )(?:\{[^}]*\}|[^\n{]*) from '[^']*\.repository\.js'/m.test(readFileSync(join(src, file), 'utf8')),
  )
  assert.deepEqual(offenders, [])
})

test('nothing imports Drizzle (src, tests, benchmark, deploy, SDK, examples)', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url))
  const files = ['src', 'test', 'bench', 'deploy', 'sdk/src', 'sdk/scripts', 'examples'].flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.(?:ts|mts|js|mjs)$/.test(file))
      .map((file) => `${folder}/${file.split('\\').join('/')}`),
  )
  assert.ok(files.length > 300, `only ${String(files.length)} files`)
  const importers = files.filter((file) => /\b(?:from|import|require)\s*\(?\s*['"](?:drizzle-|@drizzle-team\/)/.test(readFileSync(join(root, file), 'utf8')))
  assert.deepEqual(importers, [])
})
