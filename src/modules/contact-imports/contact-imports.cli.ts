// `contacts import` stores a CSV file as the API does and runs its import in this process,
// with a progress bar on standard error; `contacts export` writes a view of the contacts to
// standard output as the API's export does.
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { defineCommand, type CommandContext } from '../../cli/command.js'
import { loadConfig } from '../../config.js'
import type { Db } from '../../db/db.js'
import { ApiError, invalid } from '../../errors.js'
import { requireActiveUser, requireCompany } from '../users-api/index.js'
import { validate } from '../../http/validation.js'
import { ExportCommand, ImportCommand, ImportQuery } from './contact-imports.schemas.js'
import { createImport, defaultRunSettings, exportContacts, runImportHere } from './contact-imports.service.js'
import type { ContactImport } from './contact-imports.schemas.js'
import type { Static } from 'typebox'

const BAR = 30

/** `[#####-----] 45%  12,000 rows` on one line of standard error, redrawn. */
function progressLine(record: ContactImport): string {
  const filled = Math.round((record.progress * BAR) / 100)
  const { created, updated, skipped, rejected } = record.counts
  return `\r[${'#'.repeat(filled)}${'-'.repeat(BAR - filled)}] ${String(record.progress).padStart(3)}%  ${record.rows_done.toLocaleString('en')} rows: ` +
    `${String(created)} created, ${String(updated)} updated, ${String(skipped)} skipped, ${String(rejected)} rejected`
}

function mappingOf(text: string | undefined): Record<string, string> | undefined {
  if (text === undefined) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw invalid({ mapping: ['is not valid JSON'] })
  }
  return validate(ImportQuery, { mapping: parsed }).mapping
}

async function importCommand(db: Db, context: CommandContext, input: Static<typeof ImportCommand>) {
  const companyId = await requireCompany(db, input.company)
  const userId = await requireActiveUser(db, companyId, input.user)
  try {
    await stat(input.file)
  } catch (err) {
    throw new ApiError(422, `cannot read ${input.file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`)
  }
  const query = {
    file_name: basename(input.file).slice(0, 255),
    mapping: mappingOf(input.mapping),
    on_duplicate: input['on-duplicate'],
    separator: input.separator,
    encoding: input.encoding,
    dry_run: input['dry-run'],
  }
  const record = await createImport(db, { companyId, userId, ...context }, query, createReadStream(input.file), loadConfig(context.env).contactImportMaxBytes)
  const bar = { drawn: false }
  const done = await runImportHere(db, companyId, record.id, () => new Date(), {
    ...defaultRunSettings(),
    onProgress: (current) => {
      bar.drawn = true
      context.status(progressLine(current))
    },
  })
  if (bar.drawn) context.status('\n')
  return done
}

export const contactImportsCommands = [
  defineCommand({
    name: 'contacts import',
    summary: 'Import contacts from a CSV file, as the API does (a progress bar on standard error)',
    input: ImportCommand,
    run: importCommand,
  }),
  defineCommand({
    name: 'contacts export',
    summary: "Write a company's contacts (of one owner, or matching a search) to standard output as CSV",
    input: ExportCommand,
    stream: true,
    run: async (db, context, input) => {
      const companyId = await requireCompany(db, input.company)
      let exported = -1 // the header line is not a contact
      for await (const line of await exportContacts(db, { companyId, ...context }, { user_id: input.user, search_term: input.search })) {
        await context.write(line)
        exported++
      }
      return { exported }
    },
  }),
]
