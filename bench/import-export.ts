// The contact import and export at scale (issue 42): a CSV file of ROWS contacts (default
// 1,000,000; about 150 bytes a row) uploaded to POST /api/v1/contact_imports of a server in
// this process, imported by its worker, then exported with GET /api/v1/contacts/export. It
// prints the upload time, the import's rows/s, the export's first-byte time and rows/s, and
// the growth of the process's resident memory over its level before the upload (sampled
// every 100 ms; the client's side streams, so the growth is the server's).
//
//   BENCH_ADMIN_URL=postgres://postgres@127.0.0.1:5432/postgres ROWS=100000 node --expose-gc --import tsx bench/import-export.ts
//
// It creates a database of its own on that server and drops it at the end.
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { finished } from 'node:stream/promises'
import pg from 'pg'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { systemActing } from '../src/modules/audit/audit.context.js'
import { createToken } from '../src/modules/auth/tokens.service.js'
import { createCompany, createUser } from '../src/modules/users/users.service.js'

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
    let peak = baseline
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss)
    }, 100)

    const started = performance.now()
    const upload = await fetch(`${base}/api/v1/contact_imports?file_name=bench.csv`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/csv', 'content-length': String(bytes) },
      body: Readable.toWeb(createReadStream(file)) as ReadableStream,
      duplex: 'half',
    })
    const uploaded = performance.now()
    const record = (await upload.json()) as { id: number }
    if (upload.status !== 202) throw new Error(`upload answered ${String(upload.status)}: ${JSON.stringify(record)}`)
    let state: { state: string; counts: Record<string, number>; failure: string | null }
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      state = (await (await fetch(`${base}/api/v1/contact_imports/${String(record.id)}`, { headers })).json()) as typeof state
      if (state.state === 'done' || state.state === 'failed') break
    }
    const imported = performance.now()
    const importPeak = peak

    peak = process.memoryUsage().rss
    const exportBaseline = peak
    const exportStart = performance.now()
    const answer = await fetch(`${base}/api/v1/contacts/export`, { headers })
    let firstByte = 0
    let lines = 0
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (firstByte === 0) firstByte = performance.now() - exportStart
      for (const byte of value) if (byte === 10) lines++
    }
    const exported = performance.now()
    clearInterval(sampler)
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
      },
      export: {
        rows: lines - 1,
        first_byte_ms: Math.round(firstByte),
        total_s: seconds(exported - exportStart),
        rows_per_s: Math.round((lines - 1) / ((exported - exportStart) / 1000)),
        rss_growth_mb: mb(peak - exportBaseline),
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
