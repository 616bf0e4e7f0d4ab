// The worker thread that runs one claimed import (import-worker.ts starts it, one per import, and it
// ends with the import): the import's parsing, batch upserts and their statements, on a pool
// of its own with the main pool's connection settings. The thread's V8 heap is bounded
// (IMPORT_THREAD_LIMITS), so the memory an import takes between collections is bounded too and
// given back when it ends; on the main thread the same work let V8 grow its young generation
// to 128 MB and fill its old one with promoted garbage (docs/performance.md, "Memory").
import { parentPort, workerData } from 'node:worker_threads'
import pg from 'pg'
import { hardenCheckouts } from '../../db/client.js'
import { giveCounterSlots } from '../../db/counters.js'
import { useStatements, type StatementMode } from '../../db/query.js'
import type { ImportRow } from './contact-imports.repository.js'
import { runClaimed, type RunSettings } from './contact-imports.service.js'

/** What the thread is given. */
export interface ImportThreadData {
  /** The main pool's connection settings (functions left out: they do not cross threads). */
  pool: pg.PoolConfig
  statements: StatementMode
  row: ImportRow
  settings: Pick<RunSettings, 'batchRows' | 'leaseMs' | 'maxAttempts'>
}

/** What the main thread tells it: stop after the batch in hand. */
export type ImportThreadMessage = 'stop'

/** What it answers once, as it ends: the import's error, if it failed. */
export type ImportThreadResult = { ok: true } | { ok: false; error: { name: string; message: string; stack?: string | undefined } }

async function main(port: NonNullable<typeof parentPort>, data: ImportThreadData) {
  let stopping = false
  // The one message there is (ImportThreadMessage): stop after the batch in hand.
  port.on('message', () => {
    stopping = true
  })
  useStatements(data.statements)
  // Two connections: a batch's transaction, and the reads of the file's chunks beside it.
  const pool = new pg.Pool({ ...data.pool, max: 2 })
  giveCounterSlots(pool)
  // An idle client that lost its server, or one lost inside a transaction: the statement in
  // progress fails on its own (as the main pool's, src/db/client.ts).
  pool.on('error', () => undefined)
  pool.on('connect', (client) => {
    client.on('error', () => undefined)
  })
  hardenCheckouts(pool)
  let result: ImportThreadResult = { ok: true }
  try {
    await runClaimed(pool, data.row, () => new Date(), { ...data.settings, stopping: () => stopping })
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err))
    result = { ok: false, error: { name: error.name, message: error.message, stack: error.stack } }
  } finally {
    await pool.end()
  }
  port.postMessage(result)
  port.close()
}

if (parentPort) await main(parentPort, workerData as ImportThreadData)
