// Every resource module's routes, served under /api.
import contactsRoutes from './contacts/contacts.routes.js'
import customFieldsRoutes from './custom-fields/custom-fields.routes.js'
import tagsRoutes from './tags/tags.routes.js'
import flowsRoutes from './flows/flows.routes.js'
import tasksRoutes from './tasks/tasks.routes.js'
import leadsRoutes from './leads/leads.routes.js'
import meetTranscriptionsRoutes from './meet-transcriptions/meet-transcriptions.routes.js'
import usersRoutes from './users/users.routes.js'
import whatsappRoutes from './whatsapp/whatsapp.routes.js'
import webhooksRoutes from './webhooks/webhooks.routes.js'
import auditRoutes from './audit/audit.routes.js'
import contactImportsRoutes from './contact-imports/contact-imports.routes.js'

export const resourceRoutes = [usersRoutes, contactsRoutes, customFieldsRoutes, tagsRoutes, flowsRoutes, tasksRoutes, leadsRoutes, meetTranscriptionsRoutes, whatsappRoutes, webhooksRoutes, auditRoutes, contactImportsRoutes]
