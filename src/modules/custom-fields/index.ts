// The custom-fields module's public face: the company's catalogue of custom fields.
export { fieldJoin, fieldsNamedAmong, insertCustomFields, keyShareFieldsAmong } from './custom-fields.repository.js'
export { default as customFieldsRoutes } from './custom-fields.routes.js'
export { CustomField, CustomFieldsList } from './custom-fields.schemas.js'
export type { CustomFieldKind } from './custom-fields.schemas.js'
export { createCustomField, customFieldsOfCompany } from './custom-fields.service.js'
