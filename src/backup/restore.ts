// Restores a backup (src/backup/format.ts) into a database: checked first, then in one
// transaction the schema the backup was taken with is built by the migrations of that
// version, every table loaded through COPY (user triggers off: the kept columns come from the
// backup as they were), the identity sequences moved past the restored ids, and the
// migrations since applied. A failure leaves the database as it was.
import { once } from 'node:events'
import pg from 'pg'
import type { Db } from '../db/db.js'
import { from as copyFrom } from 'pg-copy-streams'
import { migrateWithin, migrationNames } from '../db/migrate.js'
import { run, runSingle } from '../db/query.js'
import { loadFramingStatement, SCHEMAS, sequenceResetsStatement, tableCountStatement, tablesStatement } from './catalog.js'
import { backupLines, BackupFileError, END_OF_TABLE, HEADER, type Manifest } from './format.js'

/** A restore that would overwrite data, or that this build cannot do: nothing was changed. */
export class RestoreRefusedError extends Error {}

/** Refuses a backup whose schema this build does not carry (taken by a newer engage). */
export function checkSchema(manifest: Manifest): void {
  const known = migrationNames()
  const prefix = manifest.migrations.every((name, i) => known[i] === name)
  if (!prefix || manifest.migrations.length === 0) {
    throw new RestoreRefusedError(
      `the backup's schema (${manifest.schema_version}, engage ${manifest.engage_version}) is not one this engage knows (its last is ${known.at(-1) ?? 'none'}): restore it with engage ${manifest.engage_version} or newer`,
    )
  }
}

/** Whether engage's schemas in this database hold any table. */
export async function holdsTables(client: pg.PoolClient): Promise<boolean> {
  return (await runSingle(client, tableCountStatement, [SCHEMAS])).count > 0
}

export interface RestoreOutcome {
  tables: number
  rows: number
}

/**
 * Loads a verified backup into the database `client` is connected to. A database that already
 * holds engage's tables is refused unless `force`, which drops them first.
 */
export async function restoreBackup(db: Db, file: string, manifest: Manifest, options: { force: boolean }): Promise<RestoreOutcome> {
  checkSchema(manifest)
  const client = db instanceof pg.Pool ? await db.connect() : db
  try {
    return await restoreOn(client, file, manifest, options)
  } finally {
    if (db instanceof pg.Pool) client.release()
  }
}

async function restoreOn(client: pg.PoolClient, file: string, manifest: Manifest, options: { force: boolean }): Promise<RestoreOutcome> {
  if (!options.force && (await holdsTables(client))) {
    throw new RestoreRefusedError('the target database already holds engage data; restore into an empty database (or an empty DATA_DIR), or add --force to replace everything in it')
  }
  // Schema changes and COPY cannot be prepared statements; their texts are fixed here or written by the catalogue.
  await client.query('begin')
  try {
    await client.query('set local statement_timeout = 0')
    if (options.force) await client.query('drop schema if exists migrations cascade; drop schema if exists public cascade; create schema public')
    await migrateWithin(client, { upTo: manifest.schema_version })
    const targets = new Map((await run(client, tablesStatement, [SCHEMAS])).map((t) => [t.name, t]))
    for (const table of manifest.tables) {
      const target = targets.get(table.name)
      if (target?.columns.join(',') !== table.columns.join(',')) {
        throw new BackupFileError(`${file} does not fit schema ${manifest.schema_version}: table ${table.name} differs`)
      }
    }
    const framing = await runSingle(client, loadFramingStatement, [SCHEMAS])
    await client.query(framing.truncate)
    for (const statement of framing.disable_triggers) await client.query(statement)
    const rows = await load(client, file, targets)
    for (const { reset } of await run(client, sequenceResetsStatement, [SCHEMAS])) await client.query(reset)
    for (const statement of framing.enable_triggers) await client.query(statement)
    await migrateWithin(client)
    await client.query('commit')
    return { tables: manifest.tables.length, rows }
  } catch (err) {
    await client.query('rollback').catch(() => undefined)
    throw err
  }
}

const FLUSH_BYTES = 256 * 1024

/** Streams each section of the file into its table's COPY … FROM STDIN; resolves to the rows loaded. */
async function load(client: pg.PoolClient, file: string, targets: Map<string, { copy_in: string }>): Promise<number> {
  let total = 0
  let copy: ReturnType<typeof copyFrom> | undefined
  // A refused row fails the COPY at any moment: every wait on the stream also waits on this.
  let failed: Promise<never> = new Promise(() => undefined)
  let batch: string[] = []
  let size = 0
  const flush = async () => {
    if (!copy || batch.length === 0) return
    const text = batch.join('')
    batch = []
    size = 0
    if (!copy.write(text)) await Promise.race([once(copy, 'drain'), failed])
  }
  for await (const line of backupLines(file)) {
    if (copy) {
      if (line === END_OF_TABLE) {
        await flush()
        const done = once(copy, 'finish')
        copy.end()
        await Promise.race([done, failed])
        total += copy.rowCount
        copy = undefined
      } else {
        batch.push(`${line}\n`)
        size += line.length + 1
        if (size >= FLUSH_BYTES) await flush()
      }
    } else if (line.startsWith('T ')) {
      const name = line.slice(2, line.indexOf('\t'))
      const target = targets.get(name)
      if (!target) throw new BackupFileError(`${file}: table ${name} is not in the schema`)
      const stream = client.query(copyFrom(target.copy_in))
      failed = new Promise<never>((_resolve, reject) => stream.once('error', reject))
      failed.catch(() => undefined)
      copy = stream
    } else if (line !== HEADER && !line.startsWith('M ')) {
      throw new BackupFileError(`${file} is damaged`)
    }
  }
  return total
}
