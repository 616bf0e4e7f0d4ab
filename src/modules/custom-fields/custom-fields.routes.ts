import { catalogueRoutes } from '../../http/routes.js'
import { CustomField, CustomFieldBody, CustomFieldsList } from './custom-fields.schemas.js'
import { changeCustomField, createCustomField, customFieldsOfCompany, removeCustomField } from './custom-fields.service.js'
import texts from './custom-fields.operations.json' with { type: 'json' }

export default catalogueRoutes({
  tag: 'custom_fields', path: '/v1/custom_fields', rootKey: 'custom_field', notFound: 'No custom field with this id in your company',
  scopes: { read: 'custom_fields:read', write: 'custom_fields:write' }, schemas: { list: CustomFieldsList, item: CustomField, body: CustomFieldBody },
  texts, operations: { list: 'listCustomFields', create: 'createCustomField', update: 'updateCustomField', remove: 'deleteCustomField' },
  run: { list: customFieldsOfCompany, create: createCustomField, update: changeCustomField, remove: removeCustomField },
})
