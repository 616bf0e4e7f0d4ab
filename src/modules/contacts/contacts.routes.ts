import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { sendPage } from '../../http/pagination.js'
import { IdParams, Ref } from '../../http/schemas.js'
import { Business } from '../businesses/businesses.schemas.js'
import { ContactEventsPage, ContactEventsQuery } from '../events/events.schemas.js'
import { Contact, ContactCreateBody, ContactsListQuery, ContactsPage, ContactUpdateBody } from './contacts.schemas.js'
import {
  changeContact,
  contactBusiness,
  contactEventsPage,
  contactsPage,
  createContact,
  deleteContact,
  getContact,
} from './contacts.service.js'

const contactsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v1/contacts', {
    schema: {
      operationId: 'listContacts',
      tags: ['contacts'],
      summary: 'List contacts (id ascending), optionally of one owner or matching a search',
      description:
        '`search_term` matches a case-insensitive substring of the full name (first and last), the business or the email.',
      querystring: ContactsListQuery,
      response: { 200: Ref(ContactsPage) },
    },
  }, async (request, reply) => {
    const page = await contactsPage(app.db, request.caller, request.query)
    return sendPage(request, reply, page.window, page.total, page.data)
  })

  app.get('/v1/contacts/:id', {
    config: { notFound: 'No live contact with this id in your company' },
    schema: {
      operationId: 'getContact',
      tags: ['contacts'],
      summary: 'A contact with its tags and custom fields',
      params: IdParams,
      response: { 200: Ref(Contact) },
    },
  }, async (request) => getContact(app.db, request.caller, request.params.id))

  app.post('/v1/contacts', {
    config: { rootKey: 'contact' },
    schema: {
      operationId: 'createContact',
      tags: ['contacts'],
      summary: 'Create a contact (you are its owner)',
      description:
        '`email` is unique among the live contacts of your company (case-insensitive). `user_id` is ignored: the owner is the caller.',
      body: ContactCreateBody,
      response: { 201: Ref(Contact) },
    },
  }, async (request, reply) => {
    const contact = await createContact(app.db, request.caller, request.body, app.clock())
    return reply.code(201).header('location', `/api/v1/contacts/${contact.id}`).send(contact)
  })

  app.put('/v1/contacts/:id', {
    config: { rootKey: 'contact', notFound: 'No live contact with this id in your company' },
    schema: {
      operationId: 'updateContact',
      tags: ['contacts'],
      summary: 'Update a contact',
      description:
        '`first_name`, `email` and `business` are required; an omitted optional field is left as it is, null clears it. ' +
        '`custom_fields` sets the named fields only; `tags` replaces the whole set.',
      params: IdParams,
      body: ContactUpdateBody,
      response: { 200: Ref(Contact) },
    },
  }, async (request) => changeContact(app.db, request.caller, request.params.id, request.body, app.clock()))

  app.delete('/v1/contacts/:id', {
    config: { notFound: 'No live contact with this id in your company (deleting twice answers 404)' },
    schema: {
      operationId: 'deleteContact',
      tags: ['contacts'],
      summary: 'Delete a contact: it is hidden from every read and its email is free again; its history is kept',
      params: IdParams,
      response: { 204: Type.Null({ description: 'Deleted' }) },
    },
  }, async (request, reply) => {
    await deleteContact(app.db, request.caller, request.params.id, app.clock())
    return reply.code(204).send(null)
  })

  app.get('/v1/contacts/:id/events', {
    config: { notFound: 'No live contact with this id in your company' },
    schema: {
      operationId: 'listContactEvents',
      tags: ['contacts'],
      summary: "A contact's events, newest first",
      params: IdParams,
      querystring: ContactEventsQuery,
      response: { 200: Ref(ContactEventsPage) },
    },
  }, async (request, reply) => {
    const page = await contactEventsPage(app.db, request.caller, request.params.id, request.query)
    return sendPage(request, reply, page.window, page.total, page.data)
  })

  app.get('/v1/contacts/:id/business', {
    config: { notFound: 'No live contact with this id in your company, or the contact has no business' },
    schema: {
      operationId: 'getContactBusiness',
      tags: ['contacts'],
      summary: "The contact's business (its employer); 404 when it has none",
      params: IdParams,
      response: { 200: Ref(Business) },
    },
  }, async (request) => contactBusiness(app.db, request.caller, request.params.id))
}

export default contactsRoutes
