// The flows-api module's public face: the flows' operations and demo flows, above contacts.
export { flowsCommands } from './flows-api.cli.js'
export { seedFlows } from './flows-api.demo.js'
export { default as flowsRoutes } from './flows-api.routes.js'
export { addContacts, changeFlow, createFlow, flowsPage, getFlow } from './flows-api.service.js'
