// The contact import and export at scale (issue 42): a CSV file of ROWS contacts (default
// 1,000,000; about 150 bytes a row) uploaded to POST /api/v1/contact_imports of a server in
// this process, imported by its worker, then exported with GET /api/v1/contacts/export. It
// prints the upload time, the import's rows/s, the export's first-byte time and rows/s, the
// growth of the process's resident memory over its level before the upload (sampled every
// 100 ms; the client's side runs in a child process, so the growth is the server's), and
// with --expose-gc the growth of its live heap (after a full collection) from before the
// upload to the end of each.
// Resident memory also holds what V8 keeps between collections: the import runs in a worker
// thread whose heap is bounded, the export on the main thread, whose young generation alone
// grows to 128 MB on a machine of 24 GB (docs/performance.md, "Contact import and export").
//
//   BENCH_ADMIN_URL=postgres://postgres@127.0.0.1:5432/postgres ROWS=100000 node --expose-gc --import tsx bench/import-export.ts
//
// It creates a database of its own on that server and drops it at the end.
import { execFile } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { finished } from 'node:stream/promises'
import pg from 'pg'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { systemActing } from '../src/acting.js'
import { createToken } from '../src/modules/auth/tokens.service.js'
import { createCompany, createUser } from '../src/modules/users-api/users-api.service.js'

const ROWS = Number(process.env.ROWS ?? 1_000_000)
const adminUrl = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const STAGES = ['lead', 'mql', 'sql', 'opportunity', 'client']

async function writeFile(path: string) {
  const out = createWriteStream(path)
  const write = (text: string) => (out.write(text) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', () => { resolve(); })))
  await write('First Name,Last Name,Email,Company Name,Job Title,Phone Number,City,Country/Region,Lifecycle Stage\n')
  for (let i = 1; i <= ROWS; i++) {
    await write(`Person${String(i)},Surname ${String(i % 997)},person${String(i)}@bench-import.example,Business ${String(i % 500)},` +
      `Head of Sales,+1 555 ${String(1000000 + (i % 9000000)).slice(0, 7)},City ${String(i % 300)},Country ${String(i % 50)},${STAGES[i % 5] ?? 'lead'}\n`)
  }
  out.end()
  await finished(out)
}

const mb = (bytes: number) => Math.round(bytes / (1024 * 1024))

// The client's side runs in a process of its own, so that this process's memory is the
// server's: uploading the file with fetch from here added some 110 MB of its own to the
// growth measured for a 120 MB file (a client in another process: 52 MB, the server alone).
const UPLOAD = `
const [, url, authorization, file] = process.argv
const request = require('node:http').request(url, {
  method: 'POST',
  headers: { authorization, 'content-type': 'text/csv', 'content-length': require('node:fs').statSync(file).size },
}, (response) => {
  let body = ''
  response.setEncoding('utf8')
  response.on('data', (text) => { body += text })
  response.on('end', () => { process.stdout.write(JSON.stringify({ status: response.statusCode, body })) })
})
require('node:fs').createReadStream(file).pipe(request)`

const DOWNLOAD = `
const [, url, authorization] = process.argv
const started = performance.now()
let firstByte = 0
let lines = 0
require('node:http').get(url, { headers: { authorization } }, (response) => {
  response.on('data', (chunk) => {
    if (firstByte === 0) firstByte = performance.now() - started
    for (const byte of chunk) if (byte === 10) lines++
  })
  response.on('end', () => { process.stdout.write(JSON.stringify({ firstByte, lines })) })
})`

/** Runs a client script in a Node process of its own; what it prints. */
function client(script: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', script, ...args], { maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => {
      if (err) reject(new Error(`the client failed: ${err.message}`, { cause: err }))
      else resolve(stdout)
    })
  })
}

async function main() {
  const name = `engage_bench_import_${String(process.pid)}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const dir = await mkdtemp(join(tmpdir(), 'engage-import-bench-'))
  const file = join(dir, 'contacts.csv')
  try {
    await writeFile(file)
    const bytes = (await stat(file)).size
    const app = await buildApp(loadConfig({ DATABASE_URL: url.toString(), LOG_LEVEL: 'error', WEBHOOK_SECRET_KEY: '7e57'.repeat(16), SEED_DEMO: 'false' }), {
      importWorker: { pollIntervalMs: 100 },
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const address = app.server.address()
    const base = `http://127.0.0.1:${String(typeof address === 'object' && address ? address.port : 0)}`
    const company = await createCompany(app.db, systemActing(), { name: 'Bench', timezone: 'UTC' })
    const user = await createUser(app.db, systemActing(), { company: company.id, name: 'Importer', email: 'importer@bench.example', role: 'admin' })
    const { token } = await createToken(app.db, systemActing(), user.id)
    const headers = { authorization: `Bearer ${token}` }
    // A small import first: the code paths compiled, the statements prepared, the pools filled.
    const warm = await fetch(`${base}/api/v1/contact_imports?file_name=warm-up.csv`, {
      method: 'POST', headers: { ...headers, 'content-type': 'text/csv' }, body: 'First Name,Email\nWarm,warm@bench-import.example\n',
    })
    const warmId = ((await warm.json()) as { id: number }).id
    while (((await (await fetch(`${base}/api/v1/contact_imports/${String(warmId)}`, { headers })).json()) as { state: string }).state !== 'done') {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }

    global.gc?.()
    const baseline = process.memoryUsage().rss
    const heapBaseline = process.memoryUsage().heapUsed
    let peak = baseline
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss)
    }, 100)

    const started = performance.now()
    const upload = JSON.parse(await client(UPLOAD, `${base}/api/v1/contact_imports?file_name=bench.csv`, headers.authorization, file)) as {
      status: number
      body: string
    }
    const uploaded = performance.now()
    const record = JSON.parse(upload.body) as { id: number }
    if (upload.status !== 202) throw new Error(`upload answered ${String(upload.status)}: ${upload.body}`)
    let state: { state: string; counts: Record<string, number>; failure: string | null }
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      state = (await (await fetch(`${base}/api/v1/contact_imports/${String(record.id)}`, { headers })).json()) as typeof state
      if (state.state === 'done' || state.state === 'failed') break
    }
    const imported = performance.now()
    const importPeak = peak
    global.gc?.()
    const heapAfterImport = process.memoryUsage().heapUsed

    peak = process.memoryUsage().rss
    const exportBaseline = peak
    const exportStart = performance.now()
    const { firstByte, lines } = JSON.parse(await client(DOWNLOAD, `${base}/api/v1/contacts/export`, headers.authorization)) as {
      firstByte: number
      lines: number
    }
    const exported = performance.now()
    clearInterval(sampler)
    global.gc?.()
    const heapAfterExport = process.memoryUsage().heapUsed
    const seconds = (ms: number) => (ms / 1000).toFixed(1)
    const figures = {
      rows: ROWS,
      file_mb: mb(bytes),
      import: {
        state: state.state,
        counts: state.counts,
        upload_s: seconds(uploaded - started),
        total_s: seconds(imported - started),
        rows_per_s: Math.round(ROWS / ((imported - started) / 1000)),
        rss_growth_mb: mb(importPeak - baseline),
        heap_growth_mb: mb(heapAfterImport - heapBaseline),
      },
      export: {
        rows: lines - 1,
        first_byte_ms: Math.round(firstByte),
        total_s: seconds(exported - exportStart),
        rows_per_s: Math.round((lines - 1) / ((exported - exportStart) / 1000)),
        rss_growth_mb: mb(peak - exportBaseline),
        heap_growth_mb: mb(heapAfterExport - heapAfterImport),
      },
    }
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`)
    await app.close()
  } finally {
    await rm(dir, { recursive: true, force: true })
    await admin.query(`drop database if exists ${name} with (force)`)
    await admin.end()
  }
}

await main()
