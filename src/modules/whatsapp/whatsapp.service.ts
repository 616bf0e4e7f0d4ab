import { readFile } from 'node:fs/promises'
import { transaction, type Db } from '../../db/db.js'
import type { Page } from '../../db/paging.js'
import { ApiError } from '../../errors.js'
import { instantOf } from '../../http/dates.js'
import { readPage, type PageWindow } from '../../http/pagination.js'
import { walkingList, walkPage, withoutSyncAt, type WalkRequest } from '../../http/sync.js'
import { validate } from '../../http/validation.js'
import type { Caller } from '../../tenancy.js'
import { requireCompany } from '../users-api/index.js'
import { recordApiEvents } from '../outbox/index.js'
import type { Acting } from '../../acting.js'
import { recordAudit } from '../audit/index.js'
import {
  chatsPageWithTotal,
  companyUserIds,
  importMessages,
  liveContactIds,
  messagesPageWithTotal,
  messagesWalkPage,
  type NewMessage,
} from './whatsapp.repository.js'
import { ImportLine, WhatsappMessagesPage, WhatsappMessagesQuery, WhatsappMessagesResponse, type WhatsappQuery } from './whatsapp.schemas.js'

/** A page of an updated_since walk of the messages of the company's live contacts (src/http/sync.ts). */
export function messagesWalk(db: Db, caller: Caller, walk: WalkRequest) {
  const { companyId } = caller
  return walkPage(db, { ...walk, resource: 'whatsapp_messages', companyId }, (window) =>
    messagesWalkPage(db, companyId, window), withoutSyncAt)
}

/** A page of one of a contact's lists: 404 unless the contact is a live contact of the company. */
function pageOfContact<T>(query: WhatsappQuery, read: (window: PageWindow) => Promise<{ found: boolean } & Page<T>>) {
  return readPage(query, async (window) => {
    const page = await read(window)
    return page.found ? page : undefined
  })
}

export function messagesPage(db: Db, caller: Caller, query: WhatsappQuery) {
  return pageOfContact(query, (window) => messagesPageWithTotal(db, caller.companyId, query.contact_id, query.user_id, window))
}

export function chatsPage(db: Db, caller: Caller, query: WhatsappQuery) {
  return pageOfContact(query, (window) => chatsPageWithTotal(db, caller.companyId, query.contact_id, query.user_id, window))
}

/** How many bad lines the error message names before it only counts the rest. */
const REPORTED_LINES = 20

/**
 * `whatsapp import`: every line of the JSON Lines file is checked first; one bad line and
 * nothing is imported (the error names the bad lines by number). Then all of it in one
 * transaction, chats included. Blank lines are skipped.
 */
export async function importFile(db: Db, acting: Acting, input: { company: number; file: string }) {
  const context = acting.audit
  const companyId = await requireCompany(db, input.company)
  let text: string
  try {
    text = await readFile(input.file, 'utf8')
  } catch (err) {
    throw new ApiError(422, `cannot read ${input.file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`)
  }

  const problems = new Map<number, string[]>()
  const complain = (line: number, problem: string) => {
    problems.set(line, [...(problems.get(line) ?? []), problem])
  }
  const parsed: { line: number; value: ImportLine }[] = []
  text.split('\n').forEach((raw, index) => {
    const line = index + 1
    if (raw.trim() === '') return
    let json: unknown
    try {
      json = JSON.parse(raw)
    } catch {
      complain(line, 'is not valid JSON')
      return
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      complain(line, 'is not a JSON object')
      return
    }
    try {
      parsed.push({ line, value: validate(ImportLine, json) })
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      for (const [field, messages] of Object.entries(err.details ?? {})) {
        for (const message of messages) complain(line, `${field} ${message}`)
      }
    }
  })

  const contactsFound = await liveContactIds(db, companyId, [...new Set(parsed.map((p) => p.value.contact_id))])
  const usersFound = await companyUserIds(db, companyId, [...new Set(parsed.map((p) => p.value.user_id))])
  for (const { line, value } of parsed) {
    if (!contactsFound.has(value.contact_id)) complain(line, 'contact_id does not exist')
    if (!usersFound.has(value.user_id)) complain(line, 'user_id does not exist')
  }

  if (problems.size > 0) {
    const lines = [...problems.entries()].sort(([a], [b]) => a - b)
    const named = lines.slice(0, REPORTED_LINES).map(([line, list]) => `line ${line}: ${list.join(', ')}`)
    const rest = lines.length - named.length
    if (rest > 0) named.push(`and ${rest} more bad line${rest === 1 ? '' : 's'}`)
    throw new ApiError(422, `nothing imported: ${named.join('; ')}`)
  }

  const messages: NewMessage[] = parsed.map(({ value }) => ({
    contactId: value.contact_id,
    userId: value.user_id,
    direction: value.direction,
    status: value.status,
    body: value.body,
    sentAt: instantOf(value.sent_at).toISOString(),
  }))
  const now = acting.now
  // One whatsapp_message.created event per message, in one statement after the chats.
  const imported = await transaction(db, async (tx) => {
    const records = await importMessages(tx, companyId, messages)
    await recordApiEvents(tx, companyId, records.map((data) => ({ type: 'whatsapp_message.created' as const, data })), now)
    await recordAudit(tx, companyId, context, { action: 'whatsapp_messages.imported', target: { id: null, label: null }, changes: { imported: [null, records.length] } }, now)
    return records.length
  })
  return { imported }
}

/** GET /v1/whatsapp_messages: the list's pages and its `updated_since` walk (walkingListRoute). */
export const MESSAGES_LIST = walkingList({
  resource: 'whatsapp_messages', walkRefuses: ['contact_id', 'user_id'], pageNeeds: ['page', 'contact_id'],
  query: WhatsappMessagesQuery, response: WhatsappMessagesResponse, pageSchema: WhatsappMessagesPage,
  walk: messagesWalk, page: messagesPage,
})
