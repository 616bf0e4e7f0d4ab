// The SDK's generated types are those of the current OpenAPI document: a route schema
// changed without `npm run sdk:generate` fails here.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { generateSchema, SCHEMA_FILE } from '../../sdk/scripts/generate.js'

test('sdk/src/schema.ts is current (npm run sdk:generate)', async () => {
  const committed = await readFile(SCHEMA_FILE, 'utf8')
  assert.ok(committed === (await generateSchema()), 'sdk/src/schema.ts is out of date: run npm run sdk:generate')
})
