// The import worker: in every service process, one loop that claims a queued import (or one
// whose worker stopped: its lease ran out) and runs it to its end, a batch at a time
// (contact-imports.service.ts). Imports of one company run one after the other; instances
// share the work through the claim's SKIP LOCKED. On close it stops after the batch in
// hand and gives the import's lease up, so the next start resumes it at once.
import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../../db/db.js'
import { Pause } from '../../pause.js'
import { defaultRunSettings, runNextImport, type RunSettings } from './contact-imports.service.js'

export interface ImportWorkerOptions extends RunSettings {
  /** How often an idle worker looks for a queued import. */
  pollIntervalMs: number
}

export const defaultImportWorkerOptions = (): ImportWorkerOptions => ({ ...defaultRunSettings(), pollIntervalMs: 1000 })

export interface ImportWorkerDeps {
  db: Db
  clock: () => Date
  log: FastifyBaseLogger
}

export class ImportWorker {
  readonly options: ImportWorkerOptions
  private running: Promise<void> | undefined
  private stopping = false
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
    this.wake()
    await this.running
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      let ran = false
      try {
        ran = await runNextImport(this.deps.db, this.deps.clock, this.options)
      } catch (err) {
        this.deps.log.error({ err }, 'contact import failed')
      }
      if (!ran) await this.pause.for(this.options.pollIntervalMs)
    }
  }
}
