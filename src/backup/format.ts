// The backup file: gzip around lines of text. A header line, then one section per table (a
// `T` line naming the table and its columns, the table's rows in PostgreSQL's COPY text
// format, and COPY's own end line `\.`), then the manifest as the last line. The manifest
// carries the SHA-256 and length of everything before it, so a restore can refuse a
// truncated or altered file before it touches the target; COPY's text format escapes line
// breaks inside values, so a line is always one row.
import { createHash, type Hash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { createGunzip } from 'node:zlib'

export const HEADER = 'engage-backup 1'
export const END_OF_TABLE = '\\.'

export interface TableManifest {
  /** schema.name */
  name: string
  columns: string[]
  rows: number
  /** SHA-256 (hex) of the table's COPY text in primary-key order: what the restored table gives again. */
  sha256: string
}

export interface Manifest {
  format: 'engage-backup'
  format_version: 1
  engage_version: string
  /** The last migration the database had: a restore rebuilds this schema, then migrates to its own. */
  schema_version: string
  migrations: string[]
  taken_at: string
  database: 'embedded' | 'postgres'
  server_version: string
  /** In the order a restore loads them (a table after those it refers to). */
  tables: TableManifest[]
  /** The master key (hex), only when asked for (`--with-secret-key`): docs/operating.md. */
  secret_key?: string
  /** SHA-256 (hex) and length in bytes of everything before the manifest's line. */
  sha256: string
  bytes: number
}

export class BackupFileError extends Error {}

/** Hashes and counts lines as they are written, the manifest's line excepted. */
export class ContentDigest {
  private readonly hash: Hash = createHash('sha256')
  bytes = 0

  add(text: string): void {
    this.hash.update(text)
    this.bytes += Buffer.byteLength(text)
  }

  hex(): string {
    return this.hash.digest('hex')
  }
}

/** The file's lines, decompressed; a damaged or cut gzip stream is a BackupFileError. */
export async function* backupLines(file: string): AsyncGenerator<string> {
  const input = createReadStream(file).pipe(createGunzip())
  const lines = createInterface({ input, crlfDelay: Infinity })
  // readline does not pass on its input's errors: a cut file would look like a short one.
  let damage: Error | undefined
  input.once('error', (err) => {
    damage = err
    lines.close()
  })
  const ended = new Promise((resolve) => input.once('end', resolve).once('close', resolve))
  try {
    for await (const line of lines) {
      if (damage) break
      yield line
    }
    if (!damage) await ended
  } catch (err) {
    damage ??= err instanceof Error ? err : new Error(String(err))
  } finally {
    lines.close()
    input.destroy()
  }
  if (damage) throw new BackupFileError(`${file} is not a complete engage backup (${damage.message})`)
}

const TABLE_LINE = /^T ([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)\t(.+)$/

/**
 * Reads the whole file once and checks it: the header, the sections, each table's row count
 * and SHA-256, and the manifest's digest of the content. Resolves to the manifest; a file that
 * does not hold together is a BackupFileError saying why. Nothing else is touched.
 */
export async function verifyBackup(file: string): Promise<Manifest> {
  const digest = new ContentDigest()
  let last: string | undefined
  const seen: { name: string; columns: string[]; rows: number; sha256: string }[] = []
  let table: { name: string; columns: string[]; rows: number; hash: Hash } | undefined
  let lineNo = 0
  for await (const line of backupLines(file)) {
    lineNo++
    if (last !== undefined) {
      digest.add(`${last}\n`)
      if (table) {
        if (last === END_OF_TABLE) {
          seen.push({ name: table.name, columns: table.columns, rows: table.rows, sha256: table.hash.digest('hex') })
          table = undefined
        } else {
          table.rows++
          table.hash.update(`${last}\n`)
        }
      } else {
        const match = TABLE_LINE.exec(last)
        if (lineNo === 2) {
          if (last !== HEADER) throw new BackupFileError(`${file} is not an engage backup (its first line is not "${HEADER}")`)
        } else if (match?.[1] && match[2]) {
          table = { name: match[1], columns: match[2].split(','), rows: 0, hash: createHash('sha256') }
        } else {
          throw new BackupFileError(`${file} is damaged: line ${String(lineNo - 1)} is neither a table nor the manifest`)
        }
      }
    }
    last = line
  }
  if (lineNo === 0) throw new BackupFileError(`${file} is empty`)
  if (lineNo === 1 && last !== undefined) {
    throw new BackupFileError(`${file} is not a complete engage backup (no manifest)`)
  }
  const manifest = parseManifest(file, last)
  if (table) throw new BackupFileError(`${file} is not a complete engage backup (table ${table.name} has no end)`)
  if (manifest.bytes !== digest.bytes || manifest.sha256 !== digest.hex()) {
    throw new BackupFileError(`${file} is damaged: its content does not match the checksum in its manifest`)
  }
  const expected = manifest.tables.map((t) => `${t.name}:${t.columns.join(',')}:${String(t.rows)}:${t.sha256}`)
  const found = seen.map((t) => `${t.name}:${t.columns.join(',')}:${String(t.rows)}:${t.sha256}`)
  if (expected.join('\n') !== found.join('\n')) {
    throw new BackupFileError(`${file} is damaged: its tables do not match its manifest`)
  }
  return manifest
}

function parseManifest(file: string, line: string | undefined): Manifest {
  if (!line?.startsWith('M ')) throw new BackupFileError(`${file} is not a complete engage backup (no manifest at its end)`)
  let manifest: Partial<Manifest>
  try {
    manifest = JSON.parse(line.slice(2)) as Partial<Manifest>
  } catch {
    throw new BackupFileError(`${file} is damaged: its manifest is not JSON`)
  }
  const ok =
    manifest.format === 'engage-backup' &&
    typeof manifest.schema_version === 'string' &&
    Array.isArray(manifest.migrations) &&
    manifest.migrations.every((m) => typeof m === 'string') &&
    Array.isArray(manifest.tables) &&
    typeof manifest.sha256 === 'string' &&
    typeof manifest.bytes === 'number' &&
    (manifest.secret_key === undefined || /^[0-9a-f]{64}$/.test(manifest.secret_key))
  if (!ok) throw new BackupFileError(`${file} is damaged: its manifest lacks fields a restore needs`)
  if (manifest.format_version !== 1) {
    throw new BackupFileError(`${file} is a backup of format ${String(manifest.format_version)}, which this engage cannot read (it reads format 1)`)
  }
  return manifest as Manifest
}

/** A table's columns as the section line writes them (names are the catalogue's: no comma). */
export const tableLine = (name: string, columns: string[]) => `T ${name}\t${columns.join(',')}\n`
