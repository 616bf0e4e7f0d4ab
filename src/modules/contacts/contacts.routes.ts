import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendJsonText } from '../../http/json-text.js'
import { sendListPage } from '../../http/pagination.js'
import { operation, recordRoute, sendCreatedJson, tagRoutes } from '../../http/routes.js'
import { Deleted, IdParams, Ref } from '../../http/schemas.js'
import { walkingListRoute } from '../../http/sync.js'
import { Business } from '../businesses/index.js'
import { ContactEventsPage, ContactEventsQuery } from '../events/index.js'
import { Contact, ContactCreateBody, ContactUpdateBody } from './contacts.schemas.js'
import { changeContact } from './contacts.change.js'
import { createContact } from './contacts.create.js'
import { contactBusiness, contactEventsPage, CONTACTS_LIST, deleteContact, getContactJson } from './contacts.service.js'
import { upsertContacts, toBatchResponse } from './contacts.batch.js'
import { batchValidatorCompiler, ContactBatchRequest, ContactBatchResponse } from './contacts.batch.schemas.js'
import texts from './contacts.operations.json' with { type: 'json' }


const NO_CONTACT = 'No live contact with this id in your company'

const contactsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'contacts')

  walkingListRoute(app, '/v1/contacts', texts, 'listContacts', { scope: 'contacts:read' }, CONTACTS_LIST)

  app.get('/v1/contacts/:id', operation(texts, 'getContact', { scope: 'contacts:read', notFound: NO_CONTACT }, {
    params: IdParams, response: { 200: Ref(Contact) },
  }), async (request, reply) => sendJsonText(reply, await getContactJson(app.db, request.caller, request.params.id)))

  app.post('/v1/contacts', operation(texts, 'createContact', { scope: 'contacts:write', rootKey: 'contact' }, {
    body: ContactCreateBody, response: { 201: Ref(Contact) },
  }), async (request, reply) => sendCreatedJson(reply, '/api/v1/contacts', await createContact(request.db, request.caller, request.body)))

  app.post('/v1/contacts/batch', {
    ...operation(texts, 'upsertContactsBatch', { scope: 'contacts:write' }, {
      body: Ref(ContactBatchRequest), response: { 200: Ref(ContactBatchResponse) },
    }),
    validatorCompiler: batchValidatorCompiler,
  }, async (request) => {
    const results = await upsertContacts(request.db, request.caller, request.body.contacts)
    return toBatchResponse(results, request.id)
  })

  app.put('/v1/contacts/:id', operation(texts, 'updateContact', { scope: 'contacts:write', rootKey: 'contact', notFound: NO_CONTACT }, {
    params: IdParams, body: ContactUpdateBody, response: { 200: Ref(Contact) },
  }), async (request, reply) => sendJsonText(reply, (await changeContact(request.db, request.caller, request.params.id, request.body)).json))

  app.delete('/v1/contacts/:id', operation(texts, 'deleteContact', { scope: 'contacts:write', notFound: `${NO_CONTACT} (deleting twice answers 404)` }, {
    params: IdParams, response: { 204: Deleted },
  }), async (request, reply) => {
    await deleteContact(request.db, request.caller, request.params.id)
    return reply.code(204).send(null)
  })

  app.get('/v1/contacts/:id/events', operation(texts, 'listContactEvents', { scope: 'contacts:read', notFound: NO_CONTACT }, {
    params: IdParams, querystring: ContactEventsQuery, response: { 200: Ref(ContactEventsPage) },
  }), async (request, reply) => sendListPage(request, reply, await contactEventsPage(app.db, request.caller, request.params.id, request.query)))

  recordRoute(app, '/v1/contacts/:id/business', texts, 'getContactBusiness', { scope: 'contacts:read', notFound: `${NO_CONTACT}, or the contact has no business` }, Business, contactBusiness)
}

export default contactsRoutes
