// The bench loads the compiled service by path at run time (bench/production.ts), where the
// compiler cannot see a moved file: each path it loads must name a source file that exists.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'

const root = fileURLToPath(new URL('../../', import.meta.url))

test('every module bench/production.ts loads at run time exists in src/', () => {
  const text = readFileSync(`${root}bench/production.ts`, 'utf8')
  const loaded = [...text.matchAll(/load<[^>]+>\('([^']+)\.js'\)/g)].map((match) => match[1] ?? '')
  assert.ok(loaded.length >= 5, `found ${String(loaded.length)} loads`)
  assert.deepEqual(loaded.filter((path) => !existsSync(`${root}src/${path}.ts`)), [])
})
