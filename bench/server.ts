// The service as the benchmark runs it: the production app (dist/'s buildApp, bench/production.ts) on DATABASE_URL (or
// the embedded PostgreSQL under DATA_DIR) with a rate limit too high to interfere, its
// delivery worker on, and
// - "Bench Co", written by the scale generator at a small size (bench/scale-data.ts SMALL:
//   2,000 contacts, tasks and leads, 1,000 transcriptions, 4,000 messages), so every list
//   has full pages; its admin's token reads them;
// - an OAuth access token of the same admin (an app of Bench Co, consent, code exchange),
//   for the contact by id read with it beside the api token's;
// - ten empty companies with a token each, for the write scenario (one company vs ten).
// Prints one JSON line {port, token, writeTokens, ...ids} when it listens.
import * as production from './production.js'
import type { CompanyId } from '../src/tenancy.js'
import { addCompany, quietProgress, SMALL } from './scale-data.js'

const { buildApp } = production.app
const { loadConfig } = production.config
const { openDatabase } = production.client
const { createToken } = production.tokens
const { createCompany, createUser } = production.users
const { registerApp, checkAuthorize, answerConsent, exchangeCode } = production.oauth
const { challengeOf } = production.oauthProtocol

const base = loadConfig()
const config = { ...base, logLevel: 'warn', rateLimit: { ...base.rateLimit, max: 100_000_000 } }
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
// With the delivery worker, as `npm start` runs: it publishes the events the writes record
// (numbering them is part of a write's cost, docs/webhook-events.md).
const app = await buildApp(config, { database, webhookWorker: true })

if (!config.databaseUrl) throw new Error('bench/server.ts needs DATABASE_URL')
quietProgress()
const company = await addCompany(config.databaseUrl, 'Bench Co', SMALL, { analyze: true })
const [admin, member] = company.userIds
if (admin === undefined || member === undefined) throw new Error('the bench company has no users')
const { token } = await createToken(database.db, admin)

// The OAuth access token: through the service's own steps (the browser's part is the consent page).
const benchContext = { actor: { type: 'system' as const, id: null, label: 'bench' }, ip: null, userAgent: null, requestId: null }
const now = new Date()
const redirect = 'https://bench.example/callback'
const made = await registerApp(database.db, (company.companyId as CompanyId), { name: 'Bench app', redirectUris: [redirect], scopes: ['contacts:read'] }, now, benchContext)
const verifier = 'bench-verifier-'.padEnd(64, 'x')
const checked = await checkAuthorize(database.db, {
  client_id: made.app.client_id, redirect_uri: redirect, response_type: 'code', scope: 'contacts:read', code_challenge: challengeOf(verifier), code_challenge_method: 'S256',
})
if (checked.kind !== 'ok') throw new Error(`bench OAuth request refused: ${JSON.stringify(checked)}`)
const code = new URL(await answerConsent(database.db, { companyId: (company.companyId as CompanyId), userId: admin }, checked, true, now, benchContext)).searchParams.get('code')
const { access_token: oauthToken } = await exchangeCode(database.db, checked.client, { code, code_verifier: verifier, redirect_uri: redirect }, now)

const writeTokens: string[] = []
for (let i = 0; i < 10; i++) {
  const other = await createCompany(database.db, { name: `Writes ${i}`, timezone: 'UTC' })
  const user = await createUser(database.db, { company: other.id, name: 'Writer', email: `writer${i}@bench.example`, role: 'admin' })
  writeTokens.push((await createToken(database.db, user.id)).token)
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
