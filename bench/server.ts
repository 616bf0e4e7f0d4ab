// The service as the benchmark runs it: the production app (dist/'s buildApp, bench/production.ts) on DATABASE_URL (or
// the embedded PostgreSQL under DATA_DIR) with a rate limit too high to interfere, its
// delivery worker on, and
// - "Bench Co", written by the scale generator at a small size (bench/scale-data.ts SMALL:
//   2,000 contacts, tasks and leads, 1,000 transcriptions, 4,000 messages), so every list
//   has full pages, never analysed (the runner analyses it half way); its first 50 contacts
//   have 2 tags and 2 custom fields each; its admin's token reads them;
// - an OAuth access token of the same admin (an app of Bench Co, consent, code exchange),
//   for the contact by id read with it beside the api token's;
// - ten empty companies with a token each, for the write scenario (one company vs ten).
// Prints one JSON line {port, token, writeTokens, ...ids} when it listens.
import pg from 'pg'
import * as production from './production.js'
import type { CompanyId } from '../src/tenancy.js'
import { addCompany, quietProgress, SMALL } from './scale-data.js'

const { buildApp } = production.app
const { loadConfig } = production.config
const { openDatabase } = production.client
const { createToken } = production.tokens
const { createCompany, createUser } = production.users
const { systemActing } = production.auditContext
const { registerApp, checkAuthorize, answerConsent, exchangeCode } = production.oauth
const { challengeOf } = production.oauthProtocol

const base = loadConfig()
const config = { ...base, logLevel: 'warn', rateLimit: { ...base.rateLimit, max: 100_000_000 } }
// With DB_POOLER, DATABASE_DIRECT_URL and DATABASE_REPLICA_URL (npm run bench -- --cluster):
// through PgBouncer and the replica, as the service opens them.
const database = await openDatabase({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
  pooler: config.pooler,
  directUrl: config.databaseDirectUrl,
  replicaUrl: config.databaseReplicaUrl,
  replicaMaxLagMs: config.replicaMaxLagMs,
})
// With the delivery worker, as `npm start` runs: it publishes the events the writes record
// (numbering them is part of a write's cost, docs/webhook-events.md).
const app = await buildApp(config, { database, webhookWorker: true })

if (!config.databaseUrl) throw new Error('bench/server.ts needs DATABASE_URL')

/** The company's first 50 live contacts (pages 1 and 2) get exactly 2 tags and 2 custom fields each. */
async function twoTagsTwoFields(url: string, companyId: number) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const first = `select id from contacts where company_id = $1 and deleted_at is null order by id limit 50`
    await client.query(`delete from contact_tags where company_id = $1 and contact_id in (${first})`, [companyId])
    await client.query(`delete from contact_custom_values where company_id = $1 and contact_id in (${first})`, [companyId])
    await client.query(`insert into contact_tags (company_id, contact_id, tag_id)
                        select $1, c.id, t.id from (${first}) c
                        cross join (select id from tags where company_id = $1 order by id limit 2) t`, [companyId])
    await client.query(`insert into contact_custom_values (company_id, contact_id, custom_field_id, value)
                        select $1, c.id, f.id, 'value ' || c.id from (${first}) c
                        cross join (select id from custom_fields where company_id = $1 order by id limit 2) f`, [companyId])
  } finally {
    await client.end()
  }
}
quietProgress()
// Never analysed (nor vacuumed): the runner measures the first rows so, then analyses;
// `bench --cluster` asks for statistics at once (BENCH_ANALYZE=true), its runs being all alike.
const analyzed = process.env.BENCH_ANALYZE === 'true'
const dataUrl = config.databaseDirectUrl ?? config.databaseUrl
const company = await addCompany(dataUrl, 'Bench Co', SMALL, { analyze: analyzed, vacuum: analyzed })
const [admin, member] = company.userIds
if (admin === undefined || member === undefined) throw new Error('the bench company has no users')
// The contacts page measured (page 2) shows 25 contacts with 2 tags and 2 custom fields each.
await twoTagsTwoFields(dataUrl, company.companyId)
const { token } = await createToken(database.db, systemActing(), admin)

// The OAuth access token: through the service's own steps (the browser's part is the consent page).
const benchContext = { actor: { type: 'system' as const, id: null, label: 'bench' }, ip: null, userAgent: null, requestId: null }
const now = new Date()
const redirect = 'https://bench.example/callback'
const made = await registerApp(database.db, { companyId: (company.companyId as CompanyId), now, audit: benchContext }, { name: 'Bench app', redirectUris: [redirect], scopes: ['contacts:read'] })
const verifier = 'bench-verifier-'.padEnd(64, 'x')
const checked = await checkAuthorize(database.db, {
  client_id: made.app.client_id, redirect_uri: redirect, response_type: 'code', scope: 'contacts:read', code_challenge: challengeOf(verifier), code_challenge_method: 'S256',
}, 'https://engage.bench.example')
if (checked.kind !== 'ok') throw new Error(`bench OAuth request refused: ${JSON.stringify(checked)}`)
const code = new URL(await answerConsent(database.db, { companyId: (company.companyId as CompanyId), userId: admin, now, audit: benchContext }, checked, true)).searchParams.get('code')
const { access_token: oauthToken } = await exchangeCode(database.db, checked.client, { code, code_verifier: verifier, redirect_uri: redirect }, now)

const writeTokens: string[] = []
for (let i = 0; i < 10; i++) {
  const other = await createCompany(database.db, systemActing(), { name: `Writes ${i}`, timezone: 'UTC' })
  const user = await createUser(database.db, systemActing(), { company: other.id, name: 'Writer', email: `writer${i}@bench.example`, role: 'admin' })
  writeTokens.push((await createToken(database.db, systemActing(), user.id)).token)
}

await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
const port = typeof address === 'object' && address ? address.port : 0
process.stdout.write(
  JSON.stringify({
    port,
    token,
    oauthToken,
    writeTokens,
    companyId: company.companyId,
    userId: admin,
    memberId: member,
    contactId: company.typicalContactId,
    flowId: company.flowIds[0],
  }) + '\n',
)

process.on('SIGTERM', () => {
  void app.close().then(() => database.close()).then(() => process.exit(0))
})
