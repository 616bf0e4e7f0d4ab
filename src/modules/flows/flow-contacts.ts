// The contacts active in a flow, a page at a time, for the flow's page in the workspace; the
// count is the flow's contacts_count (its counter).
import type { Db } from '../../db/db.js'
import { defineQuery, run } from '../../db/query.js'
import { recordSql, type Row } from '../../db/records.js'
import type { CompanyId } from '../../tenancy.js'
import { FlowContact } from './flows.schemas.js'

/** A contact active in a flow as the statement returns it: the FlowContact schema's row. */
export type FlowContactRecord = Row<typeof FlowContact>

const FLOW_CONTACT = recordSql(FlowContact, 'flow_enrollments e').columns('')

// flow_enrollments_active_key (company_id, flow_id, contact_id) where active: the page in
// contact order, read from the index, then its rows by that index's entries.
const activeContacts = defineQuery<FlowContactRecord>(
  'flows.activeContactsPage',
  `select ${FLOW_CONTACT}
     from flow_enrollments
    where company_id = $1 and flow_id = $2 and status = 'active'
    order by contact_id
    limit $3 offset $4`,
)

/** A page of the contacts active in the flow, by contact id. */
export function flowContactsPage(db: Db, companyId: CompanyId, flowId: number, page: { limit: number; offset: number }): Promise<FlowContactRecord[]> {
  return run(db, activeContacts, [companyId, flowId, page.limit, page.offset])
}
