// Migration 0011 drops api_events.fanned_out (events are published, deliveries and all, after
// commit since). Events an older version recorded but had not fanned out yet when it
// stopped get their deliveries from the migration first, as that version's worker would
// have made them. Run here on today's schema with the column put back for the occasion.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { execute, rawRows, sql } from '../helpers/sql.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addSubscription, tenant, type Tenant } from '../helpers/factories.js'

const migration = readFileSync(new URL('../../migrations/0011_events_published_after_commit.sql', import.meta.url), 'utf8')
const fanOut = migration.split('--> statement-breakpoint').find((part) => part.includes('NOT e."fanned_out"'))

for (const backend of backends()) {
  describe(`migration 0011 (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { name: 'Acme' })
      other = await tenant(t.db, { name: 'Other' })
    })
    after(() => t.close())

    const event = async (companyId: number, type: string, fannedOut: boolean) => {
      const [row] = await rawRows<{ id: number }>(t.db, sql`
        insert into api_events (company_id, sequence, type, data, created_at, fanned_out)
        values (${companyId}, 1, ${type}, '{}', '2026-11-20T10:00:00Z', ${fannedOut}) returning id`)
      if (!row) throw new Error('no event')
      return row.id
    }

    test('events not yet fanned out get one delivery per matching enabled subscription of their company, the others none', async () => {
      assert.ok(fanOut, 'the migration fans out pending events')
      await execute(t.db, sql`alter table api_events add column fanned_out boolean not null default true`)
      const star = await addSubscription(t.db, acme.companyId, ['*'])
      const tags = await addSubscription(t.db, acme.companyId, ['tag.created'])
      await addSubscription(t.db, acme.companyId, ['*'], false)
      const theirs = await addSubscription(t.db, other.companyId, ['*'])
      const pendingTag = await event(acme.companyId, 'tag.created', false)
      const pendingLead = await event(acme.companyId, 'lead.created', false)
      await event(acme.companyId, 'tag.created', true) // fanned out by the old worker already
      const pendingTheirs = await event(other.companyId, 'tag.deleted', false)

      await execute(t.db, sql.raw(fanOut))
      await execute(t.db, sql`alter table api_events drop column fanned_out`)

      const made = await rawRows<{ event_id: number; subscription_id: number; status: string; next_attempt_at: string }>(t.db, sql`
        select event_id, subscription_id, status, to_char(next_attempt_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as next_attempt_at
          from webhook_deliveries order by event_id, subscription_id`)
      const due = '2026-11-20T10:00:00Z'
      assert.deepEqual(made, [
        { event_id: pendingTag, subscription_id: star, status: 'pending', next_attempt_at: due },
        { event_id: pendingTag, subscription_id: tags, status: 'pending', next_attempt_at: due },
        { event_id: pendingLead, subscription_id: star, status: 'pending', next_attempt_at: due },
        { event_id: pendingTheirs, subscription_id: theirs, status: 'pending', next_attempt_at: due },
      ])
    })
  })
}
