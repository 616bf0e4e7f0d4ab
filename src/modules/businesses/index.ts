// The businesses module's public face: the businesses contacts and leads name.
export { businessNamed, INSERT_BUSINESS_NAMES, INSERT_BUSINESSES, insertBusinesses, KEEP_BUSINESS } from './businesses.repository.js'
export { Business } from './businesses.schemas.js'
export { contactBusiness } from './businesses.service.js'
