// The batch upsert finds its contacts by email, hundreds at once (contacts.batchLockContacts;
// an import's skip of known emails, contacts.batchLiveEmails; the item-by-item path,
// contacts.batchFindByEmail), and must do so with one probe per email whatever the
// statistics say: through contacts_email_company_idx, then the primary key of each contact
// found, in the custom plan and in the generic one it runs with (the contact writes'
// transactions run on generic plans: transaction()'s genericPlans). Written as one
// `lower(email) = any($2)` over the company, a database never analysed (a fresh install, no
// autovacuum) took the company for a handful of rows and walked all of it for every batch
// (8 s for 500 emails at 1 M contacts; a contact import slowed down as its table grew), and
// an analysed one needed the statistics of migration 0010 not to.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { addCompany, quietProgress, SMALL, type CompanyInfo } from '../../bench/scale-data.js'
import { backends } from '../helpers/app.js'
import { explain, nodes, statementText, type PlanNode } from '../helpers/plans.js'
// The repository defines its statements on import.
import '../../src/modules/contacts/contacts.batch.sql.js'

/** How each node reads the contacts table: its type and index. */
const contactReads = (plan: PlanNode) =>
  [...nodes(plan)]
    .filter((node) => node['Relation Name'] === 'contacts')
    .map((node) => `${node['Node Type']} ${node['Index Name'] ?? ''}`.trim())

/** Rows of contacts read, kept or thrown away, over every loop of every node. */
const contactRowsRead = (plan: PlanNode) =>
  [...nodes(plan)]
    .filter((node) => node['Relation Name'] === 'contacts')
    .reduce((sum, node) => sum + ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1), 0)

const KNOWN = 50
const NEW = 50

/** The statements that find contacts by email, each with its parameters. */
const statements = (company: CompanyInfo, emails: string[]): [string, unknown[], number][] => [
  ['contacts.batchLockContacts', [company.companyId, emails], KNOWN],
  ['contacts.batchLiveEmails', [company.companyId, emails], KNOWN],
  ['contacts.batchFindByEmail', [company.companyId, emails[0]], 1],
]

for (const backend of backends()) {
  for (const analysed of [false, true]) {
    describe(`the batch's lookups of a hundred emails, ${analysed ? 'analysed' : 'never analysed'} (${backend.name})`, () => {
      let opened: Awaited<ReturnType<typeof backend.open>>
      let company: CompanyInfo
      let emails: string[]

      before(async () => {
        opened = await backend.open()
        const admin = new pg.Client({ connectionString: opened.url })
        await admin.connect()
        try {
          // As after a bulk import on a server without autovacuum: whatever it would learn is not there.
          if (!analysed) await admin.query('alter table contacts set (autovacuum_enabled = false)')
        } finally {
          await admin.end()
        }
        quietProgress()
        // Enough contacts that reading them all costs more than a hundred probes.
        company = await addCompany(opened.url, 'Known', { ...SMALL, contacts: 30_000 }, { analyze: analysed, vacuum: analysed })
        const client = new pg.Client({ connectionString: opened.url })
        await client.connect()
        try {
          const { rows } = await client.query<{ email: string }>(
            'select lower(email) as email from contacts where company_id = $1 and deleted_at is null order by id limit $2',
            [company.companyId, KNOWN],
          )
          emails = [...rows.map((row) => row.email), ...Array.from({ length: NEW }, (_, i) => `new.${String(i)}@plans.example`)]
          if (!analysed) {
            const { rows: stats } = await client.query<{ n: number }>(`select count(*)::int as n from pg_stats where tablename = 'contacts'`)
            assert.equal(stats[0]?.n, 0, 'contacts has statistics')
          }
        } finally {
          await client.end()
        }
      })
      after(async () => {
        await opened.drop()
      })

      for (const mode of ['custom', 'generic'] as const) {
        test(`${mode} plans: one probe of contacts_email_company_idx per email, one of the primary key per contact locked`, async () => {
          for (const [name, params, found] of statements(company, emails)) {
            const plan = await explain(opened.url, { sql: statementText(name), params }, true, mode)
            const reads = contactReads(plan)
            assert.equal(reads[0], 'Index Scan contacts_email_company_idx', `${name}: ${reads.join(', ')}`)
            assert.ok(reads.slice(1).every((read) => read === 'Index Scan contacts_company_id_id_pk'), `${name}: ${reads.join(', ')}`)
            assert.equal(plan['Actual Rows'], found, name)
            // A probe per email and one per contact found: never the company's 30,000 contacts.
            const lookups = name === 'contacts.batchFindByEmail' ? 1 : emails.length
            assert.ok(contactRowsRead(plan) <= 2 * lookups, `${name} read ${String(contactRowsRead(plan))} rows of contacts`)
          }
        })
      }
    })
  }
}
