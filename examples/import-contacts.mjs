#!/usr/bin/env node
// Imports a CSV file of contacts through POST /api/v1/contacts/batch, 100 rows a request.
// Plain Node.js 20 or later, nothing to install (only fetch).
//
//   ENGAGE_URL=http://localhost:3000 ENGAGE_TOKEN=eng_... node examples/import-contacts.mjs contacts.csv
//
// The first row names the columns: the API's contact fields (first_name, email, business,
// stage, …), `tags` (tag ids separated by spaces or ";") and `cf:<custom field name>` for
// custom fields. An empty cell is left out, so a contact that exists (same email, any case)
// keeps what it had there. Each batch carries its own Idempotency-Key: a batch retried after
// a lost answer, a 429 or a 503 is not applied twice. Rows the API refuses are printed with
// the reason; the exit code is 0 when every row was saved, 1 when some were refused, 2 when
// the import stopped.
import { readFile } from 'node:fs/promises'
import { pathToFileURL } from 'node:url'

const BATCH = 100
const ATTEMPTS = 8

/** RFC 4180: commas, quotes ("" inside quotes), line breaks inside quotes, CRLF or LF. */
export function parseCsv(text) {
  const rows = []
  let row = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ',') {
      row.push(field)
      field = ''
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++
      row.push(field)
      rows.push(row)
      row = []
      field = ''
    } else field += c
  }
  if (field !== '' || row.length > 0) {
    row.push(field)
    rows.push(row)
  }
  return rows.filter((r) => r.some((cell) => cell !== ''))
}

/** A CSV row as a batch item: empty cells left out. */
export function toContact(header, cells) {
  const contact = {}
  header.forEach((name, i) => {
    const value = cells[i] ?? ''
    if (value === '') return
    if (name.startsWith('cf:')) (contact.custom_fields ??= []).push({ field: name.slice(3), value })
    else if (name === 'tags') contact.tags = value.split(/[\s;]+/).filter(Boolean).map(Number)
    else contact[name] = value
  })
  return contact
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** One batch, retried on 429/503/409 (after Retry-After) and on network errors, with the same Idempotency-Key. */
async function send(url, token, contacts) {
  const key = crypto.randomUUID()
  for (let attempt = 1; ; attempt++) {
    let response
    try {
      response = await fetch(`${url}/api/v1/contacts/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ contacts }),
      })
    } catch (err) {
      if (attempt >= ATTEMPTS) throw err
      await sleep(1000 * attempt)
      continue
    }
    if ([409, 429, 503].includes(response.status) && attempt < ATTEMPTS) {
      const seconds = Number(response.headers.get('retry-after'))
      await sleep(1000 * (Number.isFinite(seconds) && seconds > 0 ? seconds : attempt))
      continue
    }
    const body = await response.json()
    if (!response.ok) {
      const { status, message, code, details } = body.error ?? {}
      throw new Error(`${status} ${message} (${code})${details ? ` ${JSON.stringify(details)}` : ''}`)
    }
    return body.results
  }
}

const describe = (error) =>
  error.details ? Object.entries(error.details).map(([name, problems]) => `${name} ${problems.join(', ')}`).join('; ') : error.message

export async function importCsv(file, { url, token, log = console.log }) {
  const [header, ...rows] = parseCsv(await readFile(file, 'utf8'))
  if (!header) throw new Error(`${file} is empty`)
  const totals = { created: 0, updated: 0, refused: 0 }
  for (let start = 0; start < rows.length; start += BATCH) {
    const chunk = rows.slice(start, start + BATCH)
    const results = await send(url, token, chunk.map((cells) => toContact(header, cells)))
    results.forEach((result, i) => {
      if (result.status === 201) totals.created++
      else if (result.status === 200) totals.updated++
      else {
        totals.refused++
        // Row numbers count the header as row 1, as a spreadsheet shows them.
        log(`row ${start + i + 2} (${chunk[i][header.indexOf('email')] ?? ''}): ${describe(result.error)}`)
      }
    })
  }
  log(`${rows.length} rows: ${totals.created} created, ${totals.updated} updated, ${totals.refused} refused`)
  return totals
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file] = process.argv.slice(2)
  const url = (process.env.ENGAGE_URL ?? 'http://localhost:3000').replace(/\/$/, '')
  const token = process.env.ENGAGE_TOKEN
  if (!file || !token) {
    console.error('usage: ENGAGE_URL=http://localhost:3000 ENGAGE_TOKEN=eng_... node import-contacts.mjs contacts.csv')
    process.exit(2)
  }
  try {
    const totals = await importCsv(file, { url, token })
    process.exit(totals.refused > 0 ? 1 : 0)
  } catch (err) {
    console.error(`import stopped: ${err instanceof Error ? err.message : String(err)}`)
    process.exit(2)
  }
}
