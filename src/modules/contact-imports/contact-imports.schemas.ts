import { Type, type Static } from 'typebox'
import { Nullable, Str, Timestamp, Timestamps, TrueFlag } from '../../http/schemas.js'
import { ContactsListQuery } from '../contacts/index.js'
import { ENCODINGS, SEPARATORS } from './contact-imports.csv.js'

/** Columns a file may have (far above any export's): its mapping is kept with the import. */
export const MAX_COLUMNS = 500

const Mapping = Type.Record(Type.String({ maxLength: 255 }), Type.String({ maxLength: 300 }), {
  maxProperties: MAX_COLUMNS,
  description:
    'Where columns go, by header (case and punctuation ignored): a contact field (`first_name`, `email`, …, or `full_name`, split into first and last name), ' +
    '`tags` (comma-separated tag names, created when missing), `custom_field:<name>` (created as a text field when missing) or `ignore`. ' +
    'A column not named here is matched by its header alone. In the query string: `mapping[E-mail]=email&mapping[Size]=custom_field:T-shirt size`.',
})

export const OnDuplicate = Type.Union([Type.Literal('update'), Type.Literal('skip')], {
  description: 'a row whose email a live contact has: `update` it (the batch upsert\'s rule, the default) or `skip` it',
})

/** The options of an import, as the query string of POST /contact_imports gives them (the file is the body). */
export const ImportQuery = Type.Object({
  file_name: Type.Optional(Str(255, 'the file\'s name, shown with the import (default `contacts.csv`)')),
  mapping: Type.Optional(Mapping),
  on_duplicate: Type.Optional(OnDuplicate),
  separator: Type.Optional(Type.Enum(Object.keys(SEPARATORS) as (keyof typeof SEPARATORS)[], { description: 'detected from the header line when left out' })),
  encoding: Type.Optional(Type.Enum(ENCODINGS, { description: 'the BOM\'s when there is one; else utf-8 when the file is valid UTF-8, else windows-1252' })),
  dry_run: Type.Optional(Type.With(TrueFlag, { description: 'check every row and count what would happen, saving nothing' })),
})
export type ImportQuery = Static<typeof ImportQuery>

export const ContactImport = Type.Object(
  {
    id: Type.Integer(),
    user_id: Type.Integer({ description: 'who imports: the rows are written as this user\'s' }),
    file_name: Type.String(),
    file_bytes: Type.Integer(),
    state: Type.Union([Type.Literal('draft'), Type.Literal('queued'), Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')], {
      description: '`queued` (another import of your company runs), `running`, `done` or `failed` (`failure` says why); `draft`: uploaded in the workspace, waiting for its mapping to be confirmed',
    }),
    dry_run: Type.Boolean(),
    on_duplicate: OnDuplicate,
    encoding: Type.String(),
    separator: Type.String(),
    columns: Type.Array(Type.Object({ header: Type.String(), target: Type.String() }), { description: 'each column of the file and where it goes' }),
    rows_done: Type.Integer({ description: 'data rows read so far' }),
    progress: Type.Integer({ minimum: 0, maximum: 100, description: 'percent of the file read' }),
    counts: Type.Object({
      created: Type.Integer(),
      updated: Type.Integer(),
      skipped: Type.Integer(),
      rejected: Type.Integer({ description: 'rows not saved: GET /contact_imports/:id/errors lists them' }),
    }),
    failure: Nullable(Type.String()),
    started_at: Nullable(Timestamp),
    finished_at: Nullable(Timestamp),
    ...Timestamps,
  },
  {
    $id: 'ContactImport',
    description: 'A CSV import of contacts and its progress',
    examples: [
      {
        id: 4,
        user_id: 2,
        file_name: 'hubspot-contacts.csv',
        file_bytes: 48211,
        state: 'done',
        dry_run: false,
        on_duplicate: 'update',
        encoding: 'utf-8',
        separator: 'comma',
        columns: [{ header: 'First Name', target: 'first_name' }, { header: 'Email', target: 'email' }],
        rows_done: 412,
        progress: 100,
        counts: { created: 380, updated: 29, skipped: 0, rejected: 3 },
        failure: null,
        started_at: '2026-11-22T10:00:00.120Z',
        finished_at: '2026-11-22T10:00:01.480Z',
        created_at: '2026-11-22T10:00:00.000Z',
        updated_at: '2026-11-22T10:00:01.480Z',
      },
    ],
  },
)
export type ContactImport = Static<typeof ContactImport>

/** GET /contacts/export: the list's filters. */
export const ExportQuery = Type.Object({
  user_id: ContactsListQuery.properties.user_id,
  search_term: ContactsListQuery.properties.search_term,
  stage: ContactsListQuery.properties.stage,
  tag_id: ContactsListQuery.properties.tag_id,
})
export type ExportQuery = Static<typeof ExportQuery>

/** `contacts import`: the options of the API, and the file and the user by flag. */
export const ImportCommand = Type.Object({
  company: Type.With(Type.Integer({ minimum: 1 }), { placeholder: 'ID', description: 'the company' }),
  user: Type.With(Type.Integer({ minimum: 1 }), { placeholder: 'ID', description: 'the user the contacts are imported as (their owner when new)' }),
  file: Type.With(Type.String({ minLength: 1 }), { placeholder: 'FILE', description: 'the CSV file' }),
  mapping: Type.Optional(Type.With(Type.String({ minLength: 1 }), {
    placeholder: 'JSON',
    description: 'where columns go, as a JSON object: {"E-mail": "email", "Size": "custom_field:T-shirt size", "Notes": "ignore"}',
  })),
  'on-duplicate': Type.Optional(Type.With(OnDuplicate, { placeholder: 'update|skip', description: 'a known email: update the contact (default) or skip the row' })),
  separator: Type.Optional(Type.With(ImportQuery.properties.separator, { placeholder: 'comma|semicolon|tab' })),
  encoding: Type.Optional(Type.With(ImportQuery.properties.encoding, { placeholder: 'NAME' })),
  'dry-run': Type.Optional(Type.With(TrueFlag, { description: 'check and count every row, save nothing' })),
})

export const ExportCommand = Type.Object({
  company: ImportCommand.properties.company,
  user: Type.Optional(Type.With(Type.Integer({ minimum: 1 }), { placeholder: 'ID', description: 'only the contacts this user owns' })),
  search: Type.Optional(Type.With(Str(255), { placeholder: 'TEXT', description: 'only the contacts whose name, business or email contains it' })),
})
