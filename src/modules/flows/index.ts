// The flows module's public face: flows (cadences of steps), the contacts enrolled in them, their statements.
export { flowContactsPage } from './flow-contacts.js'
export type { FlowContactRecord } from './flow-contacts.js'
export {
  activeContactsIn,
  countEnrollment,
  endEnrollments,
  findFlow,
  findFlowForEnrollment,
  FLOW_CONTACTS,
  flowsPageWithTotal,
  insertEnrollment,
  insertFlow,
  lockFlow,
  replaceSteps,
  updateFlow,
} from './flows.repository.js'
export type { EnrollmentRecord, FlowForEnrollment } from './flows.repository.js'
export {
  AddContactBody,
  Enrollment,
  Flow,
  FlowCreateBody,
  FlowCreateInput,
  FlowsListQuery,
  FlowsPage,
  FlowStep,
  FlowStepInput,
  FlowUpdateBody,
  MAX_STEPS,
} from './flows.schemas.js'
