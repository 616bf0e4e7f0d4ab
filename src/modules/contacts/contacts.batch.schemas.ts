// POST /contacts/batch: up to 100 contacts matched by email. The route validates the
// envelope only (an array of 1 to 100 items); each item is validated on its own, so one
// bad item answers 422 in its own slot and the others still run.
import type { FastifySchemaCompiler } from 'fastify'
import { Type, type Static } from 'typebox'
import { ErrorResponse, exampleError, Ref } from '../../http/schemas.js'
import { validate, validatorCompiler, type JsonSchema } from '../../http/validation.js'
import { ContactUpdateBody } from './contacts.schemas.js'

export const MAX_BATCH = 100

/**
 * An item: the fields of PUT /contacts/:id, except that `business` may be omitted (left as
 * it is; a new contact has none). A new email creates the contact as POST /contacts does
 * (`user_id` ignored: you own it); a known one updates it as PUT does.
 */
const itemFields = {
  ...ContactUpdateBody.properties,
  business: Type.Optional(ContactUpdateBody.properties.business),
}

/** What an item of a known email is validated against (no $id: compiled on its own). */
export const ContactBatchUpdate = Type.Object(itemFields)
export type ContactBatchUpdate = Static<typeof ContactBatchUpdate>

/** Just the email, to match an item before knowing which of the two it is checked against. */
export const ContactBatchEmail = Type.Object({ email: ContactUpdateBody.properties.email })

/** The same, as the document names it. */
export const ContactBatchItem = Type.Object(itemFields, {
  $id: 'ContactBatchItem',
  description:
    'A contact to create or update, matched by `email` (case-insensitive) among the live contacts of your company. ' +
    'New: created as `POST /contacts` does (`user_id` is ignored). Known: updated as `PUT /contacts/:id` does, ' +
    'except that an omitted `business` is left as it is.',
  examples: [{ first_name: 'Ana', email: 'ana.souza@globex.example', business: 'Globex', stage: 'mql', tags: [3] }],
})

export const ContactBatchRequest = Type.Object(
  {
    contacts: Type.Array(Ref(ContactBatchItem), {
      minItems: 1,
      maxItems: MAX_BATCH,
      description: '1 to 100 contacts, applied in order; each one is checked on its own (a bad one fails alone)',
    }),
  },
  {
    $id: 'ContactBatchRequest',
    description: 'Contacts to create or update by email',
    examples: [{ contacts: [{ first_name: 'Ana', email: 'ana@globex.example' }, { first_name: 'Bo', email: 'bo@initech.example', stage: 'lead' }] }],
  },
)

/** The envelope the route checks: the items are checked one by one by the service. */
const Envelope = Type.Object({
  contacts: Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_BATCH }),
})

/**
 * The route's validator: its documented body (ContactBatchRequest) types each item, but
 * only the envelope is checked here, with the contract's messages.
 */
export const batchValidatorCompiler: FastifySchemaCompiler<JsonSchema> = (route) => {
  if (route.httpPart !== 'body') return validatorCompiler(route)
  return (data: unknown) => {
    try {
      return { value: validate(Envelope, data) }
    } catch (err) {
      return { error: err as Error }
    }
  }
}

export const ContactBatchResult = Type.Object(
  {
    status: Type.Integer({ enum: [201, 200, 422], description: '201 created, 200 updated (or unchanged), 422 refused' }),
    id: Type.Optional(Type.Integer({ description: 'the contact (201 and 200)' })),
    error: Type.Optional({
      ...ErrorResponse.properties.error,
      description: "why the item was refused (422): the contract's error body, `request_id` that of the batch",
    }),
  },
  {
    $id: 'ContactBatchResult',
    description: 'The outcome of one item, in the position of the item',
    examples: [{ status: 201, id: 7 }],
  },
)

export const ContactBatchResponse = Type.Object(
  { results: Type.Array(Ref(ContactBatchResult), { description: 'one per item, in the order of the items' }) },
  {
    $id: 'ContactBatchResponse',
    description: 'One result per item, in order',
    examples: [
      {
        results: [
          { status: 201, id: 7 },
          { status: 200, id: 3 },
          { status: 422, error: exampleError(422, 'validation_failed', undefined, { email: ['is invalid'] }) },
        ],
      },
    ],
  },
)
