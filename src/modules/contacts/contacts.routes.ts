import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendJsonText } from '../../http/json-text.js'
import { sendPage } from '../../http/pagination.js'
import { sendCreated, tagRoutes } from '../../http/routes.js'
import { Deleted, IdParams, Ref } from '../../http/schemas.js'
import { answerList, walkingList } from '../../http/sync.js'
import { Business } from '../businesses/businesses.schemas.js'
import { ContactEventsPage, ContactEventsQuery } from '../events/events.schemas.js'
import { Contact, ContactCreateBody, ContactsListQuery, ContactsListResponse, ContactsPage, ContactUpdateBody } from './contacts.schemas.js'
import { changeContact } from './contacts.change.js'
import {
  contactBusiness,
  contactEventsPage,
  contactsPage,
  contactsWalk,
  createContact,
  deleteContact,
  getContactJson,
} from './contacts.service.js'
import { upsertContacts, toBatchResponse } from './contacts.batch.js'
import { batchValidatorCompiler, ContactBatchRequest, ContactBatchResponse } from './contacts.batch.schemas.js'

const CONTACTS_LIST = walkingList({
  resource: 'contacts',
  query: ContactsListQuery,
  walkRefuses: ['user_id', 'search_term'],
  pageNeeds: ['page'],
  pageSchema: ContactsPage,
  walk: contactsWalk,
  page: contactsPage,
})

const contactsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'contacts')

  app.get('/v1/contacts', {
    config: { scope: 'contacts:read' },
    schema: {
      operationId: 'listContacts',
      summary: 'List contacts (id ascending), optionally of one owner or matching a search; or walk the changes',
      description:
        '`search_term` matches a case-insensitive substring of the full name (first and last), the business or the email.\n\n' +
        'With `updated_since` (then `cursor`): the contacts changed at or after it, in (updated_at, id) order, deleted ' +
        'ones as `{id, deleted: true, deleted_at}`; `page`, `user_id` and `search_term` are refused.',
      querystring: ContactsListQuery,
      response: { 200: ContactsListResponse },
    },
  }, async (request, reply) => answerList(app, request, reply, request.query, CONTACTS_LIST))

  app.get('/v1/contacts/:id', {
    config: { scope: 'contacts:read', notFound: 'No live contact with this id in your company' },
    schema: {
      operationId: 'getContact',
      summary: 'A contact with its tags and custom fields',
      params: IdParams,
      response: { 200: Ref(Contact) },
    },
  }, async (request, reply) => sendJsonText(reply, await getContactJson(app.db, request.caller, request.params.id)))

  app.post('/v1/contacts', {
    config: { scope: 'contacts:write', rootKey: 'contact' },
    schema: {
      operationId: 'createContact',
      summary: 'Create a contact (you are its owner)',
      description:
        '`email` is unique among the live contacts of your company (case-insensitive). `user_id` is ignored: the owner is the caller.',
      body: ContactCreateBody,
      response: { 201: Ref(Contact) },
    },
  }, async (request, reply) => sendCreated(reply, '/api/v1/contacts', await createContact(app.db, request.caller, request.body)))

  app.post('/v1/contacts/batch', {
    config: { scope: 'contacts:write' },
    validatorCompiler: batchValidatorCompiler,
    schema: {
      operationId: 'upsertContactsBatch',
      summary: 'Create or update up to 100 contacts by email, in order; one result per contact',
      description:
        'Each contact is matched by `email` (case-insensitive) among the live contacts of your company: a new email is ' +
        'created as `POST /contacts` does, a known one updated as `PUT /contacts/:id` does (an omitted `business` is left ' +
        'as it is). Contacts are applied in order (a second one with the same email updates what the first left) and each ' +
        'on its own: a bad one answers `{"status": 422, "error": {...}}` in its slot and the others are still saved. ' +
        'The whole request answers 422 only when `contacts` is not a list of 1 to 100 items. One request of the rate limit.',
      body: Ref(ContactBatchRequest),
      response: { 200: Ref(ContactBatchResponse) },
    },
  }, async (request) => {
    const results = await upsertContacts(app.db, request.caller, request.body.contacts)
    return toBatchResponse(results, request.id)
  })

  app.put('/v1/contacts/:id', {
    config: { scope: 'contacts:write', rootKey: 'contact', notFound: 'No live contact with this id in your company' },
    schema: {
      operationId: 'updateContact',
      summary: 'Update a contact',
      description:
        '`first_name`, `email` and `business` are required; an omitted optional field is left as it is, null clears it. ' +
        '`custom_fields` sets the named fields only; `tags` replaces the whole set.',
      params: IdParams,
      body: ContactUpdateBody,
      response: { 200: Ref(Contact) },
    },
  }, async (request) => changeContact(app.db, request.caller, request.params.id, request.body))

  app.delete('/v1/contacts/:id', {
    config: { scope: 'contacts:write', notFound: 'No live contact with this id in your company (deleting twice answers 404)' },
    schema: {
      operationId: 'deleteContact',
      summary: 'Delete a contact: it is hidden from every read and its email is free again; its history is kept',
      params: IdParams,
      response: { 204: Deleted },
    },
  }, async (request, reply) => {
    await deleteContact(app.db, request.caller, request.params.id)
    return reply.code(204).send(null)
  })

  app.get('/v1/contacts/:id/events', {
    config: { scope: 'contacts:read', notFound: 'No live contact with this id in your company' },
    schema: {
      operationId: 'listContactEvents',
      summary: "A contact's events, newest first",
      params: IdParams,
      querystring: ContactEventsQuery,
      response: { 200: Ref(ContactEventsPage) },
    },
  }, async (request, reply) => sendPage(request, reply, await contactEventsPage(app.db, request.caller, request.params.id, request.query)))

  app.get('/v1/contacts/:id/business', {
    config: { scope: 'contacts:read', notFound: 'No live contact with this id in your company, or the contact has no business' },
    schema: {
      operationId: 'getContactBusiness',
      summary: "The contact's business (its employer); 404 when it has none",
      params: IdParams,
      response: { 200: Ref(Business) },
    },
  }, async (request) => contactBusiness(app.db, request.caller, request.params.id))
}

export default contactsRoutes
