// The leads module's public face: leads and their links to contacts.
export { leadLinkKey, leadsOfContactProbe, leadsOfEmailProbe, LINKED_LEADS, lockLeadEmail, setLeadsContact } from './lead-links.js'
export { seedLeads } from './leads.demo.js'
export { leadJson } from './leads.repository.js'
export { default as leadsRoutes } from './leads.routes.js'
export { Lead as LeadSchema, LeadContactBody, LeadCreateBody, LeadsPage, LeadsSyncPage } from './leads.schemas.js'
export { contactLeads, createLead, getLead, leadsCount, leadsPage, linkLeadToContact } from './leads.service.js'
export type { LeadRecord } from './leads.service.js'
