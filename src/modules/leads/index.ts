// The leads module's public face: leads, their statements and their links to contacts.
export { leadLinkKey, leadsOfContactProbe, leadsOfEmailProbe, LINKED_LEADS, lockLeadEmail, setLeadsContact } from './lead-links.js'
export {
  countLeads,
  findLead,
  insertLeadParams,
  insertLeadSql,
  leadJson,
  leadsOfContact,
  leadsPageWithTotal,
  leadsWalkPage,
  linkLeadSql,
  lockLead,
} from './leads.repository.js'
export type { DemoLeadContactRecord, LeadRecord } from './leads.repository.js'
export {
  DemoLeadContact,
  Lead as LeadSchema,
  LeadContactBody,
  LeadCreateBody,
  LeadsCountQuery,
  LeadsPage,
  LeadsQuery,
  LeadsResponse,
  LeadsSyncPage,
} from './leads.schemas.js'
