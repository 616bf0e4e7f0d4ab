// The search fold worker: in every service process, one loop that folds the changes of
// contacts' search texts (contact_search_changes, written by the contacts' triggers) into the
// counters of their grams, which total a 1–2 character search (contacts.repository.ts,
// contacts.searchGram). A search adds the changes still waiting to the counters, so totals
// are exact whatever this worker's delay: it only keeps that addition short. Instances share
// the work through the fold's SKIP LOCKED; on close it stops after the batch in hand.
import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../../db/db.js'
import { Pause } from '../../pause.js'
import { companiesWithSearchChanges, foldSearchChanges } from './contacts.repository.js'

export interface SearchFoldOptions {
  /** How often an idle worker looks for changes. */
  pollIntervalMs: number
  /** Changes folded per statement (a few thousand: tens of milliseconds). */
  batch: number
  /** Companies looked at per round. */
  companies: number
}

export const defaultSearchFoldOptions = (): SearchFoldOptions => ({ pollIntervalMs: 1000, batch: 2000, companies: 100 })

export class SearchFoldWorker {
  readonly options: SearchFoldOptions
  private running: Promise<void> | undefined
  private stopping = false
  private readonly pause = new Pause()

  constructor(
    private readonly deps: { db: Db; log: FastifyBaseLogger },
    options: Partial<SearchFoldOptions> = {},
  ) {
    this.options = { ...defaultSearchFoldOptions(), ...options }
  }

  start(): void {
    this.running ??= this.loop()
  }

  async stop(): Promise<void> {
    this.stopping = true
    this.pause.wake()
    await this.running
  }

  /** One round: every company's waiting changes, a batch at a time; answers how many were folded. */
  async round(): Promise<number> {
    let folded = 0
    for (const companyId of await companiesWithSearchChanges(this.deps.db, this.options.companies)) {
      for (;;) {
        if (this.stopping) return folded
        const n = await foldSearchChanges(this.deps.db, companyId, this.options.batch)
        folded += n
        if (n < this.options.batch) break
      }
    }
    return folded
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.round()
      } catch (err) {
        this.deps.log.error({ err }, 'folding search changes failed')
      }
      await this.pause.for(this.options.pollIntervalMs)
    }
  }
}
