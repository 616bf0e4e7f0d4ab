// `backup --out FILE` and `restore --from FILE`: the same for the embedded database and for
// DATABASE_URL (docs/operating.md).
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { Type } from 'typebox'
import { defineCommand, defineStandaloneCommand } from '../cli/command.js'
import { loadConfig, type Config } from '../config.js'
import { openDatabase } from '../db/client.js'
import { schemaVersion } from '../db/migrate.js'
import { ApiError } from '../errors.js'
import { NonBlank, TrueFlag } from '../http/schemas.js'
import { loadMasterKey, secretKeyFile } from '../secret-key.js'
import { BackupBusyError, writeBackup } from './backup.js'
import { BackupFileError, verifyBackup, type Manifest } from './format.js'
import { restoreBackup, RestoreRefusedError } from './restore.js'

const refused = (message: string) => new ApiError(422, message)

/** A file or target the restore refuses is the operator's to fix: one line, exit 1, as any refusal. */
function refusal(err: unknown): never {
  if (err instanceof BackupFileError || err instanceof RestoreRefusedError || err instanceof BackupBusyError) throw refused(err.message)
  throw err
}

/** Where the restored database's master key is, after the restore: what the operator must know. */
function placeSecretKey(config: Config, manifest: Manifest): string {
  if (manifest.secret_key === undefined) {
    return 'the backup holds no secret key: start the service with the key it was taken with (DATA_DIR/secret.key or WEBHOOK_SECRET_KEY), else webhook secrets cannot be read (rotate them) and sync cursors start again'
  }
  const key = Buffer.from(manifest.secret_key, 'hex')
  if (config.secretKey) {
    return config.secretKey.equals(key)
      ? 'the backup\'s secret key is the one WEBHOOK_SECRET_KEY gives'
      : 'WEBHOOK_SECRET_KEY differs from the key in the backup: set it to the backup\'s key (or unset it to use DATA_DIR/secret.key, now the backup\'s), else webhook secrets cannot be read'
  }
  const file = secretKeyFile(config.dataDir)
  if (existsSync(file) && readFileSync(file, 'utf8').trim() === manifest.secret_key) return `the backup's secret key is the one in ${file}`
  writeFileSync(file, `${manifest.secret_key}\n`, { mode: 0o600 })
  return `the backup's secret key was written to ${file}`
}

export const backupCommands = [
  defineCommand({
    name: 'backup',
    summary: 'Write a consistent backup of the database while the service runs (docs/operating.md)',
    input: Type.Object({
      out: Type.With(NonBlank(4096), { placeholder: 'FILE', description: 'the file to write (it must not exist yet)' }),
      'with-secret-key': Type.Optional(Type.With(TrueFlag, { description: 'also keep the master key (webhook secrets, cursors) in the backup' })),
    }),
    async run(db, context, input) {
      const config = loadConfig(context.env)
      const file = resolve(input.out)
      if (existsSync(file)) throw refused(`${file} exists: choose another name, or remove it first`)
      const result = await writeBackup(db, file, {
        database: config.databaseUrl ? 'postgres' : 'embedded',
        secretKey: input['with-secret-key'] ? loadMasterKey(config) : undefined,
        now: context.now,
      }).catch(refusal)
      const { manifest } = result
      return {
        file: result.file,
        bytes: result.bytes,
        engage_version: manifest.engage_version,
        schema_version: manifest.schema_version,
        taken_at: manifest.taken_at,
        tables: Object.fromEntries(manifest.tables.map((t) => [t.name, t.rows])),
        secret_key_included: manifest.secret_key_included,
      }
    },
  }),
  defineStandaloneCommand({
    name: 'restore',
    summary: 'Restore a backup into an empty database or DATA_DIR (stop the service first; docs/operating.md)',
    input: Type.Object({
      from: Type.With(NonBlank(4096), { placeholder: 'FILE', description: 'the backup file' }),
      force: Type.Optional(Type.With(TrueFlag, { description: 'replace everything in a database that is not empty' })),
    }),
    async runAlone(context, input) {
      const file = resolve(input.from)
      if (!existsSync(file)) throw refused(`${file} does not exist`)
      // The whole file is read and checked before the target is opened, let alone changed.
      const manifest = await verifyBackup(file).catch(refusal)
      const config = loadConfig(context.env)
      const database = await openDatabase({
        databaseUrl: config.databaseDirectUrl ?? config.databaseUrl,
        dataDir: config.dataDir,
        migrate: false,
      })
      try {
        const outcome = await restoreBackup(database.db, file, manifest, { force: input.force === true }).catch(refusal)
        return {
          restored: file,
          taken_at: manifest.taken_at,
          engage_version: manifest.engage_version,
          schema_version: manifest.schema_version,
          migrated_to: schemaVersion(),
          tables: outcome.tables,
          rows: outcome.rows,
          secret_key: placeSecretKey(config, manifest),
        }
      } finally {
        await database.close()
      }
    },
  }),
]
