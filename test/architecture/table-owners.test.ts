// One owner per table (src/db/owners.ts): the SQL written in a source file of src/ names only
// tables its owner owns. A fragment composed from the owner's export (`${CONTACT_EXISTS}`)
// is written in the owner's file, so composing it is fine; naming the table is not.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'
import { TABLE_OWNERS } from '../../src/db/owners.js'
import { backends } from '../helpers/app.js'
import { rawRows, sql } from '../helpers/sql.js'

const src = fileURLToPath(new URL('../../src/', import.meta.url))

/** The source without its comments (prose says "from contacts" too). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '').replace(/\s\/\/ .*$/gm, '')

/** The tables a source names in SQL: after from, join, into, update, delete from, table. */
function tablesNamed(text: string): Set<string> {
  const named = new Set<string>()
  for (const match of code(text).matchAll(/\b(?:from|join|into|update|table)\s+([a-z_]+)\b/gi)) {
    const table = match[1]
    if (table !== undefined && table in TABLE_OWNERS) named.add(table)
  }
  return named
}

const owned = (file: string, table: string) => {
  const owner = TABLE_OWNERS[table] ?? ''
  return file === owner || file.startsWith(`${owner}/`)
}

const files = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
  .map((file) => file.split('\\').join('/'))
  .sort()

test('every table is named in SQL only by its owner (src/db/owners.ts)', () => {
  const found: Record<string, string[]> = {}
  for (const file of files) {
    const foreign = [...tablesNamed(readFileSync(join(src, file), 'utf8'))].filter((table) => !owned(file, table)).sort()
    if (foreign.length > 0) found[file] = foreign
  }
  if (process.env.PRINT_OWNERS === '1') console.log(JSON.stringify(found, null, 2))
  assert.deepEqual(found, {}, 'a module names a table of another: compose the owner\'s exported fragment or call its function')
})

test('every table of the migrated schema has an owner that exists', async () => {
  const [backend] = backends()
  if (!backend) throw new Error('no backend')
  const { database, drop } = await backend.open()
  try {
    const tables = await rawRows<{ name: string }>(database.db, sql`
      select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition`)
    assert.deepEqual(tables.map((t) => t.name).toSorted(), Object.keys(TABLE_OWNERS).toSorted())
  } finally {
    await drop()
  }
  for (const owner of new Set(Object.values(TABLE_OWNERS))) {
    assert.ok(files.some((file) => file === owner || file.startsWith(`${owner}/`)), `${owner} is no folder or file of src/`)
  }
})
