import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { IdParams, Ref } from '../../http/schemas.js'
import { CustomField, CustomFieldBody, CustomFieldsList } from './custom-fields.schemas.js'
import { changeCustomField, createCustomField, customFieldsOfCompany, removeCustomField } from './custom-fields.service.js'

const customFieldsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v1/custom_fields', {
    config: { scope: 'custom_fields:read' },
    schema: {
      operationId: 'listCustomFields',
      tags: ['custom_fields'],
      summary: 'List the custom field definitions of your company (id ascending, not paged)',
      response: { 200: Ref(CustomFieldsList) },
    },
  }, async (request) => customFieldsOfCompany(app.db, request.caller))

  app.post('/v1/custom_fields', {
    config: { scope: 'custom_fields:write', rootKey: 'custom_field' },
    schema: {
      operationId: 'createCustomField',
      tags: ['custom_fields'],
      summary: 'Define a custom field for contacts',
      description: '`field` is unique in your company (case-insensitive). A `dropdown` needs at least one option.',
      body: CustomFieldBody,
      response: { 201: Ref(CustomField) },
    },
  }, async (request, reply) => {
    const field = await createCustomField(app.db, request.caller, request.body)
    return reply.code(201).header('location', `/api/v1/custom_fields/${field.id}`).send(field)
  })

  app.put('/v1/custom_fields/:id', {
    config: { scope: 'custom_fields:write', rootKey: 'custom_field', notFound: 'No custom field with this id in your company' },
    schema: {
      operationId: 'updateCustomField',
      tags: ['custom_fields'],
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
      tags: ['custom_fields'],
      summary: 'Delete a custom field definition and its values on every contact',
      params: IdParams,
      response: { 204: Type.Null({ description: 'Deleted' }) },
    },
  }, async (request, reply) => {
    await removeCustomField(app.db, request.caller, request.params.id)
    return reply.code(204).send(null)
  })
}

export default customFieldsRoutes
