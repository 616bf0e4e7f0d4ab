// A company the planner has not seen yet (created after the last ANALYZE) must get the
// plans every other company gets: the statistics on company_id then hold only the known
// companies, the new one is estimated at one row, and a statement that compares the company
// as a plain parameter can be planned as a walk over all of the new company's rows through
// some index that leads with company_id, filtering on the ids it wanted (measured at scale:
// 17-61 ms instead of 0.1-1 ms, docs/performance.md). Each statement here is EXPLAIN
// ANALYZEd with a custom plan (what a named statement's first five runs get) for a fresh
// company, and may discard only a few rows by filter. (The tasks statements compare the
// company the same way; their one fresh-company miss, a new assignee's finished tasks, shows
// only at scale: `npm run bench -- --scale`.)
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { addCompany, SMALL, type CompanyInfo } from '../../bench/scale-data.js'
import { backends } from '../helpers/app.js'
import { explain, nodes, statementText, type PlanNode } from '../helpers/plans.js'
// The repositories define their statements on import.
import '../../src/modules/contacts/contacts.repository.js'
import '../../src/modules/whatsapp/whatsapp.repository.js'

/** Rows read and thrown away by filters, over every loop of every node. */
const discarded = (plan: PlanNode) =>
  [...nodes(plan)].reduce(
    (sum, node) => sum + ((node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Join Filter'] ?? 0)) * (node['Actual Loops'] ?? 1),
    0,
  )

// The fresh company holds thousands of rows per table (SMALL: 2,000 contacts, 4,000
// messages); the plans that walk the company discard about that many.
const FEW = 200

const TABLES = ['contacts', 'businesses', 'whatsapp_messages', 'whatsapp_chats']

for (const backend of backends()) {
  describe(`plans for a company the statistics have not seen (${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>
    let fresh: CompanyInfo

    before(async () => {
      opened = await backend.open()
      const admin = new pg.Client({ connectionString: opened.url })
      await admin.connect()
      try {
        // No autovacuum here: an ANALYZE it ran after the fresh company was written would
        // make that company known, and the test would pass whatever the statements say.
        for (const table of TABLES) await admin.query(`alter table ${table} set (autovacuum_enabled = false)`)
      } finally {
        await admin.end()
      }
      await addCompany(opened.url, 'Known', SMALL, { analyze: true })
      fresh = await addCompany(opened.url, 'Fresh', SMALL, { analyze: false })
    })
    after(async () => {
      await opened.drop()
    })

    test('the setup: the planner expects a handful of the fresh company\'s rows', async () => {
      const plan = await explain(opened.url, { sql: 'select id from whatsapp_messages where company_id = $1', params: [fresh.companyId] }, false)
      assert.ok(plan['Plan Rows'] < 10, `estimated ${String(plan['Plan Rows'])} rows`)
    })

    const cases = (): [string, unknown[]][] => {
      const [, user] = fresh.userIds
      return [
        ['whatsapp.messages', [fresh.companyId, fresh.whaleContactId, 25, 0]],
        ['whatsapp.messagesOfUser', [fresh.companyId, fresh.whaleContactId, 25, 0, user]],
        ['whatsapp.chats', [fresh.companyId, fresh.whaleContactId, 25, 0]],
        ['whatsapp.chatsOfUser', [fresh.companyId, fresh.whaleContactId, 25, 0, user]],
        ['businesses.ofContact', [fresh.companyId, fresh.typicalContactId]],
      ]
    }

    test('each statement reads the fresh company\'s rows by its indexes, not by filtering the company', async () => {
      const offenders: string[] = []
      for (const [name, params] of cases()) {
        const thrownAway = discarded(await explain(opened.url, { sql: statementText(name), params }, true))
        if (thrownAway > FEW) offenders.push(`${name}: ${String(thrownAway)} rows discarded by filters`)
      }
      assert.deepEqual(offenders, [])
    })
  })
}
