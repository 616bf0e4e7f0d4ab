// The flows module's public face: flows (cadences of steps) and the contacts enrolled in them.
export { flowContactsPage } from './flow-contacts.js'
export type { FlowContactRecord } from './flow-contacts.js'
export { flowsCommands } from './flows.cli.js'
export { seedFlows } from './flows.demo.js'
export { endEnrollments, FLOW_CONTACTS } from './flows.repository.js'
export { default as flowsRoutes } from './flows.routes.js'
export { Enrollment, Flow, FlowCreateBody, FlowsListQuery, FlowsPage, FlowStep, FlowStepInput, FlowUpdateBody, MAX_STEPS } from './flows.schemas.js'
export { addContacts, changeFlow, createFlow, flowsPage, getFlow } from './flows.service.js'
