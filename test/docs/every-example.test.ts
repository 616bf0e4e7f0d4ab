// Every example of README.md and docs/*.md (each fenced block) is run here as written, or
// named below with the reason it is not and, where another test runs it, that test:
// - each ```sh block's curl lines to localhost:3000, in order, against a fresh start with the
//   demo data (one per block: each example stands alone), $TOKEN and <token> being the demo
//   token and a `@file` the file the example names (FILES below); each answers the status of
//   its `# NNN` comment, or else a 2xx unless ILLUSTRATIVE says why not;
// - each `npx engage-admin` line in a shell on the demo data (test/docs/admin-json.test.ts runs
//   the ones that write JSON and checks their output), exit 0;
// - each ```json block parses (an elision `…` read as nothing);
// - the webhook verification snippets of docs/webhooks.md, on a delivery signed by the service;
// - anything else (containers, a cluster, the bench, config files, command synopses) is in
//   NOT_RUN, and a block that none of these covers fails the test: a new example must say.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL, fileURLToPath } from 'node:url'
import { after, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { Webhook } from 'standardwebhooks'
import { seedDemoIfEmpty } from '../../src/demo/index.js'
import { signatureHeader } from '../../src/modules/webhooks/secrets.js'
import { backends, startApp } from '../helpers/app.js'
import { curlRequest, shellLines, words } from '../helpers/shell.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const [backend] = backends()
if (!backend) throw new Error('no backend')

interface Block {
  /** file:line of the opening fence. */
  where: string
  file: string
  lang: string
  body: string
}

function blocks(): Block[] {
  const found: Block[] = []
  const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)]
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8')
    for (const match of text.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)) {
      const line = text.slice(0, match.index).split('\n').length
      found.push({ where: `${file}:${String(line)}`, file, lang: match[1] ?? '', body: match[2] ?? '' })
    }
  }
  return found
}

/** Lines of shell blocks not run here, by a pattern of the line: why (and what runs it instead). */
const NOT_RUN: [RegExp, string][] = [
  [/^npm ci && npm (start|test)\b/, 'the quick start itself: .ci/run runs both on a fresh clone'],
  [/^npm test\b|^npm run test:/, 'the test suite: what runs this test'],
  [/^npm run (build|typecheck|lint)$|^bash \.ci\/run$/, '.ci/run runs these (and `npm ci` the build)'],
  [/^npm run dev$/, 'a server that restarts on each change: the same server as npm start, run by test/server.test.ts'],
  [/^(VERIFIER|CHALLENGE)=/, "the OAuth walk-through's PKCE pair: test/oauth/oauth4webapi.test.ts makes one with a client library"],
  [/eng_…/, "a token shortened with …: the reader's own (test/cli/admin.test.ts revokes one)"],
  [/^npm run (bench|cluster|drill:cluster)\b|bench\/import-export\.ts/, 'the bench and the local cluster: minutes of load; bench/README.md, test/drills/'],
  [/^docker compose /, 'a container: no image registry here (deploy/, docs/deploying.md)'],
  [/^deploy\/pgbouncer-test\.sh/, 'the suite through PgBouncer: .ci/run runs it'],
  [/^(export )?[A-Z_]+=\S*(;\s*[A-Z_]+=\S*)*$/, 'a variable for the lines after it'],
  [/^(DATA_DIR|BACKUP_DIR|METRICS_PORT|DATABASE_URL)=.* npm start/, 'a server start with settings: test/operations/ starts the server so (scheduled-backups, metrics, backup-restore)'],
  [/localhost:9464\/metrics/, 'the metrics port of a server started with METRICS_PORT: test/operations/metrics.test.ts'],
  [/^ENGAGE_URL=.* node examples\/import-contacts\.mjs/, 'test/integrators/import-example.test.ts runs examples/import-contacts.mjs against a server'],
  [/\$BASE\/oauth\/|"\$BASE\/api\//, "the OAuth walk-through of an app on another host: test/oauth/oauth4webapi.test.ts runs that flow with an OAuth client library"],
  [/^curl .*https:\/\/engage\.example\.com/, 'a production host: the same request is in a walk-through on localhost'],
  [/^(DATABASE_URL=\S+ )?npx engage-admin restore /, 'a restore replaces a database: test/operations/backup-restore.test.ts runs backup and restore as documented'],
  [/^DATA_DIR=\S+ npx engage-admin restore /, 'a restore into a new folder: test/operations/backup-restore.test.ts'],
  [/^npx engage-admin .*\[--/, 'a synopsis (brackets mark optional flags): test/cli/ runs each command'],
]

/** Requests that answer other than 2xx as written, on purpose or by the reference's ids: why. */
const ILLUSTRATIVE: [RegExp, string][] = [
  [/meet_transcriptions -H .*"company_id": 3/, "the reference's example of another company's ids (the demo company is 1): 422 here"],
  [/meet_transcriptions\/5\/stop/, 'the demo\'s transcription 5 is already stopped: a second stop is refused (422), as the text says'],
  [/meet_transcriptions\?page=1&user_id=7&company_id=3|meet_transcriptions\/count\?user_id=7&company_id=3/, "another company's id (3): 404, as the contract says"],
  [/cursor=eyJ2Ijox…/, 'a cursor shortened with …: the real one comes from the answer before it'],
  [/hooks\.example\.com/, 'a receiver host of the reader\'s; example.com names resolve nowhere here (422: cannot be resolved)'],
]

/** The files examples upload with curl's `@file`, as a reader would have them. */
const FILES: Record<string, string> = {
  'hubspot.csv': 'First Name,Last Name,Email,Company Name,Lifecycle Stage,Shoe size\nAna,Souza,ana.hubspot@globex.example,Globex,lead,38\n',
  'transcript.json': JSON.stringify({ transcript: 'Ana: hello.\nBruno: hi, Ana.' }),
}

const notRunReason = (line: string) => NOT_RUN.find(([pattern]) => pattern.test(line))?.[1]

/** The shell lines of a block that are commands (not comments), with their `# NNN` statuses. */
function commands(body: string): { line: string; status?: number }[] {
  const out: { line: string; status?: number }[] = []
  for (const line of shellLines(body)) {
    const status = /^#\s*(\d{3})\b/.exec(line)?.[1]
    const last = out.at(-1)
    if (line.startsWith('#')) {
      if (status && last && last.status === undefined && last.line.startsWith('curl ')) last.status = Number(status)
      continue
    }
    out.push({ line: line.replace(/\s+#\s.*$/, '') })
  }
  return out
}

const shBlocks = blocks().filter((b) => b.lang === 'sh')
// Inside the project (under node_modules/.cache), so that the snippets' imports of
// 'standardwebhooks' and '@engage/sdk' resolve as in a reader's project.
const cache = join(root, 'node_modules', '.cache')
mkdirSync(cache, { recursive: true })
const folder = mkdtempSync(join(cache, 'engage-examples-'))
for (const [name, content] of Object.entries(FILES)) writeFileSync(join(folder, name), content)
after(() => {
  rmSync(folder, { recursive: true, force: true })
})

describe('every example of README.md and docs/', () => {
  test('each block is run by a test here or named with why not', () => {
    const unaccounted: string[] = []
    for (const block of blocks()) {
      if (block.lang === 'json' || block.lang === 'js') continue
      if (block.lang === 'ts') {
        if (!TS_RUN_BY[block.where.replace(/:\d+$/, '')]) unaccounted.push(`${block.where}: a TypeScript example no test runs`)
        continue
      }
      if (block.lang !== 'sh') {
        if (!/^(|text|ini|sql|http)$/.test(block.lang)) unaccounted.push(`${block.where}: a ${block.lang} block`)
        continue
      }
      for (const { line } of commands(block.body)) {
        if (line.startsWith('curl ') || line.includes('npx engage-admin ') || notRunReason(line) !== undefined) continue
        unaccounted.push(`${block.where}: ${line}`)
      }
    }
    assert.deepEqual(unaccounted, [])
  })

  for (const block of shBlocks) {
    const curls = commands(block.body).filter(({ line }) => line.startsWith('curl ') && notRunReason(line) === undefined)
    if (curls.length === 0) continue
    test(`${block.where}: its curl lines`, async () => {
      const t = await startApp(backend)
      try {
        const demo = await seedDemoIfEmpty(t.db)
        assert.ok(demo)
        for (const { line, status } of curls) {
          const request = curlRequest(words(line.replace('<token>', demo.token), { TOKEN: demo.token }))
          if (request.payload?.startsWith('@')) request.payload = readFileSync(join(folder, request.payload.slice(1)), 'utf8')
          const response = await t.app.inject(request)
          const why = ILLUSTRATIVE.find(([pattern]) => pattern.test(line))
          if (status !== undefined) assert.equal(response.statusCode, status, `${line}\n  answered ${response.body}`)
          else if (why) assert.ok(response.statusCode >= 400 && response.statusCode < 500, `${line} (${why[1]})\n  answered ${String(response.statusCode)} ${response.body}`)
          else assert.ok(response.statusCode >= 200 && response.statusCode < 300, `${line}\n  answered ${String(response.statusCode)} ${response.body}`)
        }
      } finally {
        await t.close()
      }
    })
  }

  const adminLines = shBlocks.flatMap((block) =>
    commands(block.body)
      .filter(({ line }) => line.includes('npx engage-admin ') && notRunReason(line) === undefined && !/(^|\s)--json(\s|$)/.test(line) && !line.includes(' audit export '))
      .map(({ line }) => ({ where: block.where, line })),
  )
  test('the admin command lines (those without --json: admin-json.test.ts runs the rest)', async () => {
    assert.ok(adminLines.length >= 3, adminLines.map((l) => l.line).join('\n'))
    const opened = await backend.open()
    try {
      await seedDemoIfEmpty(opened.database.db)
      await opened.database.close()
      // npx from this Node's npm, as a reader's shell finds it; /backups/ is a folder of the test's.
      const env = { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? '', DATABASE_URL: opened.url }
      mkdirSync(join(folder, 'backups'), { recursive: true })
      for (const { where, line } of adminLines) {
        const command = line.replaceAll('/backups/', `${join(folder, 'backups')}/`).replaceAll('/tmp/check.backup', join(folder, 'check.backup'))
        const result = await new Promise<{ code: number; output: string }>((resolve) => {
          execFile('sh', ['-c', command], { cwd: folder, env, timeout: 60_000 }, (err, stdout, stderr) => {
            resolve({ code: err ? Number(err.code) : 0, output: stdout + stderr })
          })
        })
        // A resource without an action lists its actions, as a usage error (exit 1) should.
        const resource = /^npx engage-admin (\w+)$/.exec(line)?.[1]
        if (resource !== undefined) assert.ok(result.code === 1 && result.output.includes(`Actions of ${resource}:`), `${where}: ${line}\n${result.output}`)
        else assert.equal(result.code, 0, `${where}: ${line}\n${result.output}`)
      }
    } finally {
      await opened.drop()
    }
  })

  test('every JSON block parses (… as an elision)', () => {
    const broken: string[] = []
    for (const block of blocks().filter((b) => b.lang === 'json')) {
      const text = block.body
        .replace(/\{\s*…\s*\}/g, '{}')
        .replace(/\[\s*…[^\]"]*\]/g, '[]')
        .replace(/,\s*…(?=\s*[}\]])/g, '')
        .replace(/,\s*…\s*,/g, ',')
      try {
        JSON.parse(text)
      } catch (error) {
        broken.push(`${block.where}: ${String(error)}`)
      }
    }
    assert.deepEqual(broken, [])
  })

  test("docs/webhooks.md's verification snippets accept a delivery the service signed, and refuse a changed one", async () => {
    const snippets = blocks().filter((b) => b.file === 'docs/webhooks.md' && b.lang === 'js')
    assert.equal(snippets.length, 2)
    const [own, library] = snippets
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`
    const body = JSON.stringify({ id: 1, type: 'contact.created', data: { id: 7 } })
    const timestamp = Math.floor(Date.now() / 1000)
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader([secret], 'msg_1', timestamp, body) }

    const ownFile = join(folder, 'verify-own.mjs')
    writeFileSync(ownFile, own?.body ?? '')
    const { verifyWebhook } = (await import(pathToFileURL(ownFile).href)) as { verifyWebhook: (s: string, h: Record<string, string>, b: string) => boolean }
    assert.equal(verifyWebhook(secret, headers, body), true)
    assert.equal(verifyWebhook(secret, headers, body.replace('7', '8')), false)

    // The library's snippet, its imports kept at the top, the rest as the reader's handler
    // runs it with `rawBody` and `request`.
    const lines = (library?.body ?? '').split('\n')
    const imports = lines.filter((line) => line.startsWith('import '))
    const rest = lines.filter((line) => !line.startsWith('import '))
    const libraryFile = join(folder, 'verify-library.mjs')
    writeFileSync(libraryFile, `${imports.join('\n')}\nexport function run(rawBody, request) {\n${rest.join('\n')}\nreturn event\n}\n`)
    process.env.ENGAGE_WEBHOOK_SECRET = secret
    const { run } = (await import(pathToFileURL(libraryFile).href)) as { run: (b: string, r: { headers: Record<string, string> }) => unknown }
    assert.deepEqual(run(body, { headers }), JSON.parse(body))
    assert.throws(() => run(body.replace('7', '8'), { headers }))
    assert.ok(new Webhook(secret).verify(body, headers))
  })
})

/** The TypeScript examples that another test runs. */
const TS_RUN_BY: Record<string, string> = {
  'README.md': 'test/packaging/sdk-readme.test.ts',
  'docs/sdk.md': 'test/docs/every-example.test.ts',
}

test('the tests named as running TypeScript examples read those documents', () => {
  for (const [doc, file] of Object.entries(TS_RUN_BY)) {
    assert.ok(readFileSync(join(root, file), 'utf8').includes(doc), `${file} runs the examples of ${doc}`)
  }
})

describe("docs/sdk.md's examples, run with tsx from the project as a reader's file", () => {
  const snippets = blocks().filter((b) => b.file === 'docs/sdk.md' && b.lang === 'ts')
  const run = (file: string, env: Record<string, string> = {}) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', file], { cwd: root, env: { ...process.env, ...env }, timeout: 60_000 })

  test('the first: a tag, then a contact with it, then its events (against a server)', async () => {
    assert.equal(snippets.length, 2)
    const t = await startApp(backend)
    try {
      const demo = await seedDemoIfEmpty(t.db)
      assert.ok(demo)
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const base = `http://127.0.0.1:${String((t.app.server.address() as AddressInfo).port)}`
      const code = (snippets[0]?.body ?? '').replace("'http://localhost:3000'", `'${base}'`).replace("'eng_…'", `'${demo.token}'`)
      assert.ok(code.includes(base) && code.includes(demo.token), 'the example names the server and the token once each')
      const file = join(folder, 'sdk-first.mts')
      writeFileSync(file, `${code}\nconsole.log(JSON.stringify({ tag: tag.id, contact: contact.id }))\n`)
      const made = JSON.parse((await run(file)).stdout.trim().split('\n').at(-1) ?? '{}') as { tag: number; contact: number }
      const contact = await t.app.inject({ url: `/api/v1/contacts/${String(made.contact)}`, headers: { authorization: `Bearer ${demo.token}` } })
      assert.equal(contact.statusCode, 200)
      const body = contact.json<{ email: string; tags: { id: number; name: string }[] }>()
      assert.equal(body.email, 'ana@globex.example')
      assert.deepEqual(body.tags.map((tag) => [tag.id, tag.name]), [[made.tag, 'Champion']])
    } finally {
      await t.close()
    }
  })

  test('the second: a client with an OAuth token, its refresh token and client id (what it names comes first)', async () => {
    const file = join(folder, 'sdk-oauth.mts')
    writeFileSync(file, [
      "import { Engage } from '@engage/sdk'",
      "const stored = { accessToken: 'eng_oat_example', refreshToken: 'eng_ort_example' }",
      'const save = async (tokens: object) => { console.log(JSON.stringify(tokens)) }',
      snippets[1]?.body ?? '',
      "console.log(engage instanceof Engage ? 'made' : 'not made')",
    ].join('\n'))
    assert.equal((await run(file, { ENGAGE_CLIENT_SECRET: 'eng_ocs_example' })).stdout.trim(), 'made')
  })
})
