// This file is the leads-api module's public face: it exports the leads' operations, which sit above contacts.
export { seedLeads } from './leads-api.demo.js'
export { default as leadsRoutes } from './leads-api.routes.js'
export { contactLeads, createLead, getLead, leadsCount, leadsPage, linkLeadToContact } from './leads-api.service.js'
