// The batch write links the unlinked leads of each new contact's email (contacts.batchWrite and contacts.createWrite,
// its lead_found and linked CTEs), and must do so with one probe of leads_company_email_idx
// per email and one of the primary key per lead linked, whatever the statistics say, in the
// custom plan and in the generic one it runs with (the contact writes' transactions run on
// generic plans: transaction()'s genericPlans). Written as one join over the company, a table never
// analysed (a fresh install, no autovacuum) was walked through leads_company_contact_idx, every
// unlinked lead of the company, for every batch (206 ms a batch at 100,000 unlinked leads).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { addCompany, quietProgress, SMALL, type CompanyInfo } from '../../bench/scale-data.js'
import { literal } from '../../bench/sql-literal.js'
import { SESSION_OPTIONS } from '../../src/db/client.js'
import { backends } from '../helpers/app.js'
import { nodes, statementText, type PlanNode } from '../helpers/plans.js'
// The repository defines its statements on import.
import '../../src/modules/contacts/contacts.batch.sql.js'

const LEADS = 30_000
const CONTACTS = SMALL.contacts
const LINKED = 50
const UNKNOWN = 50

/** The nodes that read leads: to link them, and to unlink those of changed contacts (none here). */
const linkReads = (plan: PlanNode) =>
  [...nodes(plan)].filter((node) => node['Relation Name'] === 'leads' && node['Node Type'] !== 'ModifyTable')

/** Rows of leads read, kept or thrown away, over every loop of every node. */
const leadRowsRead = (plan: PlanNode) =>
  linkReads(plan)
    .reduce((sum, node) => sum + ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1), 0)

const leadReads = (plan: PlanNode) =>
  linkReads(plan)
    .map((node) => `${node['Node Type']} ${node['Index Name'] ?? ''}`.trim())

/** EXPLAIN ANALYZE of the write in a transaction rolled back, so that each plan links the same leads. */
async function explainWrite(url: string, name: string, params: unknown[], mode: 'custom' | 'generic'): Promise<{ plan: PlanNode; ms: number }> {
  const client = new pg.Client({ connectionString: url, options: SESSION_OPTIONS })
  await client.connect()
  try {
    await client.query('begin')
    let statement = statementText(name)
    if (mode === 'generic') {
      await client.query('set local plan_cache_mode = force_generic_plan')
      await client.query(`prepare explained as ${statement}`)
      statement = `execute explained(${params.map(literal).join(', ')})`
    }
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`, mode === 'generic' ? [] : params,
    )
    const explained = rows[0]?.['QUERY PLAN'][0]
    if (!explained) throw new Error('no plan')
    return { plan: explained.Plan, ms: explained['Execution Time'] }
  } finally {
    await client.query('rollback').catch(() => undefined)
    await client.end()
  }
}

// Every statement of the batch's write builder: the whole one and those built without some parts
// (a PUT that writes no tag, a POST, a batch of new contacts).
const WRITES = ['contacts.batchWrite', 'contacts.changePlainWrite', 'contacts.createWrite', 'contacts.createPlainWrite']
  .flatMap((name) => (['custom', 'generic'] as const).map((mode) => [name, mode] as const))

for (const backend of backends()) {
  for (const analysed of [false, true]) {
    describe(`the batch write's lead links of a hundred new emails, ${analysed ? 'analysed' : 'never analysed'} (${backend.name})`, () => {
      let opened: Awaited<ReturnType<typeof backend.open>>
      let company: CompanyInfo
      let params: unknown[]

      before(async () => {
        opened = await backend.open()
        const admin = new pg.Client({ connectionString: opened.url })
        await admin.connect()
        try {
          // As after a bulk import on a server without autovacuum: whatever it would learn is not there.
          if (!analysed) await admin.query('alter table leads set (autovacuum_enabled = false)')
        } finally {
          await admin.end()
        }
        quietProgress()
        // 30 % of the first CONTACTS leads are linked; the rest (some 29,700) wait for a contact.
        company = await addCompany(opened.url, 'Leads', { ...SMALL, contacts: CONTACTS, leads: LEADS }, { analyze: analysed, vacuum: analysed })
        const client = new pg.Client({ connectionString: opened.url })
        await client.connect()
        try {
          const { rows: contacts } = await client.query<{ id: number }>(
            'select id from contacts where company_id = $1 order by id limit $2', [company.companyId, LINKED + UNKNOWN],
          )
          const { rows: leads } = await client.query<{ email: string }>(
            'select email from leads where company_id = $1 and contact_id is null order by id desc limit $2', [company.companyId, LINKED],
          )
          assert.equal(leads.length, LINKED)
          const emails = [...leads.map((lead) => lead.email.toUpperCase()), ...Array.from({ length: UNKNOWN }, (_, i) => `nobody.${String(i)}@plans.example`)]
          if (!analysed) {
            const { rows: stats } = await client.query<{ n: number }>(`select count(*)::int as n from pg_stats where tablename = 'leads'`)
            assert.equal(stats[0]?.n, 0, 'leads has statistics')
          }
          // Only the links: nothing created or changed, no tags, values, events or counters.
          const none: unknown[] = []
          params = [
            company.companyId, new Date(), company.userIds[0], none, '[]', '[]', none, none, none, none, none, none, none, none, none,
            '[]', none, none, none, '[]',
            contacts.map((contact) => contact.id), emails, emails.map((_, i) => i + 1),
            none, null,
          ]
        } finally {
          await client.end()
        }
      })
      after(async () => {
        await opened.drop()
      })

      for (const [name, mode] of WRITES) {
        test(`${name}, ${mode} plans: one probe of leads_company_email_idx per email, one of the primary key per lead linked`, async (t) => {
          const { plan, ms } = await explainWrite(opened.url, name, params, mode)
          const reads = leadReads(plan)
          const read = leadRowsRead(plan)
          t.diagnostic(`${String(read)} rows of leads read, ${ms.toFixed(1)} ms: ${reads.join(', ')}`)
          assert.ok(reads.includes('Index Scan leads_company_email_idx'), reads.join(', '))
          assert.ok(!reads.some((read) => read.startsWith('Seq Scan')), reads.join(', '))
          const updates = [...nodes(plan)].filter((node) => node['Node Type'] === 'ModifyTable' && node['Relation Name'] === 'leads')
          assert.ok(updates.some((node) => node['Actual Rows'] === LINKED), `the leads linked: ${updates.map((node) => String(node['Actual Rows'])).join(', ')}`)
          // A probe per email and one per lead linked: never the company's unlinked leads.
          assert.ok(read <= 2 * (LINKED + UNKNOWN) + LINKED, `read ${String(read)} rows of leads: ${reads.join(', ')}`)
        })
      }
    })
  }
}
