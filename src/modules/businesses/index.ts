// The businesses module's public face: the businesses contacts and leads name.
export { INSERT_BUSINESSES, insertBusinesses } from './businesses.repository.js'
export { Business } from './businesses.schemas.js'
export { contactBusiness } from './businesses.service.js'
