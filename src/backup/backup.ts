// Takes a backup while the service runs and writes: every table of engage's schemas read in
// one REPEATABLE READ transaction (one snapshot, as pg_dump reads), streamed through COPY
// into the file (src/backup/format.ts), then the manifest. The file appears under its name
// only once complete (written beside it, then renamed), so a failed or interrupted backup
// never leaves a file that looks like one.
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { rename, rm, stat } from 'node:fs/promises'
import { pipeline } from 'node:stream/promises'
import { StringDecoder } from 'node:string_decoder'
import { createGzip } from 'node:zlib'
import pg from 'pg'
import { to as copyTo } from 'pg-copy-streams'
import type { Db } from '../db/db.js'
import { run, runSingle } from '../db/query.js'
import { VERSION } from '../version.js'
import {
  appliedMigrationsStatement,
  backupLockStatement,
  referencesStatement,
  SCHEMAS,
  serverVersionStatement,
  tablesStatement,
  type TableRow,
} from './catalog.js'
import { ContentDigest, END_OF_TABLE, HEADER, tableLine, type Manifest, type TableManifest } from './format.js'

export interface BackupOptions {
  /** The master key (src/secret-key.ts) to keep in the manifest; left out unless asked for. */
  secretKey?: Buffer | undefined
  database: 'embedded' | 'postgres'
  now: Date
}

export interface BackupResult {
  file: string
  bytes: number
  manifest: Omit<Manifest, 'secret_key'> & { secret_key_included: boolean }
}

export class BackupBusyError extends Error {}

/** Orders tables so that each comes after the tables its foreign keys name. */
export function loadOrder(tables: TableRow[], references: { from: string; to: string }[]): TableRow[] {
  const byName = new Map(tables.map((t) => [t.name, t]))
  const ordered: TableRow[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (name: string) => {
    const mark = state.get(name)
    if (mark === 'done') return
    if (mark === 'visiting') throw new Error(`the foreign keys of ${name} form a circle: a backup cannot order them`)
    state.set(name, 'visiting')
    for (const ref of references) if (ref.from === name && byName.has(ref.to)) visit(ref.to)
    state.set(name, 'done')
    const table = byName.get(name)
    if (table) ordered.push(table)
  }
  for (const table of tables) visit(table.name)
  return ordered
}

/** Writes one backup of the database to `file`; another backup under way elsewhere is a BackupBusyError. */
export async function writeBackup(db: Db, file: string, options: BackupOptions): Promise<BackupResult> {
  const client = db instanceof pg.Pool ? await db.connect() : db
  const partial = `${file}.partial`
  let broken: Error | undefined
  try {
    // COPY and transaction settings cannot be prepared statements; their texts are fixed here.
    await client.query('begin isolation level repeatable read, read only')
    try {
      // The server's pool limits statements to a few seconds; a COPY of a large table takes longer.
      await client.query('set local statement_timeout = 0')
      if (!(await runSingle(client, backupLockStatement, [])).locked) throw new BackupBusyError('another backup of this database is under way')
      const [tables, references, migrations, server] = [
        await run(client, tablesStatement, [SCHEMAS]),
        await run(client, referencesStatement, [SCHEMAS]),
        await run(client, appliedMigrationsStatement, []),
        await runSingle(client, serverVersionStatement, []),
      ]
      const digest = new ContentDigest()
      const gzip = createGzip({ level: 4 })
      const written = pipeline(gzip, createWriteStream(partial, { mode: 0o600 }))
      written.catch(() => undefined)
      const write = async (text: string) => {
        digest.add(text)
        if (!gzip.write(text)) await once(gzip, 'drain')
      }
      await write(`${HEADER}\n`)
      const manifestTables: TableManifest[] = []
      for (const table of loadOrder(tables, references)) {
        await write(tableLine(table.name, table.columns))
        const hash = createHash('sha256')
        let rows = 0
        let pending = ''
        const decoder = new StringDecoder('utf8') // a chunk may end inside a character
        const copy = client.query(copyTo(table.copy_out))
        for await (const chunk of copy as AsyncIterable<Buffer>) {
          const text = pending + decoder.write(chunk)
          const end = text.lastIndexOf('\n') + 1
          pending = text.slice(end)
          const lines = text.slice(0, end)
          for (let i = lines.indexOf('\n'); i !== -1; i = lines.indexOf('\n', i + 1)) rows++
          hash.update(lines)
          await write(lines)
        }
        // pg arms its client-side query_timeout for every query and disarms it in the query's
        // callback, which a COPY TO stream never calls, so it is called here: a timer left armed
        // would keep `engage-admin backup` alive after it is done and then error the stream.
        ;(copy as { callback?: () => void }).callback?.()
        if (pending + decoder.end() !== '') throw new Error(`COPY of ${table.name} ended inside a row`)
        await write(`${END_OF_TABLE}\n`)
        manifestTables.push({ name: table.name, columns: table.columns, rows, sha256: hash.digest('hex') })
      }
      const manifest: Manifest = {
        format: 'engage-backup',
        format_version: 1,
        engage_version: VERSION,
        schema_version: migrations.at(-1)?.name ?? 'none',
        migrations: migrations.map((m) => m.name),
        taken_at: options.now.toISOString(),
        database: options.database,
        server_version: server.version,
        tables: manifestTables,
        ...(options.secretKey ? { secret_key: options.secretKey.toString('hex') } : {}),
        sha256: digest.hex(),
        bytes: digest.bytes,
      }
      gzip.end(`M ${JSON.stringify(manifest)}\n`)
      await written
      await client.query('commit')
      await rename(partial, file)
      const { secret_key: key, ...shown } = manifest
      return { file, bytes: (await stat(file)).size, manifest: { ...shown, secret_key_included: key !== undefined } }
    } catch (err) {
      await client.query('rollback').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error('rollback failed')
      })
      throw err
    }
  } catch (err) {
    await rm(partial, { force: true })
    throw err
  } finally {
    if (db instanceof pg.Pool) client.release(broken)
  }
}
