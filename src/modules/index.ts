// Every resource module's routes, served under /api.
import { contactsRoutes } from './contacts/index.js'
import { customFieldsRoutes } from './custom-fields/index.js'
import { tagsRoutes } from './tags-api/index.js'
import { flowsRoutes } from './flows-api/index.js'
import { tasksRoutes } from './tasks-api/index.js'
import { leadsRoutes } from './leads-api/index.js'
import { meetTranscriptionsRoutes } from './meet-transcriptions/index.js'
import { usersRoutes } from './users-api/index.js'
import { whatsappRoutes } from './whatsapp/index.js'
import { webhooksRoutes } from './webhooks-api/index.js'
import { auditRoutes } from './audit/index.js'
import { contactImportsRoutes } from './contact-imports/index.js'

export const resourceRoutes = [usersRoutes, contactsRoutes, customFieldsRoutes, tagsRoutes, flowsRoutes, tasksRoutes, leadsRoutes, meetTranscriptionsRoutes, whatsappRoutes, webhooksRoutes, auditRoutes, contactImportsRoutes]
