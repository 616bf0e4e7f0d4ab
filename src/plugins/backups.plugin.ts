// Scheduled backups (BACKUP_DIR, BACKUP_EVERY, BACKUP_KEEP; docs/operating.md): the running
// server writes a backup (src/backup/backup.ts) at the interval, keeps the newest BACKUP_KEEP
// and deletes older ones. The next is due an interval after the newest file in the folder,
// so a restart neither skips one nor takes an extra one. A failure is logged at error level
// and counted in the metrics; /readyz shows the last backup.
import { mkdir, readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { BackupBusyError, writeBackup } from '../backup/backup.js'
import { backupsTaken, lastBackupSize, lastBackupTime } from '../metrics/shared.js'
import { loadMasterKey } from '../secret-key.js'

export interface BackupsOptions {
  dir: string
  everyMs: number
  keep: number
  withSecretKey: boolean
}

export interface BackupState {
  lastAt: Date | null
  lastBytes: number | null
  /** Why the last attempt failed; null once one succeeds. */
  lastError: string | null
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Scheduled backups' last outcome (undefined when they are off). */
    backupState?: BackupState
  }
}

const NAME = /^engage-\d{8}T\d{6}Z\.backup$/
/** setTimeout holds at most this long; a longer wait is taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1

const fileName = (at: Date) => `engage-${at.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '')}.backup`

/** The scheduled backups in the folder, oldest first (the names sort by time). */
async function backupsIn(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => NAME.test(name)).sort()
}

async function backups(app: FastifyInstance, options: BackupsOptions) {
  const state: BackupState = { lastAt: null, lastBytes: null, lastError: null }
  app.decorate('backupState', state)
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let stopping = false

  const takeOne = async () => {
    const now = app.clock()
    try {
      await mkdir(options.dir, { recursive: true })
      const result = await writeBackup(app.db, join(options.dir, fileName(now)), {
        database: app.database.kind,
        secretKey: options.withSecretKey ? loadMasterKey(app.config) : undefined,
        now,
      })
      Object.assign(state, { lastAt: now, lastBytes: result.bytes, lastError: null })
      backupsTaken.inc({ result: 'ok' })
      lastBackupTime.set(now.getTime() / 1000)
      lastBackupSize.set(result.bytes)
      app.log.info({ file: result.file, bytes: result.bytes }, 'backup written')
      const kept = await backupsIn(options.dir)
      for (const old of kept.slice(0, Math.max(0, kept.length - options.keep))) await rm(join(options.dir, old), { force: true })
    } catch (err) {
      if (err instanceof BackupBusyError) {
        app.log.info('backup skipped: another instance is taking one')
        return
      }
      state.lastError = err instanceof Error ? err.message : String(err)
      backupsTaken.inc({ result: 'failed' })
      app.log.error({ err, dir: options.dir }, 'backup failed')
    }
  }

  const schedule = (dueAt: number) => {
    if (stopping) return
    const wait = Math.max(0, dueAt - app.clock().getTime())
    timer = setTimeout(() => {
      if (wait > MAX_TIMER_MS) {
        schedule(dueAt)
        return
      }
      running = takeOne().finally(() => {
        running = undefined
        schedule(app.clock().getTime() + options.everyMs)
      })
    }, Math.min(wait, MAX_TIMER_MS))
    timer.unref()
  }

  app.addHook('onReady', async () => {
    const newest = await backupsIn(options.dir).then((names) => names.at(-1), () => undefined)
    if (newest) {
      const written = await stat(join(options.dir, newest))
      Object.assign(state, { lastAt: written.mtime, lastBytes: written.size })
      lastBackupTime.set(written.mtime.getTime() / 1000)
      lastBackupSize.set(written.size)
      schedule(written.mtime.getTime() + options.everyMs)
    } else {
      schedule(app.clock().getTime())
    }
  })
  app.addHook('preClose', async () => {
    stopping = true
    clearTimeout(timer)
    await running
  })
}

export default fp(backups, { name: 'backups' })
