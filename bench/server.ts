// The service as the benchmark runs it: the production app (dist/'s buildApp, bench/production.ts) on DATABASE_URL (or
// the embedded PostgreSQL under DATA_DIR) with a rate limit too high to interfere, its
// delivery worker on, and
// - "Bench Co", written by the scale generator at a small size (bench/scale-data.ts SMALL:
//   2,000 contacts, tasks and leads, 1,000 transcriptions, 4,000 messages), so every list
//   has full pages; its admin's token reads them;
// - ten empty companies with a token each, for the write scenario (one company vs ten).
// Prints one JSON line {port, token, writeTokens, ...ids} when it listens.
import * as production from './production.js'
import { addCompany, quietProgress, SMALL } from './scale-data.js'

const { buildApp } = production.app
const { loadConfig } = production.config
const { openDatabase } = production.client
const { createToken } = production.tokens
const { createCompany, createUser } = production.users

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
quietProgress()
const company = await addCompany(config.databaseDirectUrl ?? config.databaseUrl, 'Bench Co', SMALL, { analyze: true })
const [admin, member] = company.userIds
if (admin === undefined || member === undefined) throw new Error('the bench company has no users')
const { token } = await createToken(database.db, admin)

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
