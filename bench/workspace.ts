// The workspace's pages at scale (issue 41 item 12), part of `npm run bench -- --scale`: the
// contacts page (first page, a search, a filter by stage and by tag, a 1–2 character search)
// and a contact's page, signed in as the company's admin, at a million contacts (the scale
// database's big company) and at a thousand (a company written beside it), one request at a
// time over HTTP to the app of bench/scale.ts.
// - request ms: the page's round trip on loopback, p50 and p99 over the repetitions: the
//   server's time for it, HTML rendered and sent;
// - DB ms: its statements' round trips summed (bench/recorder.ts), p50;
// - KB: the page's HTML with the stylesheet and the script it loads, uncompressed.
// Targets: 20 ms at the median (100 ms for a 1–2 character search), within 2× of the same
// page at a thousand contacts, 100 KB at most.
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import type { Db } from '../src/db/db.js'
import { systemActing } from '../src/acting.js'
import { setPassword } from '../src/modules/auth/accounts.service.js'
import { startRecording, stopRecording } from './recorder.js'
import { RARE_LAST_NAME, type CompanyInfo } from './scale-data.js'

const PAGE_MS = 20
const SHORT_SEARCH_MS = 100
const PAGE_KB = 100
const PASSWORD = 'bench workspace password'

export interface WorkspaceRow {
  company: string
  contacts: number
  page: string
  path: string
  status: number
  kb: number
  dbP50: number
  reqP50: number
  reqP99: number
  target: number
  /** The same page's request p50 at a thousand contacts, for the big company's rows. */
  atThousand?: number
  pass: boolean
}

interface Signed {
  base: string
  cookie: string
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN
}
const round = (n: number) => Math.round(n * 100) / 100

/** The cookies a response sets, as a Cookie header (merged into `jar`). */
function remember(jar: Map<string, string>, response: Response): void {
  for (const line of response.headers.getSetCookie()) {
    const pair = line.split(';')[0] ?? ''
    const eq = pair.indexOf('=')
    jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1))
  }
}
const header = (jar: Map<string, string>) => [...jar].map(([name, value]) => `${name}=${value}`).join('; ')

/** Signs the company's first user (an admin) in, with a password set for the bench. */
async function signIn(base: string, db: Db, client: pg.Client, company: CompanyInfo): Promise<Signed> {
  const userId = company.userIds[0] ?? 0
  await setPassword(db, systemActing(), userId, { password: PASSWORD })
  const { rows: [user] } = await client.query<{ email: string }>('select email from users where id = $1', [userId])
  const jar = new Map<string, string>()
  const form = await fetch(`${base}/login`)
  remember(jar, form)
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? ''
  const answer = await fetch(`${base}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: header(jar) },
    body: new URLSearchParams({ _csrf: csrf, email: user?.email ?? '', password: PASSWORD }).toString(),
  })
  if (answer.status !== 303) throw new Error(`signing in answered ${String(answer.status)}`)
  remember(jar, answer)
  return { base, cookie: header(jar) }
}

async function get(signed: Signed, path: string) {
  startRecording()
  const started = performance.now()
  const response = await fetch(`${signed.base}${path}`, { headers: { cookie: signed.cookie } })
  const body = await response.text()
  const ms = performance.now() - started
  const statements = stopRecording()
  return { status: response.status, body, ms, dbMs: statements.reduce((sum, s) => sum + s.ms, 0) }
}

/** The bytes of the stylesheet and the script a page loads (fetched once: they are the same on every page). */
async function assetBytes(signed: Signed, html: string, cache: Map<string, number>): Promise<number> {
  let bytes = 0
  for (const [, href] of html.matchAll(/<(?:link rel="stylesheet" href|script src)="([^"]+)"/g)) {
    if (href === undefined) continue
    if (!cache.has(href)) cache.set(href, (await (await fetch(`${signed.base}${href}`)).arrayBuffer()).byteLength)
    bytes += cache.get(href) ?? 0
  }
  return bytes
}

/** The pages measured for a company: [name, path, 1–2 character search]. */
function pagesOf(company: CompanyInfo, tagId: number): [string, string, boolean][] {
  return [
    ['contacts, first page', '/contacts', false],
    ['contacts, a search', `/contacts?search_term=${RARE_LAST_NAME.slice(0, 5).toLowerCase()}`, false],
    ['contacts, a broad search', '/contacts?search_term=silva', false],
    ['contacts, by stage', '/contacts?stage=lead', false],
    ['contacts, by tag', `/contacts?tag_id=${String(tagId)}`, false],
    ['contacts, a 1–2 character search', '/contacts?search_term=an', true],
    ['contacts, a 1–2 character search and a stage', '/contacts?search_term=an&stage=lead', true],
    ["a contact's page", `/contacts/${String(company.typicalContactId)}`, false],
  ]
}

/**
 * Each company's pages, `repetitions` requests each after three to warm up. `companies` in
 * order: the thousand first, then the million (compared with it).
 */
export async function measureWorkspace(
  base: string,
  db: Db,
  client: pg.Client,
  companies: { label: string; info: CompanyInfo }[],
  repetitions: number,
): Promise<WorkspaceRow[]> {
  const rows: WorkspaceRow[] = []
  const assets = new Map<string, number>()
  const only = process.env.BENCH_SCALE_ONLY
  const thousand = new Map<string, number>()
  for (const { label, info } of companies) {
    const signed = await signIn(base, db, client, info)
    const { rows: [tag] } = await client.query<{ id: number }>('select min(id) as id from tags where company_id = $1', [info.companyId])
    for (const [page, path, short] of pagesOf(info, tag?.id ?? 0)) {
      if (only !== undefined && !path.includes(only)) continue
      for (let i = 0; i < 3; i++) await get(signed, path)
      const times: number[] = []
      const db: number[] = []
      let last = await get(signed, path)
      for (let i = 0; i < repetitions; i++) {
        last = await get(signed, path)
        times.push(last.ms)
        db.push(last.dbMs)
      }
      const kb = round((Buffer.byteLength(last.body) + (await assetBytes(signed, last.body, assets))) / 1024)
      const reqP50 = round(percentile(times, 50))
      const target = short ? SHORT_SEARCH_MS : PAGE_MS
      const atThousand = thousand.get(page)
      if (info.size.contacts <= 1_000) thousand.set(page, reqP50)
      const row: WorkspaceRow = {
        company: label,
        contacts: info.size.contacts,
        page,
        path,
        status: last.status,
        kb,
        dbP50: round(percentile(db, 50)),
        reqP50,
        reqP99: round(percentile(times, 99)),
        target,
        ...(atThousand === undefined ? {} : { atThousand }),
        pass: last.status === 200 && reqP50 <= target && kb <= PAGE_KB && (atThousand === undefined || reqP50 <= 2 * Math.max(atThousand, 1)),
      }
      rows.push(row)
      process.stderr.write(`${row.pass ? 'ok  ' : 'MISS'} ${label} ${path} ${String(reqP50)} ms, ${String(kb)} KB\n`)
    }
  }
  return rows
}

export function printWorkspace(rows: WorkspaceRow[]): string[] {
  console.table(rows.map((r) => ({
    company: r.company,
    page: r.page,
    status: r.status,
    KB: r.kb,
    'DB ms p50': r.dbP50,
    'req p50': r.reqP50,
    'req p99': r.reqP99,
    'p50 at 1 k': r.atThousand ?? '',
    target: r.target,
    pass: r.pass ? 'yes' : 'NO',
  })))
  return [
    '| contacts | page | KB | DB ms p50 | request p50 / p99 ms | at 1 k | target ms | met |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((r) =>
      `| ${r.contacts.toLocaleString('en-GB')} | ${r.page} (\`${r.path}\`) | ${String(r.kb)} | ${String(r.dbP50)} | ${String(r.reqP50)} / ${String(r.reqP99)} | ${r.atThousand === undefined ? '' : String(r.atThousand)} | ${String(r.target)} | ${r.pass ? 'yes' : `**no**${r.status === 200 ? '' : ` (${String(r.status)})`}`} |`),
  ]
}
