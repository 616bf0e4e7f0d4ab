// Contacts → Import (/contacts/import): the upload, the mapping with a preview of the first
// rows as they would be saved, and an import's progress and rejected rows; the same import
// as POST /api/v1/contact_imports (docs/import-export.md).
import type { ContactImport, PreviewRow } from '../../modules/contact-imports/index.js'
import { html, type Html } from '../shared/html.js'
import { csrfInput, formatter, layout, recordTable, time, type PageFrame } from '../frame/frame.js'

export const IMPORTS = '/contacts/import'

const STATES: Record<ContactImport['state'], string> = {
  draft: 'Waiting for its mapping',
  queued: 'Queued (another import runs)',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
}

const counts = (record: ContactImport) =>
  `${String(record.counts.created)} created, ${String(record.counts.updated)} updated, ${String(record.counts.skipped)} skipped, ${String(record.counts.rejected)} rejected`

export function uploadPage(chrome: PageFrame, csrf: string, recent: ContactImport[], timezone: string, problem?: string): Html {
  const format = formatter(timezone)
  return layout(
    chrome,
    'Import contacts',
    html`<div class="page-head"><h1>Import contacts</h1><a class="button" href="/contacts">Back to contacts</a></div>
<p>A CSV file exported from HubSpot, Pipedrive, Salesforce or a spreadsheet: its first line names the columns. UTF-8, UTF-16 or Windows-1252; comma, semicolon or tab separated. You choose where each column goes and see the first rows before anything is saved.</p>
${problem && html`<p class="alert" role="alert" id="upload-problem">${problem}</p>`}
<form method="post" action="${IMPORTS}" class="upload" data-upload enctype="text/csv">
  ${csrfInput(csrf)}
  <label for="import-file">CSV file</label>
  <input type="file" id="import-file" name="file" accept=".csv,.tsv,.txt,text/csv" required>
  <button type="submit" class="primary">Upload and map columns</button>
  <p class="alert" role="alert" data-upload-problem hidden></p>
</form>
<h2>Recent imports</h2>
${recordTable(recent, {
  empty: 'No import yet.',
  timezone,
  columns: [
    ['File', (r) => html`<a href="${IMPORTS}/${String(r.id)}">${r.file_name}</a>`],
    ['State', (r) => STATES[r.state]],
    ['Rows', (r) => counts(r)],
    ['Started', (r) => time(r.created_at instanceof Date ? r.created_at : new Date(r.created_at), format)],
  ],
})}`,
  )
}

/** The choices of a column: ignore, each contact field, tags, the company's custom fields, a new custom field named as the column. */
function targetChoices(header: string, fields: readonly string[], targets: readonly string[]): [string, string][] {
  const choices: [string, string][] = [['ignore', 'Ignore this column']]
  for (const target of targets) choices.push([target, target === 'full_name' ? 'Full name (first and last)' : target])
  choices.push(['tags', 'Tags (comma-separated names)'])
  for (const field of fields) choices.push([`custom_field:${field}`, `Custom field: ${field}`])
  if (!fields.some((field) => field.toLowerCase() === header.toLowerCase()) && header.trim() !== '') {
    choices.push([`custom_field:${header}`, `New custom field: ${header}`])
  }
  return choices
}

const OUTCOMES: Record<PreviewRow['outcome'], string> = { create: 'New contact', update: 'Updates a contact', skip: 'Skipped (known email)', reject: 'Rejected' }

export interface MappingView {
  record: ContactImport
  columns: string[]
  rows: PreviewRow[]
  fields: readonly string[]
  targets: readonly string[]
  onDuplicate: 'update' | 'skip'
  csrf: string
  problems?: string[]
}

export function mappingPage(chrome: PageFrame, view: MappingView): Html {
  const { record, columns, rows } = view
  const shown = columns.filter((target) => target !== 'ignore')
  const choiceList = (index: number, header: string) => html`<select name="column_${String(index)}" id="column-${String(index)}">
      ${targetChoices(header, view.fields, view.targets).map(([value, label]) => html`<option value="${value}"${value === columns[index] ? ' selected' : ''}>${label}</option>`)}
    </select>`
  return layout(
    chrome,
    `Import ${record.file_name}`,
    html`<div class="page-head"><h1>Import ${record.file_name}</h1><a class="button" href="${IMPORTS}">All imports</a></div>
${view.problems && view.problems.length > 0 && html`<div class="alert" role="alert" id="mapping-problems">${view.problems.map((p) => html`<p>${p}</p>`)}</div>`}
<form method="post" action="${IMPORTS}/${String(record.id)}/run" class="mapping">
  ${csrfInput(view.csrf)}
  <h2>Where each column goes</h2>
  <table class="records mapping">
    <thead><tr><th scope="col">Column of the file</th><th scope="col">Goes to</th></tr></thead>
    <tbody>
    ${record.columns.map((column, index) => html`<tr><th scope="row"><label for="column-${String(index)}">${column.header || `Column ${String(index + 1)}`}</label></th><td>${choiceList(index, column.header)}</td></tr>`)}
    </tbody>
  </table>
  <fieldset>
    <legend>A row whose email a contact already has</legend>
    <label><input type="radio" name="on_duplicate" value="update"${view.onDuplicate === 'update' ? ' checked' : ''}> updates that contact</label>
    <label><input type="radio" name="on_duplicate" value="skip"${view.onDuplicate === 'skip' ? ' checked' : ''}> is skipped</label>
  </fieldset>
  <div class="actions">
    <button type="submit" formmethod="get" formaction="${IMPORTS}/${String(record.id)}">Update the preview</button>
    <button type="submit" class="primary">Run the import</button>
  </div>
</form>
<h2>The first ${String(rows.length)} rows as they would be saved</h2>
<div class="table-wrap"><table class="records preview" id="preview">
  <thead><tr><th scope="col">Line</th><th scope="col">Outcome</th>${shown.map((target) => html`<th scope="col">${target}</th>`)}</tr></thead>
  <tbody>
  ${rows.map((row) => html`<tr data-line="${String(row.line)}"><td>${String(row.line)}</td><td>${OUTCOMES[row.outcome]}${row.reasons && html`: ${row.reasons}`}</td>${shown.map((target) => html`<td>${row.values[target] ?? ''}</td>`)}</tr>`)}
  </tbody>
</table></div>`,
  )
}

export function progressPage(chrome: PageFrame, record: ContactImport): Html {
  const active = record.state === 'queued' || record.state === 'running'
  return layout(
    chrome,
    `Import ${record.file_name}`,
    html`<div class="page-head"><h1>Import ${record.file_name}</h1><a class="button" href="${IMPORTS}">All imports</a></div>
<section id="import-status"${active ? html` data-refresh="2000"` : ''} aria-live="polite">
  <p><strong id="import-state">${STATES[record.state]}</strong>${record.dry_run ? ' (a dry run: nothing is saved)' : ''}</p>
  <progress max="100" value="${String(record.progress)}" aria-label="Progress">${String(record.progress)}%</progress>
  <p id="import-counts">${record.rows_done.toLocaleString('en-GB')} rows read: ${counts(record)}.</p>
  ${record.failure && html`<p class="alert" role="alert">${record.failure}</p>`}
  ${record.counts.rejected > 0 && html`<p><a class="button" id="errors-download" href="${IMPORTS}/${String(record.id)}/errors.csv" download>Download the ${String(record.counts.rejected)} rejected rows (CSV, with a reason column)</a></p>`}
</section>`,
  )
}
