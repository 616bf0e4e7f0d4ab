// The service as the benchmark runs it: the production app (buildApp) on DATABASE_URL (or
// the embedded PostgreSQL under DATA_DIR), a fresh company with a token, a rate limit too high to interfere.
// Prints one JSON line {port, token, ...ids} when it listens.
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { openDatabase } from '../src/db/client.js'
import { createToken } from '../src/modules/auth/tokens.service.js'
import { createContact } from '../src/modules/contacts/contacts.service.js'
import { createTag } from '../src/modules/tags/tags.service.js'
import { asCompanyId } from '../src/tenancy.js'
import { createCompany, createUser } from '../src/modules/users/users.service.js'

const base = loadConfig()
const config = { ...base, logLevel: 'warn', rateLimit: { ...base.rateLimit, max: 100_000_000 } }
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
const app = await buildApp(config, { database })

const company = await createCompany(database.db, { name: `Bench ${Date.now()}`, timezone: 'UTC' })
const user = await createUser(database.db, { company: company.id, name: 'Bench', email: `bench${Date.now()}@example.com`, role: 'admin' })
const { token } = await createToken(database.db, user.id)

// A small, realistic company: contacts with a tag each, read back by id and by page.
const caller = { tokenId: 0, userId: user.id, companyId: asCompanyId(company.id), timezone: 'UTC' }
const tag = await createTag(database.db, caller, { name: 'Hot', color: '#e11d48' }, new Date())
let contactId = 0
for (let i = 0; i < 50; i++) {
  const contact = await createContact(
    database.db,
    caller,
    { first_name: `Person${i}`, last_name: 'Bench', email: `person${i}@bench.example`, business: 'Initech', stage: 'lead', tags: [tag.id] },
    new Date(),
  )
  contactId = contact.id
}

await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
const port = typeof address === 'object' && address ? address.port : 0
process.stdout.write(JSON.stringify({ port, token, companyId: company.id, userId: user.id, contactId }) + '\n')

process.on('SIGTERM', () => {
  void app.close().then(() => database.close()).then(() => process.exit(0))
})
