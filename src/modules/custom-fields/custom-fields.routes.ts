import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendCreated, tagRoutes } from '../../http/routes.js'
import { Deleted, IdParams, Ref } from '../../http/schemas.js'
import { CustomField, CustomFieldBody, CustomFieldsList } from './custom-fields.schemas.js'
import { changeCustomField, createCustomField, customFieldsOfCompany, removeCustomField } from './custom-fields.service.js'

const customFieldsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'custom_fields')

  app.get('/v1/custom_fields', {
    config: { scope: 'custom_fields:read' },
    schema: {
      operationId: 'listCustomFields',
      summary: 'List the custom field definitions of your company (id ascending, not paged)',
      response: { 200: Ref(CustomFieldsList) },
    },
  }, async (request) => customFieldsOfCompany(app.db, request.caller))

  app.post('/v1/custom_fields', {
    config: { scope: 'custom_fields:write', rootKey: 'custom_field' },
    schema: {
      operationId: 'createCustomField',
      summary: 'Define a custom field for contacts',
      description: '`field` is unique in your company (case-insensitive). A `dropdown` needs at least one option.',
      body: CustomFieldBody,
      response: { 201: Ref(CustomField) },
    },
  }, async (request, reply) => sendCreated(reply, '/api/v1/custom_fields', await createCustomField(app.db, request.caller, request.body)))

  app.put('/v1/custom_fields/:id', {
    config: { scope: 'custom_fields:write', rootKey: 'custom_field', notFound: 'No custom field with this id in your company' },
    schema: {
      operationId: 'updateCustomField',
      summary: 'Change a custom field definition',
      description: 'Values already set on contacts are kept as they are.',
      params: IdParams,
      body: CustomFieldBody,
      response: { 200: Ref(CustomField) },
    },
  }, async (request) => changeCustomField(app.db, request.caller, request.params.id, request.body))

  app.delete('/v1/custom_fields/:id', {
    config: { scope: 'custom_fields:write', notFound: 'No custom field with this id in your company' },
    schema: {
      operationId: 'deleteCustomField',
      summary: 'Delete a custom field definition and its values on every contact',
      params: IdParams,
      response: { 204: Deleted },
    },
  }, async (request, reply) => {
    await removeCustomField(app.db, request.caller, request.params.id)
    return reply.code(204).send(null)
  })
}

export default customFieldsRoutes
