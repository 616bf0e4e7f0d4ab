import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { catalogueRoutes, tagRoutes } from '../../http/routes.js'
import { CustomField, CustomFieldBody, CustomFieldsList } from './custom-fields.schemas.js'
import { changeCustomField, createCustomField, customFieldsOfCompany, removeCustomField } from './custom-fields.service.js'

const customFieldsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'custom_fields')
  catalogueRoutes(app, {
    path: '/v1/custom_fields',
    scopes: { read: 'custom_fields:read', write: 'custom_fields:write' },
    rootKey: 'custom_field',
    notFound: 'No custom field with this id in your company',
    schemas: { list: CustomFieldsList, item: CustomField, body: CustomFieldBody },
    list: {
      operationId: 'listCustomFields',
      summary: 'List the custom field definitions of your company (id ascending, not paged)',
      run: customFieldsOfCompany,
    },
    create: {
      operationId: 'createCustomField',
      summary: 'Define a custom field for contacts',
      description: '`field` is unique in your company (case-insensitive). A `dropdown` needs at least one option.',
      run: createCustomField,
    },
    update: {
      operationId: 'updateCustomField',
      summary: 'Change a custom field definition',
      description: 'Values already set on contacts are kept as they are.',
      run: changeCustomField,
    },
    remove: { operationId: 'deleteCustomField', summary: 'Delete a custom field definition and its values on every contact', run: removeCustomField },
  })
}

export default customFieldsRoutes
