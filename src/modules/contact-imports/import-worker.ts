// The import worker: in every service process, one loop that claims a queued import (or one
// whose worker stopped: its lease ran out) and runs it to its end, a batch at a time
// (contact-imports.service.ts), in a worker thread of its own (import-thread.ts) whose heap
// is bounded (IMPORT_THREAD_LIMITS). Imports of one company run one after the other;
// instances share the work through the claim's SKIP LOCKED. On close it stops after the batch
// in hand and gives the import's lease up, so the next start resumes it at once.
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { FastifyBaseLogger } from 'fastify'
import pg from 'pg'
import type { Db } from '../../db/db.js'
import { statementMode } from '../../db/query.js'
import { Pause } from '../../pause.js'
import type { CompanyId } from '../../tenancy.js'
import { claimImport, releaseImport, type ImportRow } from './contact-imports.repository.js'
import { defaultRunSettings, type RunSettings } from './contact-imports.service.js'
import type { ImportThreadData, ImportThreadMessage, ImportThreadResult } from './import-thread.js'

export interface ImportWorkerOptions extends RunSettings {
  /** How often an idle worker looks for a queued import. */
  pollIntervalMs: number
}

export const defaultImportWorkerOptions = (): ImportWorkerOptions => ({ ...defaultRunSettings(), pollIntervalMs: 1000 })

/**
 * The import thread's heap is bounded so that V8 collects promoted garbage long before it
 * piles up, with room left for a batch of the longest records (MAX_RECORD_CHARS); the sizes
 * were measured in docs/performance.md, "Memory".
 */
export const IMPORT_THREAD_LIMITS = { maxYoungGenerationSizeMb: 12, maxOldGenerationSizeMb: 256 }

// The thread's module beside this one: .ts when the service runs from its sources (tsx), .js from dist/.
const THREAD = new URL(`./import-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url)

const STOP: ImportThreadMessage = 'stop'

export interface ImportWorkerDeps {
  db: Db
  clock: () => Date
  log: FastifyBaseLogger
}

/** The pool's connection settings as a worker thread can be given them: functions do not cross. */
function cloneable(options: Record<string, unknown>): pg.PoolConfig {
  const kept: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(options)) {
    if (typeof value === 'function' || value === undefined) continue
    kept[key] = value !== null && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value)
      ? Object.fromEntries(Object.entries(value).filter(([, inner]) => typeof inner !== 'function'))
      : value
  }
  return kept
}

export class ImportWorker {
  readonly options: ImportWorkerOptions
  private running: Promise<void> | undefined
  private stopping = false
  private thread: Worker | undefined
  private readonly pause = new Pause()

  constructor(
    private readonly deps: ImportWorkerDeps,
    options: Partial<ImportWorkerOptions> = {},
  ) {
    this.options = { ...defaultImportWorkerOptions(), ...options, stopping: () => this.stopping }
  }

  start(): void {
    this.running ??= this.loop()
  }

  /** Looks for a queued import now instead of at the next poll (a new upload). */
  wake(): void {
    this.pause.wake()
  }

  /** Stops after the batch in hand; the import it ran resumes at the next claim. */
  async stop(): Promise<void> {
    this.stopping = true
    this.thread?.postMessage(STOP)
    this.wake()
    await this.running
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      let ran = false
      try {
        ran = await this.runNext()
      } catch (err) {
        this.deps.log.error({ err }, 'contact import failed')
      }
      if (!ran) await this.pause.for(this.options.pollIntervalMs)
    }
  }

  /** Claims the next import due (any company) and runs it in a thread; false when none was due. */
  private async runNext(): Promise<boolean> {
    const { db, clock } = this.deps
    const now = clock()
    const row = await claimImport(db, now, new Date(now.getTime() + this.options.leaseMs))
    if (!row) return false
    const outcome = await this.runInThread(row)
    if (outcome instanceof Error) {
      // The thread died without a word (out of its heap, say): the import is given up, so
      // that the next claim resumes it after its last batch saved (and fails it after
      // maxAttempts claims).
      await releaseImport(db, row.company_id as CompanyId, row.id, row.attempts, clock()).catch(() => undefined)
      throw outcome
    }
    if (!outcome.ok) throw Object.assign(new Error(outcome.error.message), outcome.error)
    return true
  }

  private runInThread(row: ImportRow): Promise<ImportThreadResult | Error> {
    const { batchRows, leaseMs, maxAttempts } = this.options
    const data: ImportThreadData = {
      pool: cloneable((this.deps.db as pg.Pool & { options: Record<string, unknown> }).options),
      statements: statementMode(),
      row,
      settings: { batchRows, leaseMs, maxAttempts },
    }
    return new Promise((resolve) => {
      const thread = new Worker(THREAD, { workerData: data, resourceLimits: IMPORT_THREAD_LIMITS })
      this.thread = thread
      if (this.stopping) thread.postMessage(STOP)
      let answer: ImportThreadResult | Error | undefined
      thread.on('message', (message: ImportThreadResult) => {
        answer = message
      })
      thread.on('error', (err) => {
        answer ??= err
      })
      thread.on('exit', (code) => {
        this.thread = undefined
        resolve(answer ?? new Error(`the import thread exited with code ${String(code)} without an answer`))
      })
    })
  }
}
