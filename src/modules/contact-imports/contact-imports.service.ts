// Contact imports (docs/import-export.md): a CSV file is stored as it arrives, in chunks, in
// one transaction with its import's record and audit entry (413 past the size limit, and
// nothing is left); the worker (import-worker.ts) then reads it back a chunk at a time, parses it,
// and saves its rows in batches through the batch upsert (the API's rules, events and
// webhooks), each batch in one transaction with its rejected rows and the import's
// progress, so that an import resumes after its last committed batch. The export writes a
// view of the contact list from one snapshot.
import { inSnapshot, transaction, type Db } from '../../db/db.js'
import { ApiError, invalid, notFound, type ErrorDetails } from '../../errors.js'
import type { CompanyId, Writer } from '../../tenancy.js'
import type { Acting, AuditContext } from '../../acting.js'
import { recordAudit } from '../audit/index.js'
import { upsertContacts, liveContactEmails, contactsForExport, type BatchResult, type ContactRecord } from '../contacts/index.js'
import { createCustomField, customFieldsOfCompany } from '../custom-fields/index.js'
import { createTag, tagsOfCompany } from '../tags-api/index.js'
import {
  BOM,
  csvLine,
  decode,
  defused,
  detectSeparator,
  EncodingSniffer,
  records,
  type CsvItem,
  type Encoding,
  type Separator,
} from './contact-imports.csv.js'
import { CUSTOM_FIELD, IGNORE, resolveColumns, rowItem, TAGS } from './contact-imports.mapping.js'
import {
  claimImport,
  confirmDraft,
  claimImportById,
  deleteChunks,
  finishImport,
  findImport,
  insertChunk,
  insertImport,
  insertRejections,
  latestImports,
  readChunk,
  recordProgress,
  rejectionBatch,
  releaseImport,
  setImportFile,
  type ImportRow,
  type Rejection,
  allowLongBatch,
} from './contact-imports.repository.js'
import { MAX_COLUMNS, type ContactImport, type ExportQuery, type ImportQuery } from './contact-imports.schemas.js'
import { SeenEmails } from './seen-emails.js'

/** A stored chunk of a file. */
export const CHUNK_BYTES = 1024 * 1024

/** What an import keeps of its options and of its file's first line. */
interface StoredOptions {
  encoding: Encoding
  separator: Separator
  on_duplicate: 'update' | 'skip'
  headers: string[]
  columns: string[]
  /** Who started it, for the audit record of its end. */
  audit: AuditContext
}

const options = (row: ImportRow) => row.options as Partial<StoredOptions>

/** An import as the API shows it. */
export function toImport(row: ImportRow): ContactImport {
  const stored = options(row)
  const headers = stored.headers ?? []
  return {
    id: row.id,
    user_id: row.user_id,
    file_name: row.file_name,
    file_bytes: row.file_bytes,
    state: row.state,
    dry_run: row.dry_run,
    on_duplicate: stored.on_duplicate ?? 'update',
    encoding: stored.encoding ?? 'utf-8',
    separator: stored.separator ?? 'comma',
    columns: headers.map((header, index) => ({ header, target: stored.columns?.[index] ?? IGNORE })),
    rows_done: row.rows_done,
    progress: row.state === 'done' ? 100 : row.file_bytes === 0 ? 0 : Math.min(99, Math.floor((row.bytes_done * 100) / row.file_bytes)),
    counts: { created: row.created_count, updated: row.updated_count, skipped: row.skipped_count, rejected: row.rejected_count },
    failure: row.failure,
    started_at: row.started_at,
    finished_at: row.finished_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

/** 413 with the limit said: the file is not stored. */
export const tooLarge = (maxBytes: number) =>
  new ApiError(413, 'Payload too large', { file: [`is over ${String(Math.floor(maxBytes / (1024 * 1024)))} MiB, the largest file an import takes`] })

const fileProblem = (problem: string) => invalid({ file: [problem] })

/** The first record of the file's first chunk: its header line. */
async function headerOf(first: Buffer, encoding: Encoding, separator: Separator | undefined, whole: boolean) {
  const text = new TextDecoder(encoding).decode(first, { stream: !whole })
  const found = separator ?? detectSeparator(text)
  if (!whole && !/[\r\n]/.test(text)) throw fileProblem(`has no line break in its first ${String(CHUNK_BYTES / 1024)} KiB: it is not a CSV file of contacts`)
  for await (const item of records((async function* () { yield text })(), found)) {
    if (!('values' in item)) throw fileProblem(`line 1 (the header) cannot be read: ${item.reason}`)
    return { separator: found, headers: item.values.map((header) => header.trim()) }
  }
  throw fileProblem('is empty: its first line names the columns')
}

/**
 * Stores an uploaded file and queues its import (or runs it at once for a dry run the same
 * way): the record, the chunks and the audit entry commit together. Refused with 413 past
 * `maxBytes` and with 422 for a file without a header or a mapping that does not fit it,
 * leaving nothing behind.
 */
export async function createImport(
  db: Db,
  writer: Writer & Acting,
  query: ImportQuery,
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
  /** The workspace's upload: kept as a draft until its mapping is confirmed (confirmImport). */
  draft = false,
): Promise<ContactImport> {
  const { companyId } = writer
  const fileName = query.file_name === undefined || query.file_name === '' ? 'contacts.csv' : query.file_name
  const row = await transaction(db, async (tx) => {
    const created = await insertImport(tx, companyId, {
      userId: writer.userId, fileName, dryRun: query.dry_run === true, options: {}, now: writer.now, draft,
    })
    const sniffer = new EncodingSniffer()
    let bytes = 0
    let seq = 0
    let first: Buffer | undefined
    // One chunk's buffer, reused once its chunk is stored (the statement has been sent by then),
    // because a new buffer per chunk made a large upload hold more memory; the first chunk is
    // kept for its header line.
    const chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES)
    let filled = 0
    const flush = async () => {
      if (filled === 0) return
      const data = chunk.subarray(0, filled)
      first ??= Buffer.from(data)
      filled = 0
      await insertChunk(tx, companyId, created.id, seq++, data)
    }
    for await (const piece of body) {
      bytes += piece.length
      if (bytes > maxBytes) throw tooLarge(maxBytes)
      sniffer.push(piece)
      for (let offset = 0; offset < piece.length; ) {
        const take = Math.min(CHUNK_BYTES - filled, piece.length - offset)
        chunk.set(piece.subarray(offset, offset + take), filled)
        filled += take
        offset += take
        if (filled === CHUNK_BYTES) await flush()
      }
    }
    await flush()
    if (first === undefined) throw fileProblem('is empty: its first line names the columns')
    const encoding = query.encoding ?? sniffer.result()
    const { separator, headers } = await headerOf(first, encoding, query.separator, seq === 1)
    if (headers.length > MAX_COLUMNS) throw fileProblem(`has ${String(headers.length)} columns; an import takes at most ${String(MAX_COLUMNS)}`)
    const fields = (await customFieldsOfCompany(tx, writer)).data.map((field) => field.field)
    const columns = resolveColumns(headers, query.mapping, fields)
    if (!draft) checkColumns(columns)
    const stored: StoredOptions = {
      encoding, separator, on_duplicate: query.on_duplicate ?? 'update', headers, columns, audit: writer.audit,
    }
    const record = await setImportFile(tx, companyId, created.id, bytes, stored)
    await recordAudit(tx, companyId, writer.audit, {
      action: 'contact_import.created',
      target: { id: record.id, label: fileName },
      changes: { file_bytes: [null, bytes], dry_run: [null, record.dry_run] },
    }, writer.now)
    return record
  })
  return toImport(row)
}

/** 422 when no column goes to the email, or none to the first name (or full name). */
function checkColumns(columns: string[]) {
  const missing: string[] = []
  if (!columns.includes('email')) missing.push('no column goes to email (name one with mapping[<header>]=email)')
  if (!columns.includes('first_name') && !columns.includes('full_name')) {
    missing.push('no column goes to first_name or full_name (name one with mapping[<header>]=first_name)')
  }
  if (missing.length > 0) throw invalid({ mapping: missing })
}

/** A draft's columns with `mapping` applied (by header), checked as an import's are. */
async function draftColumns(db: Db, companyId: CompanyId, row: ImportRow, mapping: Record<string, string> | undefined) {
  const headers = options(row).headers ?? []
  const fields = (await customFieldsOfCompany(db, { companyId })).data.map((field) => field.field)
  return resolveColumns(headers, mapping ?? Object.fromEntries(headers.map((header, i) => [header, options(row).columns?.[i] ?? IGNORE])), fields)
}

/** Rows a preview shows. */
export const PREVIEW_ROWS = 10

export interface PreviewRow {
  line: number
  /** Each column's value as it would be saved, by target (`first_name`, `tags`, `custom_field:Size`). */
  values: Record<string, string>
  outcome: 'create' | 'update' | 'skip' | 'reject'
  reasons: string | null
}

/**
 * The first rows of a draft as they would be saved with `mapping`: each through the batch
 * upsert in a transaction rolled back (the API's rules and messages), nothing written.
 */
export async function previewImport(
  db: Db,
  writer: Writer,
  id: number,
  mapping: Record<string, string> | undefined,
): Promise<{ record: ContactImport; columns: string[]; rows: PreviewRow[] }> {
  const { companyId } = writer
  const row = await findImport(db, companyId, id)
  if (!row) throw notFound()
  const columns = await draftColumns(db, companyId, row, mapping)
  const stored = options(row) as StoredOptions
  const first = await readChunk(db, companyId, id, 0)
  const pendings: Pending[] = []
  const seen = new SeenEmails()
  if (first) {
    const text = new TextDecoder(stored.encoding).decode(first, { stream: true })
    let header = true
    for await (const item of records((async function* () { yield text })(), stored.separator)) {
      if (header) {
        header = false
        if ('values' in item) continue
      }
      pendings.push(pendingOf(item, stored.headers.length, columns, seen))
      if (pendings.length >= PREVIEW_ROWS) break
    }
  }
  const tagIds = new Map((await tagsOfCompany(db, { companyId })).data.map((tag) => [tag.name.toLowerCase(), tag.id]))
  const existingFields = new Set((await customFieldsOfCompany(db, { companyId })).data.map((f) => f.field.toLowerCase()))
  const items = pendings.flatMap((pending) => {
    if (!pending.item) return []
    const item = { ...pending.item }
    if (pending.tags !== undefined) item.tags = pending.tags.flatMap((name) => tagIds.get(name.toLowerCase()) ?? [])
    if (Array.isArray(item.custom_fields)) {
      item.custom_fields = (item.custom_fields as { field: string }[]).filter((entry) => existingFields.has(entry.field.toLowerCase()))
    }
    return [item]
  })
  const known = stored.on_duplicate === 'skip' && items.length > 0 ? await liveContactEmails(db, companyId, items.map((item) => String(item.email))) : new Set<string>()
  const results = items.length === 0 ? [] : await transaction(db, (tx) => upsert(tx, writer, items, true))
  let next = 0
  const rows = pendings.map((pending): PreviewRow => {
    const values: Record<string, string> = {}
    const contact = pending.item ?? {}
    for (const [key, value] of Object.entries(contact)) {
      if (key === 'custom_fields') for (const entry of value as { field: string; value: string }[]) values[`${CUSTOM_FIELD}${entry.field}`] = entry.value
      else if (key !== 'tags') values[key] = String(value)
    }
    if (pending.tags !== undefined) values.tags = pending.tags.join(', ')
    if (!pending.item) return { line: pending.line, values, outcome: 'reject', reasons: pending.reason ?? null }
    const result = results[next++]
    if (known.has(String(contact.email).toLowerCase())) return { line: pending.line, values, outcome: 'skip', reasons: null }
    if (!result || result.status === 422) {
      return { line: pending.line, values, outcome: 'reject', reasons: result ? reasonsOf(result.error.details, result.error.message) : null }
    }
    return { line: pending.line, values, outcome: result.status === 201 ? 'create' : 'update', reasons: null }
  })
  return { record: toImport(row), columns, rows }
}

/** Confirms a draft's mapping and duplicate rule: it is queued (422 for a mapping without email or name). */
export async function confirmImport(
  db: Db,
  writer: Writer & Acting,
  id: number,
  choice: { mapping: Record<string, string>; on_duplicate: 'update' | 'skip' },
): Promise<ContactImport> {
  const { companyId } = writer
  const row = await findImport(db, companyId, id)
  if (!row) throw notFound()
  if (row.state !== 'draft') return toImport(row)
  const columns = await draftColumns(db, companyId, row, choice.mapping)
  checkColumns(columns)
  const confirmed = await confirmDraft(db, companyId, id, { ...options(row), columns, on_duplicate: choice.on_duplicate }, writer.now)
  return toImport(confirmed ?? row)
}

export async function getImport(db: Db, caller: { companyId: CompanyId }, id: number): Promise<ContactImport> {
  const row = await findImport(db, caller.companyId, id)
  if (!row) throw notFound()
  return toImport(row)
}

/** The company's latest imports, newest first. */
export async function recentImports(db: Db, caller: { companyId: CompanyId }, limit = 10): Promise<ContactImport[]> {
  return (await latestImports(db, caller.companyId, limit)).map(toImport)
}

/** Rejected rows read per statement. */
const REJECTION_BATCH = 1000

/**
 * The rejected rows as CSV: the file's header with `line` and `reason` columns in front, then
 * each row as the file had it (its values parsed again), ready to fix and import again.
 */
export async function* rejectedRowsCsv(db: Db, caller: { companyId: CompanyId }, id: number): AsyncGenerator<string> {
  const row = await findImport(db, caller.companyId, id)
  if (!row) throw notFound()
  const stored = options(row)
  yield BOM + csvLine(['line', 'reason', ...(stored.headers ?? [])])
  let after = 0
  for (;;) {
    const batch = await rejectionBatch(db, caller.companyId, id, after, REJECTION_BATCH)
    for (const rejection of batch) yield csvLine([String(rejection.line), rejection.reasons, ...(await valuesOf(rejection.raw, stored.separator ?? 'comma'))])
    const last = batch.at(-1)
    if (last === undefined || batch.length < REJECTION_BATCH) return
    after = last.line
  }
}

/** A rejected row's values, parsed again from its text; a row that does not parse stays whole, in one value. */
async function valuesOf(raw: string, separator: Separator): Promise<string[]> {
  for await (const item of records((async function* () { yield raw })(), separator)) {
    return 'values' in item ? item.values : [raw]
  }
  return [raw]
}

// ---- the worker's part ----

export interface RunSettings {
  /** Rows saved per transaction. */
  batchRows: number
  /** How long a claim (or a batch's renewal) holds an import. */
  leaseMs: number
  /** Claims of one import before it fails instead of resuming again. */
  maxAttempts: number
  /** Told after each batch (the command line's progress bar). */
  onProgress?: (record: ContactImport) => void
  /** Asked between batches: stop here (the server is shutting down); the import resumes later. */
  stopping?: () => boolean
}

export const defaultRunSettings = (): RunSettings => ({ batchRows: 500, leaseMs: 60_000, maxAttempts: 5 })

/** The worker lost the import to another one (its lease ran out): it stops without a word. */
class LeaseLost extends Error {}
/** Rolls a dry run's batch back once its outcome is known. */
class DryRunDone extends Error {
  constructor(readonly results: BatchResult[]) {
    super('dry run')
  }
}

/** Claims the next import due (any company) and runs it; false when none was due. */
export async function runNextImport(db: Db, clock: () => Date, settings: RunSettings): Promise<boolean> {
  const now = clock()
  const row = await claimImport(db, now, new Date(now.getTime() + settings.leaseMs))
  if (!row) return false
  await runClaimed(db, row, clock, settings)
  return true
}

/**
 * Runs the import `id` here and now (the command line), when no other import of its company
 * runs; else leaves it queued for the server's worker. Its record as it ends (or waits).
 */
export async function runImportHere(db: Db, companyId: CompanyId, id: number, clock: () => Date, settings: RunSettings): Promise<ContactImport> {
  const now = clock()
  const row = await claimImportById(db, companyId, id, now, new Date(now.getTime() + settings.leaseMs))
  if (row) await runClaimed(db, row, clock, settings)
  return getImport(db, { companyId }, id)
}

/** Runs a claimed import to its end, or until the worker stops or loses it. */
export async function runClaimed(db: Db, row: ImportRow, clock: () => Date, settings: RunSettings): Promise<ImportRow | undefined> {
  const companyId = row.company_id as CompanyId
  if (row.attempts > settings.maxAttempts) {
    return finish(db, row, clock(), {
      state: 'failed',
      failure: `the import was interrupted ${String(row.attempts - 1)} times (the server stopped, or the database failed, while it ran); the rows before line ${String(row.rows_done + 2)} are saved`,
    })
  }
  try {
    const ended = await saveRows(db, row, clock, settings)
    if (!ended) {
      await releaseImport(db, companyId, row.id, row.attempts, clock())
      return undefined
    }
    return await finish(db, row, clock(), { state: 'done', failure: null })
  } catch (err) {
    if (err instanceof LeaseLost) return undefined
    // A database that failed for a moment (a timeout, a lost connection): the next claim
    // resumes after the last batch saved, and too many attempts fail it (above).
    await releaseImport(db, companyId, row.id, row.attempts, clock()).catch(() => undefined)
    throw err
  }
}

async function finish(db: Db, row: ImportRow, now: Date, outcome: { state: 'done' | 'failed'; failure: string | null }) {
  const companyId = row.company_id as CompanyId
  return transaction(db, async (tx) => {
    const done = await finishImport(tx, companyId, row.id, row.attempts, outcome, now)
    if (!done) return undefined
    await deleteChunks(tx, companyId, row.id)
    const audit = options(row).audit
    if (audit) {
      await recordAudit(tx, companyId, audit, {
        action: 'contact_import.finished',
        target: { id: row.id, label: row.file_name },
        changes: {
          state: [null, done.state],
          created: [null, done.created_count],
          updated: [null, done.updated_count],
          skipped: [null, done.skipped_count],
          rejected: [null, done.rejected_count],
        },
      }, now)
    }
    return done
  })
}

/** The file's chunks in order, counting the bytes handed out. */
async function* fileChunks(db: Db, row: ImportRow, read: { bytes: number }): AsyncGenerator<Buffer> {
  for (let seq = 0; ; seq++) {
    const chunk = await readChunk(db, row.company_id as CompanyId, row.id, seq)
    if (chunk === undefined) return
    read.bytes += chunk.length
    yield chunk
  }
}

const reasonsOf = (details: ErrorDetails | undefined, message: string) =>
  details ? Object.entries(details).map(([field, problems]) => `${field} ${problems.join(', ')}`).join('; ') : message

const TAG_COLOR = '#64748b'

interface Pending {
  line: number
  raw: string
  item?: Record<string, unknown>
  tags?: string[] | undefined
  reason?: string
}

/** Saves the rows after those already done; false when it stopped before the end (the worker is stopping). */
async function saveRows(db: Db, row: ImportRow, clock: () => Date, settings: RunSettings): Promise<boolean> {
  const companyId = row.company_id as CompanyId
  const stored = options(row) as StoredOptions
  const { columns, headers } = stored
  const writer = (): Writer => ({ companyId, userId: row.user_id, now: clock() })
  // A dry run creates no field: the values of those it would create are left out of its items.
  const newFields = await createMissingFields(db, companyId, columns, clock(), row.dry_run)
  const tagIds = new Map((await tagsOfCompany(db, { companyId })).data.map((tag) => [tag.name.toLowerCase(), tag.id]))
  const usesTags = columns.includes(TAGS)
  const seen = new SeenEmails()
  const read = { bytes: 0 }
  let rowsDone = 0
  let batch: Pending[] = []

  const tagsOf = async (names: string[]) => {
    const ids: number[] = []
    for (const name of names) {
      let id = tagIds.get(name.toLowerCase())
      if (id === undefined && !row.dry_run) {
        id = await tagId(db, { companyId, now: clock() }, name)
        tagIds.set(name.toLowerCase(), id)
      }
      if (id !== undefined) ids.push(id)
    }
    return ids
  }

  const save = async () => {
    const rejections: Rejection[] = []
    const items: { pending: Pending; item: Record<string, unknown> }[] = []
    for (const pending of batch) {
      if (pending.item === undefined) rejections.push({ line: pending.line, raw: pending.raw, reasons: pending.reason ?? '' })
      else {
        if (usesTags && pending.tags !== undefined) pending.item.tags = await tagsOf(pending.tags)
        if (newFields.size > 0 && Array.isArray(pending.item.custom_fields)) {
          pending.item.custom_fields = (pending.item.custom_fields as { field: string }[]).filter((entry) => !newFields.has(entry.field.toLowerCase()))
        }
        items.push({ pending, item: pending.item })
      }
    }
    const counts = { created: 0, updated: 0, skipped: 0 }
    const at = writer()
    await transaction(db, async (tx) => {
      await allowLongBatch(tx)
      let toSave = items
      if (stored.on_duplicate === 'skip' && items.length > 0) {
        const known = await liveContactEmails(tx, companyId, items.map(({ item }) => String(item.email)))
        toSave = items.filter(({ item }) => !known.has(String(item.email).toLowerCase()))
        counts.skipped = items.length - toSave.length
      }
      const results = toSave.length === 0 ? [] : await upsert(tx, at, toSave.map(({ item }) => item), row.dry_run)
      results.forEach((result, index) => {
        const pending = toSave[index]?.pending
        if (!pending) return
        if (result.status === 422) rejections.push({ line: pending.line, raw: pending.raw, reasons: reasonsOf(result.error.details, result.error.message) })
        else if (result.status === 201) counts.created++
        else counts.updated++
      })
      await insertRejections(tx, companyId, row.id, rejections)
      const kept = await recordProgress(tx, companyId, row.id, row.attempts, {
        rowsDone, bytesDone: read.bytes, ...counts, rejected: rejections.length,
      }, new Date(at.now.getTime() + settings.leaseMs), at.now)
      if (!kept) throw new LeaseLost()
    })
    batch = []
    if (settings.onProgress) {
      const current = await findImport(db, companyId, row.id)
      if (current) settings.onProgress(toImport(current))
    }
  }

  let header = true
  for await (const item of records(decode(fileChunks(db, row, read), stored.encoding), stored.separator)) {
    if (header) {
      header = false
      if ('values' in item) continue
    }
    rowsDone++
    const pending = pendingOf(item, headers.length, columns, seen)
    if (rowsDone <= row.rows_done) continue // saved before the import was resumed
    batch.push(pending)
    if (batch.length >= settings.batchRows) {
      await save()
      if (settings.stopping?.()) return false
    }
  }
  await save()
  return true
}

/** A row read: its item, or why it is rejected before it reaches the batch upsert. */
function pendingOf(item: CsvItem, width: number, columns: string[], seen: SeenEmails): Pending {
  if (!('values' in item)) return { line: item.line, raw: item.raw, reason: item.reason }
  const { line, raw, values } = item
  if (values.length > width) {
    return { line, raw, reason: `has ${String(values.length)} values where the header has ${String(width)} columns` }
  }
  const { item: contact, tags } = rowItem(values, columns)
  if (typeof contact.email === 'string') {
    const earlier = seen.firstLine(contact.email, line)
    if (earlier !== undefined) return { line, raw, reason: `email is on line ${String(earlier)} of the file too (the first one is imported)` }
  }
  return { line, raw, item: contact, tags }
}

/** The batch upsert; in a dry run its writes are rolled back once their outcome is known. */
async function upsert(tx: Db, writer: Writer, items: Record<string, unknown>[], dryRun: boolean): Promise<BatchResult[]> {
  if (!dryRun) return upsertContacts(tx, writer, items)
  try {
    await transaction(tx, async (savepoint) => {
      throw new DryRunDone(await upsertContacts(savepoint, writer, items))
    })
  } catch (err) {
    if (err instanceof DryRunDone) return err.results
    throw err
  }
  return []
}

/** A tag by name, created when missing (another writer's creation of the same name meanwhile is taken as it is). */
async function tagId(db: Db, writer: { companyId: CompanyId; now: Date }, name: string): Promise<number> {
  try {
    return (await createTag(db, writer, { name, color: TAG_COLOR })).id
  } catch (err) {
    if (!(err instanceof ApiError) || err.statusCode !== 422) throw err
    const found = (await tagsOfCompany(db, writer)).data.find((tag) => tag.name.toLowerCase() === name.toLowerCase())
    if (!found) throw err
    return found.id
  }
}

/**
 * The custom fields the columns name that do not exist yet, created as text fields; in a
 * dry run only named: their names, lower-cased, to leave out of the items.
 */
async function createMissingFields(db: Db, companyId: CompanyId, columns: string[], now: Date, dryRun: boolean): Promise<Set<string>> {
  const missing = new Set<string>()
  const names = columns.filter((c) => c.startsWith(CUSTOM_FIELD)).map((c) => c.slice(CUSTOM_FIELD.length))
  if (names.length === 0) return missing
  const existing = new Set((await customFieldsOfCompany(db, { companyId })).data.map((field) => field.field.toLowerCase()))
  for (const field of names) {
    if (existing.has(field.toLowerCase())) continue
    if (dryRun) {
      missing.add(field.toLowerCase())
      continue
    }
    try {
      await createCustomField(db, { companyId, now }, { field, kind: 'input' })
    } catch (err) {
      // Created meanwhile by someone else: it exists, which is all the import needs.
      if (!(err instanceof ApiError) || err.statusCode !== 422) throw err
    }
    existing.add(field.toLowerCase())
  }
  return missing
}

// ---- the export ----

/** The columns of an export, in order: the contact's fields, then tags, then one per custom field. */
const EXPORT_FIELDS = [
  'id', 'first_name', 'last_name', 'email', 'business', 'position', 'telephone', 'cellphone', 'address', 'city', 'state',
  'country', 'url', 'linkedin', 'variable1', 'variable2', 'variable3', 'carousel', 'stage', 'user_id', 'created_at', 'updated_at',
] as const

const text = (value: unknown) =>
  value === null || value === undefined ? '' : value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : JSON.stringify(value)

/** An exported contact's line: values defused (a leading = + - @ tab or CR gets a `'`). */
function exportLine(contact: ContactRecord, fields: string[]): string {
  const record = contact as unknown as Record<string, unknown>
  const values = EXPORT_FIELDS.map((name) => text(record[name]))
  values.push(contact.tags.map((tag) => tag.name).join(', '))
  const custom = new Map(contact.custom_fields.map((entry) => [entry.field, entry.value]))
  for (const field of fields) values.push(custom.get(field) ?? '')
  return csvLine(values.map(defused))
}

/**
 * A view of the contacts list (its owner, stage, tag and search filters) as CSV lines, the BOM first:
 * one snapshot (a REPEATABLE READ transaction), a batch of rows at a time. The audit record
 * is written before the first line.
 */
export async function exportContacts(db: Db, writer: { companyId: CompanyId } & Acting, query: ExportQuery): Promise<AsyncGenerator<string>> {
  await recordAudit(db, writer.companyId, writer.audit, {
    action: 'contacts.exported',
    target: { id: null, label: null },
    changes: {
      user_id: [null, query.user_id ?? null],
      search_term: [null, query.search_term ?? null],
      ...(query.stage === undefined ? {} : { stage: [null, query.stage] }),
      ...(query.tag_id === undefined ? {} : { tag_id: [null, query.tag_id] }),
    },
  }, writer.now)
  return inSnapshot(db, async function* (tx) {
    const fields = (await customFieldsOfCompany(tx, writer)).data.map((field) => field.field)
    yield BOM + csvLine([...EXPORT_FIELDS, 'tags', ...fields].map(defused))
    for await (const contact of contactsForExport(tx, writer.companyId, query)) yield exportLine(contact, fields)
  })
}
