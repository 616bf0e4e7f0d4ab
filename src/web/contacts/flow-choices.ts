// The flows a contact can be added to, for the Add to flow forms of the contacts pages.
import type { Db } from '../../db/db.js'
import type { Flow } from '../../modules/flows/index.js'
import { flowsPage } from '../../modules/flows-api/index.js'
import type { Caller } from '../../tenancy.js'

/** The company's first 100 flows, by id: their ids and names. */
export async function flowChoices(db: Db, caller: Caller): Promise<{ id: number; name: string }[]> {
  const listed = await flowsPage(db, caller, { page: 1, per_page: 100 })
  const flows = ('json' in listed ? JSON.parse(listed.json) : listed.data) as Flow[]
  return flows.map((flow) => ({ id: flow.id, name: flow.name }))
}
