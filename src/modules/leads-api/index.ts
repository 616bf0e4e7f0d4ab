// The leads-api module's public face: the leads' operations, above contacts.
export { seedLeads } from './leads-api.demo.js'
export { default as leadsRoutes } from './leads-api.routes.js'
export { contactLeads, createLead, getLead, leadsCount, leadsPage, linkLeadToContact } from './leads-api.service.js'
