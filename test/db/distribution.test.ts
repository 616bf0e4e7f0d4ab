// Citus-ready schema: every table is distributed by company_id (companies by its id), so
// every primary key, unique constraint or unique index, and foreign key must include the
// company, and a foreign key must join company to company (co-located shards). A key that
// does not fails here, unless it is listed below with the reason it may stay
// (docs/scaling.md, "Distributing by company").
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { backends, type Backend } from '../helpers/app.js'

/** The distribution column of each table that is not distributed by company_id. */
const DISTRIBUTED_BY: Record<string, string> = { companies: 'id' }

/**
 * Reference tables (a copy on every node, create_reference_table): the registered OAuth apps,
 * which users of any company may authorise (a few rows per company, read on consent and token
 * exchange; docs/scaling.md).
 */
const REFERENCE_TABLES = new Set<string>(['oauth_apps'])

/**
 * Keys allowed not to include the company, by index or constraint name: the global lookups,
 * which find a row by a secret's hash before the company is known. Under Citus each becomes
 * (company_id, token_hash) once the secret carries its company (docs/scaling.md, "Global
 * lookups"); until then they keep the lookup on one node.
 */
const ALLOWED: Record<string, string> = {
  api_tokens_token_hash_key: 'an api token is looked up by its hash alone (Authorization header, token revoke)',
  web_sessions_token_hash_key: 'a web session is looked up by its cookie hash alone',
  user_invites_token_hash_key: 'an invitation link is looked up by its hash alone',
  oauth_codes_code_hash_key: 'an OAuth authorization code is looked up by its hash alone (token endpoint)',
  oauth_refresh_tokens_token_hash_key: 'an OAuth refresh token is looked up by its hash alone (token, revoke and introspect endpoints)',
}

interface Violation {
  table: string
  name: string
  problem: string
}

/** Every key of the public schema that does not include its table's distribution column. */
async function violations(client: pg.Client): Promise<Violation[]> {
  const { rows: tables } = await client.query<{ table: string; columns: string[] }>(
    `select c.relname as table, array_agg(a.attname::text order by a.attnum) as columns
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      where n.nspname = 'public' and c.relkind in ('r', 'p')
      group by c.relname`,
  )
  const column = (table: string) => DISTRIBUTED_BY[table] ?? 'company_id'
  const found: Violation[] = []
  for (const { table, columns } of tables) {
    if (REFERENCE_TABLES.has(table)) continue
    if (!columns.includes(column(table))) found.push({ table, name: table, problem: `no ${column(table)} column` })
  }
  // Primary keys and unique constraints are unique indexes too; expressions count as no column.
  const { rows: uniques } = await client.query<{ table: string; name: string; columns: (string | null)[] }>(
    `select t.relname as table, i.relname as name,
            array(select a.attname::text from unnest(x.indkey::int2[]) with ordinality k(attnum, ord)
                    left join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum
                   order by k.ord) as columns
       from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
       join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = 'public' and x.indisunique`,
  )
  for (const { table, name, columns } of uniques) {
    if (REFERENCE_TABLES.has(table)) continue
    if (!columns.includes(column(table))) found.push({ table, name, problem: `unique key (${columns.map((c) => c ?? '<expression>').join(', ')}) without ${column(table)}` })
  }
  const { rows: foreign } = await client.query<{ table: string; name: string; columns: string[]; target: string; targetColumns: string[] }>(
    `select t.relname as table, c.conname as name, f.relname as target,
            array(select a.attname::text from unnest(c.conkey) with ordinality k(attnum, ord)
                    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum order by k.ord) as columns,
            array(select a.attname::text from unnest(c.confkey) with ordinality k(attnum, ord)
                    join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.attnum order by k.ord) as "targetColumns"
       from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_class f on f.oid = c.confrelid
       join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = 'public' and c.contype = 'f'`,
  )
  for (const { table, name, columns, target, targetColumns } of foreign) {
    if (REFERENCE_TABLES.has(target) || REFERENCE_TABLES.has(table)) continue // any table may reference one
    const at = columns.indexOf(column(table))
    if (at < 0 || targetColumns[at] !== column(target)) {
      found.push({ table, name, problem: `foreign key (${columns.join(', ')}) -> ${target} (${targetColumns.join(', ')}) does not join ${column(table)} to ${target}.${column(target)}` })
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name))
}

for (const backend of backends()) {
  describe(`distribution by company (${backend.name})`, () => {
    let opened: Awaited<ReturnType<Backend['open']>>
    let client: pg.Client
    before(async () => {
      opened = await backend.open()
      client = new pg.Client({ connectionString: opened.url })
      await client.connect()
    })
    after(async () => {
      await client.end()
      await opened.drop()
    })

    test('every key includes the company, apart from the listed global lookups', async () => {
      const found = await violations(client)
      const unexpected = found.filter((v) => !(v.name in ALLOWED))
      assert.deepEqual(unexpected, [], 'add company_id to these keys (or, for a global lookup, list it with its reason)')
      // Each allowance still names a key that breaks the rule: none is left over.
      assert.deepEqual(found.map((v) => v.name), Object.keys(ALLOWED).sort())
    })

    test('the check finds a key, a unique index and a foreign key without the company', async () => {
      await client.query('begin')
      try {
        await client.query(`create table stray (id bigint primary key, company_id bigint not null, code text,
                              contact_id bigint references stray (id))`)
        await client.query('create unique index stray_code_key on stray (lower(code))')
        const found = (await violations(client)).filter((v) => v.table === 'stray')
        assert.deepEqual(found.map((v) => [v.name, v.problem]), [
          ['stray_code_key', 'unique key (<expression>) without company_id'],
          ['stray_contact_id_fkey', 'foreign key (contact_id) -> stray (id) does not join company_id to stray.company_id'],
          ['stray_pkey', 'unique key (id) without company_id'],
        ])
      } finally {
        await client.query('rollback')
      }
    })
  })
}
