// The batch upsert finds its contacts by email, a hundred at once (`lower(email) = any($2)`
// in contacts.batchLockContacts), and must do so through contacts_company_email_live_key, one
// probe per email, in the custom plan and in the generic one it runs with
// (contacts.batchLockEmails switches the batch's transaction to generic plans). That index
// is partial, and the planner ignores a partial index's expression statistics: without the
// statistics object of migration 0010 it estimated half of the company for a hundred emails
// and walked every contact of the company instead (650 ms at 1 M contacts, 1 ms with it).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { addCompany, SMALL, type CompanyInfo } from '../../bench/scale-data.js'
import { backends } from '../helpers/app.js'
import { explain, nodes, statementText, type PlanNode } from '../helpers/plans.js'
// The repository defines its statements on import.
import '../../src/modules/contacts/contacts.batch.sql.js'

/** How each node reads the contacts table: its type and index. */
const contactReads = (plan: PlanNode) =>
  [...nodes(plan)]
    .filter((node) => node['Relation Name'] === 'contacts')
    .map((node) => `${node['Node Type']} ${node['Index Name'] ?? ''}`.trim())

for (const backend of backends()) {
  describe(`the batch's lookup of a hundred emails (${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>
    let company: CompanyInfo
    let emails: string[]

    before(async () => {
      opened = await backend.open()
      // Enough contacts that reading them all costs more than a hundred probes.
      company = await addCompany(opened.url, 'Known', { ...SMALL, contacts: 30_000 }, { analyze: true })
      const client = new pg.Client({ connectionString: opened.url })
      await client.connect()
      try {
        const { rows } = await client.query<{ email: string }>(
          'select lower(email) as email from contacts where company_id = $1 and deleted_at is null order by id limit 50',
          [company.companyId],
        )
        emails = [...rows.map((row) => row.email), ...Array.from({ length: 50 }, (_, i) => `new.${String(i)}@plans.example`)]
      } finally {
        await client.end()
      }
    })
    after(async () => {
      await opened.drop()
    })

    for (const mode of ['custom', 'generic'] as const) {
      test(`${mode} plan: one probe of the email key per email, the 50 known contacts found`, async () => {
        const plan = await explain(
          opened.url,
          { sql: statementText('contacts.batchLockContacts'), params: [company.companyId, emails] },
          true,
          mode,
        )
        assert.deepEqual(contactReads(plan), ['Index Scan contacts_company_email_live_key'])
        const probe = [...nodes(plan)].find((node) => node['Relation Name'] === 'contacts')
        assert.equal(probe?.['Actual Rows'], 50)
        assert.equal(probe['Rows Removed by Filter'] ?? 0, 0)
      })
    }
  })
}
