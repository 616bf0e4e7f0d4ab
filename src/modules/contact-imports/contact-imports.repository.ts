// Every statement of contact imports (migrations/0021_contact_imports.sql): the import's
// record, its file's chunks, its rejected rows, and the worker's claim and progress.
import { allowLongerWaits, type Db } from '../../db/db.js'
import { COMPANY } from '../../db/company.js'
import { defineQuery, run, runOne, runSingle } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'

export type ImportState = 'draft' | 'queued' | 'running' | 'done' | 'failed'

export interface ImportRow {
  company_id: number
  id: number
  user_id: number
  file_name: string
  file_bytes: number
  state: ImportState
  dry_run: boolean
  options: unknown
  rows_done: number
  bytes_done: number
  created_count: number
  updated_count: number
  skipped_count: number
  rejected_count: number
  attempts: number
  failure: string | null
  started_at: Date | null
  finished_at: Date | null
  created_at: Date
  updated_at: Date
}

const IMPORT_COLUMNS = `company_id, id, user_id, file_name, file_bytes::float8 as file_bytes, state, dry_run, options,
       rows_done::float8 as rows_done, bytes_done::float8 as bytes_done, created_count::float8 as created_count,
       updated_count::float8 as updated_count, skipped_count::float8 as skipped_count,
       rejected_count::float8 as rejected_count, attempts, failure, started_at, finished_at, created_at, updated_at`

const insertStatement = defineQuery<ImportRow>(
  'contactImports.insert',
  `insert into contact_imports (company_id, user_id, file_name, file_bytes, state, dry_run, options, created_at, updated_at)
   values ($1, $2, $3, 0, $7, $4, $5::json, $6, $6)
   returning ${IMPORT_COLUMNS}`,
)

/** A new queued import, its file still to come (setImportFile). */
export function insertImport(
  db: Db,
  companyId: CompanyId,
  values: { userId: number; fileName: string; dryRun: boolean; options: object; now: Date; draft: boolean },
): Promise<ImportRow> {
  return runSingle(db, insertStatement, [
    companyId, values.userId, values.fileName, values.dryRun, JSON.stringify(values.options), values.now, values.draft ? 'draft' : 'queued',
  ])
}

const chunkInsert = defineQuery<never>(
  'contactImports.insertChunk',
  `insert into contact_import_chunks (company_id, import_id, seq, data) values ($1, $2, $3, $4)`,
)

export async function insertChunk(db: Db, companyId: CompanyId, importId: number, seq: number, data: Buffer): Promise<void> {
  await run(db, chunkInsert, [companyId, importId, seq, data])
}

const fileSet = defineQuery<ImportRow>(
  'contactImports.setFile',
  `update contact_imports set file_bytes = $3, options = $4::json
    where company_id = ${COMPANY} and id = $2
   returning ${IMPORT_COLUMNS}`,
)

/** The file's size and the options read from it (encoding, separator, columns). */
export function setImportFile(db: Db, companyId: CompanyId, id: number, bytes: number, options: object): Promise<ImportRow> {
  return runSingle(db, fileSet, [companyId, id, bytes, JSON.stringify(options)])
}

// A draft's mapping confirmed: it joins the queue.
const confirmStatement = defineQuery<ImportRow>(
  'contactImports.confirm',
  `update contact_imports set state = 'queued', options = $3::json, updated_at = $4
    where company_id = ${COMPANY} and id = $2 and state = 'draft'
   returning ${IMPORT_COLUMNS}`,
)

export function confirmDraft(db: Db, companyId: CompanyId, id: number, options: object, now: Date): Promise<ImportRow | undefined> {
  return runOne(db, confirmStatement, [companyId, id, JSON.stringify(options), now])
}

// By primary key.
const byId = defineQuery<ImportRow>(
  'contactImports.byId',
  `select ${IMPORT_COLUMNS} from contact_imports where company_id = ${COMPANY} and id = $2`,
)

export function findImport(db: Db, companyId: CompanyId, id: number): Promise<ImportRow | undefined> {
  return runOne(db, byId, [companyId, id])
}

// The company's imports, newest first (the primary key backwards), for the workspace's list.
const latest = defineQuery<ImportRow>(
  'contactImports.latest',
  `select ${IMPORT_COLUMNS} from contact_imports where company_id = ${COMPANY} order by id desc limit $2`,
)

export function latestImports(db: Db, companyId: CompanyId, limit: number): Promise<ImportRow[]> {
  return run(db, latest, [companyId, limit])
}

// Both claims change a claimed import alike, so that the worker and the command line count
// attempts and hold leases the same way.
const claimChanges = (now: string, leaseUntil: string) =>
  `set state = 'running', attempts = i.attempts + 1, lease_until = ${leaseUntil}, started_at = coalesce(i.started_at, ${now}),
          updated_at = ${now}`

// The worker's claim, any company: an import whose lease ran out (its worker stopped) first,
// else the oldest queued one of a company with no import running. Through
// contact_imports_open_idx (the few unfinished imports); SKIP LOCKED lets instances claim
// side by side. The claim counts an attempt and sets the lease.
const claimStatement = defineQuery<ImportRow>(
  'contactImports.claim',
  `update contact_imports i
      ${claimChanges('$1', '$2')}
    where (i.company_id, i.id) = (
            select o.company_id, o.id from contact_imports o
             where o.state in ('queued', 'running')
               and (o.state = 'running' and o.lease_until < $1
                    or o.state = 'queued' and not exists (
                         select from contact_imports r where r.company_id = o.company_id and r.state = 'running'))
             order by o.state = 'running' desc, o.id
             limit 1
               for update skip locked)
   returning ${IMPORT_COLUMNS}`,
)

export function claimImport(db: Db, now: Date, leaseUntil: Date): Promise<ImportRow | undefined> {
  return runOne(db, claimStatement, [now, leaseUntil])
}

// One queued import claimed by the command line that stored it, unless another import of its
// company runs (then the server's worker takes it in turn).
const claimByIdStatement = defineQuery<ImportRow>(
  'contactImports.claimById',
  `update contact_imports i
      ${claimChanges('$3', '$4')}
    where i.company_id = ${COMPANY} and i.id = $2 and i.state = 'queued'
      and not exists (select from contact_imports r where r.company_id = i.company_id and r.state = 'running')
   returning ${IMPORT_COLUMNS}`,
)

export function claimImportById(db: Db, companyId: CompanyId, id: number, now: Date, leaseUntil: Date): Promise<ImportRow | undefined> {
  return runOne(db, claimByIdStatement, [companyId, id, now, leaseUntil])
}

const chunkAt = defineQuery<{ data: Buffer }>(
  'contactImports.chunk',
  `select data from contact_import_chunks where company_id = ${COMPANY} and import_id = $2 and seq = $3`,
)

/** The file's chunk `seq` (from 0), or undefined past its end. */
export async function readChunk(db: Db, companyId: CompanyId, importId: number, seq: number): Promise<Buffer | undefined> {
  return (await runOne(db, chunkAt, [companyId, importId, seq]))?.data
}

// A batch's outcome, in the batch's transaction, by the worker that holds the lease (its
// attempt): counts added, the position moved, the lease renewed. No row: the lease was lost.
const progressStatement = defineQuery<{ id: number }>(
  'contactImports.progress',
  `update contact_imports
      set rows_done = $4, bytes_done = $5, created_count = created_count + $6, updated_count = updated_count + $7,
          skipped_count = skipped_count + $8, rejected_count = rejected_count + $9, lease_until = $10, updated_at = $11
    where company_id = ${COMPANY} and id = $2 and state = 'running' and attempts = $3
   returning id`,
)

export interface Progress {
  rowsDone: number
  bytesDone: number
  created: number
  updated: number
  skipped: number
  rejected: number
}

/** Records a batch's outcome; false when another worker holds the import now. */
export async function recordProgress(
  db: Db,
  companyId: CompanyId,
  id: number,
  attempt: number,
  progress: Progress,
  leaseUntil: Date,
  now: Date,
): Promise<boolean> {
  const rows = await run(db, progressStatement, [
    companyId, id, attempt, progress.rowsDone, progress.bytesDone, progress.created, progress.updated,
    progress.skipped, progress.rejected, leaseUntil, now,
  ])
  return rows.length === 1
}

const rejectionsInsert = defineQuery<never>(
  'contactImports.insertRejections',
  `insert into contact_import_rejections (company_id, import_id, line, raw, reasons)
   select $1, $2, r.line, r.raw, r.reasons
     from unnest($3::bigint[], $4::text[], $5::text[]) as r(line, raw, reasons)
   on conflict do nothing`,
)

export interface Rejection {
  line: number
  raw: string
  reasons: string
}

export async function insertRejections(db: Db, companyId: CompanyId, importId: number, rejections: Rejection[]): Promise<void> {
  if (rejections.length === 0) return
  await run(db, rejectionsInsert, [
    companyId, importId, rejections.map((r) => r.line), rejections.map((r) => r.raw), rejections.map((r) => r.reasons),
  ])
}

// The rejected rows after a line, in line order, from the primary key.
const rejectionsAfter = defineQuery<{ line: number; raw: string; reasons: string }>(
  'contactImports.rejections',
  `select line::float8 as line, raw, reasons from contact_import_rejections
    where company_id = ${COMPANY} and import_id = $2 and line > $3
    order by line limit $4`,
)

export function rejectionBatch(db: Db, companyId: CompanyId, importId: number, afterLine: number, limit: number): Promise<Rejection[]> {
  return run(db, rejectionsAfter, [companyId, importId, afterLine, limit])
}

// The end of an import, by the worker that holds it: done or failed, the lease dropped.
const finishStatement = defineQuery<ImportRow>(
  'contactImports.finish',
  `update contact_imports
      set state = $4, failure = $5, lease_until = null, finished_at = $6, updated_at = $6
    where company_id = ${COMPANY} and id = $2 and state = 'running' and attempts = $3
   returning ${IMPORT_COLUMNS}`,
)

export function finishImport(
  db: Db,
  companyId: CompanyId,
  id: number,
  attempt: number,
  outcome: { state: 'done' | 'failed'; failure: string | null },
  now: Date,
): Promise<ImportRow | undefined> {
  return runOne(db, finishStatement, [companyId, id, attempt, outcome.state, outcome.failure, now])
}

// A stopping worker gives its import up: the next claim resumes it at once.
const releaseStatement = defineQuery<never>(
  'contactImports.release',
  `update contact_imports set lease_until = $4
    where company_id = ${COMPANY} and id = $2 and state = 'running' and attempts = $3`,
)

export async function releaseImport(db: Db, companyId: CompanyId, id: number, attempt: number, now: Date): Promise<void> {
  await run(db, releaseStatement, [companyId, id, attempt, now])
}

const chunksDelete = defineQuery<never>(
  'contactImports.deleteChunks',
  `delete from contact_import_chunks where company_id = ${COMPANY} and import_id = $2`,
)

/** The file is dropped once its import has ended: only the rejected rows stay. */
export async function deleteChunks(db: Db, companyId: CompanyId, importId: number): Promise<void> {
  await run(db, chunksDelete, [companyId, importId])
}

// A batch of an import writes hundreds of contacts with their tags, values, events and
// webhook events in one transaction: on a busy server that outlasts the pool's per-statement
// limit (DB_STATEMENT_TIMEOUT_MS, meant for requests), so a batch's statements get a minute.
const BATCH_STATEMENT_MS = 60_000
const batchTimeoutStatement = defineQuery<{ set: string }>(
  'contactImports.batchTimeout',
  `select set_config('statement_timeout', $1::text, true) as set`,
)

/**
 * Inside the batch's transaction: its statements may each run up to a minute, and are planned
 * for the tables as they are now. The client waits as long for their answers: at the pool's
 * bound it closed the connection (a batch over 3.5 s on a loaded machine failed the import's
 * attempt). A connection keeps its cached plans, the foreign-key checks' included, until the
 * tables' statistics change; without autovacuum a check planned while the company's contacts
 * were few (a sequential scan) stayed for the whole import, every contact event's check reading
 * every contact (docs/performance.md, "What bounded the import, and what changed").
 */
export async function allowLongBatch(tx: Db): Promise<void> {
  await tx.query('discard plans')
  await run(tx, batchTimeoutStatement, [String(BATCH_STATEMENT_MS)])
  allowLongerWaits(tx, BATCH_STATEMENT_MS + 500)
}
