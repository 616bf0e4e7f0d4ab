// The businesses module's public face: the businesses contacts and leads name.
export { businessNamed, businessOfRow, businessRecord, INSERT_BUSINESS_NAMES, INSERT_BUSINESSES, insertBusinesses, KEEP_BUSINESS } from './businesses.repository.js'
export type { BusinessRow } from './businesses.repository.js'
export { Business } from './businesses.schemas.js'
