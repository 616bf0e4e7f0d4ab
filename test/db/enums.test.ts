// The value lists the modules' schemas validate against are the database's enums, value for
// value and in order: the migrations define the enums, the modules list them again for TypeBox,
// and a value added to one side only fails here rather than as a 500 (or a 422 for a value
// the database takes).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { CONTACT_EVENT_KINDS } from '../../src/modules/events/events.schemas.js'
import { STAGES } from '../../src/modules/contacts/contacts.schemas.js'
import { CUSTOM_FIELD_KINDS } from '../../src/modules/custom-fields/custom-fields.schemas.js'
import { FLOW_STATUSES } from '../../src/modules/flows/flows.schemas.js'
import { TRANSCRIPTION_STATUSES } from '../../src/modules/meet-transcriptions/meet-transcriptions.schemas.js'
import { TASK_KINDS } from '../../src/modules/tasks/tasks.schemas.js'
import { DIRECTIONS, STATUSES } from '../../src/modules/whatsapp/whatsapp.schemas.js'
import { backends } from '../helpers/app.js'
import { rawRows, sql } from '../helpers/sql.js'

/** Each enum of the database that a module lists, and the list. */
const LISTS: Record<string, readonly string[]> = {
  contact_event_kind: CONTACT_EVENT_KINDS,
  contact_stage: STAGES,
  custom_field_kind: CUSTOM_FIELD_KINDS,
  flow_status: FLOW_STATUSES,
  meet_transcription_status: TRANSCRIPTION_STATUSES,
  task_kind: TASK_KINDS,
  whatsapp_direction: DIRECTIONS,
  whatsapp_status: STATUSES,
}

for (const backend of backends()) {
  describe(`enums (${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>
    before(async () => {
      opened = await backend.open()
    })
    after(() => opened.drop())

    test("the modules' value lists are the database's enums", async () => {
      const rows = await rawRows<{ type: string; labels: string[] }>(opened.database.db, sql`
        select t.typname as type, array_agg(e.enumlabel::text order by e.enumsortorder) as labels
          from pg_enum e join pg_type t on t.oid = e.enumtypid
         where t.typname = any(${Object.keys(LISTS)}) group by t.typname order by t.typname`)
      assert.deepEqual(Object.fromEntries(rows.map((row) => [row.type, row.labels])), Object.fromEntries(Object.entries(LISTS).map(([type, list]) => [type, [...list]])))
    })
  })
}
