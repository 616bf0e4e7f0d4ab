// This file is the flows-api module's public face: it exports the flows' operations and the demo
// flows, which sit above contacts.
export { flowsCommands } from './flows-api.cli.js'
export { seedFlows } from './flows-api.demo.js'
export { default as flowsRoutes } from './flows-api.routes.js'
export { addContacts, changeFlow, createFlow, flowsPage, getFlow } from './flows-api.service.js'
