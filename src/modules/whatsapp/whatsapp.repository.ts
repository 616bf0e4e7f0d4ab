import { columns } from '../../db/columns.js'
import type { Db } from '../../db/db.js'
import { COMPANY } from '../../db/company.js'
import { limitOffset, pageIds, pageParams, unwrapPage, type Page, type PageRow, type PageSlice } from '../../db/paging.js'
import { recordSql, type Row } from '../../db/records.js'
import { defineQuery, run, type Query } from '../../db/query.js'
import { walkRows } from '../../db/walk.js'
import { syncAt, walkParams, type WalkWindow } from '../../http/sync.js'
import type { CompanyId } from '../../tenancy.js'
import { liveContactExists, liveContactsAmong, rowContactLive } from '../contacts/index.js'
import { companyUsersAmong } from '../users/index.js'
import { WhatsappChat, WhatsappMessage } from './whatsapp.schemas.js'

export type MessageRecord = Row<typeof WhatsappMessage>
export type ChatRecord = Row<typeof WhatsappChat>

const MESSAGE_RECORD = recordSql(WhatsappMessage, 'whatsapp_messages m')
const MESSAGE = MESSAGE_RECORD.columns('')
// Its last message by primary key, as JSON (instants as the API writes them).
const CHAT = recordSql(WhatsappChat, 'whatsapp_chats c join whatsapp_messages m on m.company_id = c.company_id and m.id = c.last_message_id', {
  last_message: () => MESSAGE_RECORD.json('m'),
}).columns()

export interface NewMessage {
  contactId: number
  userId: number
  direction: MessageRecord['direction']
  status: MessageRecord['status']
  body: string
  /** An instant of the years 0001-9999 UTC (src/http/dates.ts), as ISO 8601. */
  sentAt: string
}

const BATCH = 1000

// Primary keys, the whole list of ids in one statement.
const liveContacts = defineQuery<{ id: number }>(
  'whatsapp.liveContacts',
  liveContactsAmong('$1', '$2::bigint[]'),
)
const companyUsers = defineQuery<{ id: number }>(
  'whatsapp.companyUsers',
  companyUsersAmong('$1', '$2::bigint[]'),
)

/** Of `ids`, those of live contacts of the company. */
export async function liveContactIds(db: Db, companyId: CompanyId, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set()
  return new Set((await run(db, liveContacts, [companyId, ids])).map((row) => row.id))
}

/** Of `ids`, those of users of the company. */
export async function companyUserIds(db: Db, companyId: CompanyId, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set()
  return new Set((await run(db, companyUsers, [companyId, ids])).map((row) => row.id))
}

interface ChatDelta {
  contactId: number
  userId: number
  count: number
  lastId: number
  lastAt: Date
}

// A batch of messages as parallel arrays (one statement, whatever the batch size), answered
// as the API shows them (their whatsapp_message.created events' data), in the given order.
const insertMessages = defineQuery<MessageRecord>(
  'whatsapp.insertMessages',
  `insert into whatsapp_messages (company_id, contact_id, user_id, direction, status, body, sent_at)
   select $1, m.contact_id, m.user_id, m.direction, m.status, m.body, m.sent_at
     from unnest($2::bigint[], $3::bigint[], $4::whatsapp_direction[], $5::whatsapp_status[], $6::text[], $7::timestamptz[])
            with ordinality as m(contact_id, user_id, direction, status, body, sent_at, n)
    order by m.n
   returning ${MESSAGE}`,
)

// Chats folded in: count added, the latest message (by sent_at, then id) kept.
const foldChats = defineQuery<never>(
  'whatsapp.foldChats',
  `insert into whatsapp_chats (company_id, contact_id, user_id, messages_count, last_message_id, last_message_at)
   select $1, * from unnest($2::bigint[], $3::bigint[], $4::integer[], $5::bigint[], $6::timestamptz[])
   on conflict (company_id, contact_id, user_id) do update set
     messages_count = whatsapp_chats.messages_count + excluded.messages_count,
     last_message_id = case
       when (excluded.last_message_at, excluded.last_message_id) > (whatsapp_chats.last_message_at, whatsapp_chats.last_message_id)
       then excluded.last_message_id else whatsapp_chats.last_message_id end,
     last_message_at = greatest(excluded.last_message_at, whatsapp_chats.last_message_at)`,
)

/**
 * Inserts the messages in batches and folds them into their chats (count and latest
 * message by sent_at, then id). Call it inside a transaction. Answers the messages as the
 * API shows them, ids ascending.
 */
export async function importMessages(db: Db, companyId: CompanyId, messages: NewMessage[]): Promise<MessageRecord[]> {
  const records: MessageRecord[] = []
  const chats = new Map<string, ChatDelta>()
  for (let i = 0; i < messages.length; i += BATCH) {
    const batch = messages.slice(i, i + BATCH)
    const inserted = await run(db, insertMessages, [
      companyId,
      ...columns(batch, ['contactId', 'userId', 'direction', 'status', 'body', 'sentAt']),
    ])
    records.push(...inserted)
    for (const row of inserted) {
      const key = `${row.contact_id}:${row.user_id}`
      const chat = chats.get(key)
      if (!chat) {
        chats.set(key, { contactId: row.contact_id, userId: row.user_id, count: 1, lastId: row.id, lastAt: row.sent_at })
        continue
      }
      chat.count += 1
      if (row.sent_at > chat.lastAt || (row.sent_at.getTime() === chat.lastAt.getTime() && row.id > chat.lastId)) {
        chat.lastId = row.id
        chat.lastAt = row.sent_at
      }
    }
  }
  // A fixed order, so concurrent imports lock chat rows in the same order (no deadlock).
  const deltas = [...chats.values()].sort((a, b) => a.contactId - b.contactId || a.userId - b.userId)
  for (let i = 0; i < deltas.length; i += BATCH) {
    const batch = deltas.slice(i, i + BATCH)
    await run(db, foldChats, [companyId, ...columns(batch, ['contactId', 'userId', 'count', 'lastId', 'lastAt'])])
  }
  return records.sort((a, b) => a.id - b.id)
}

// Where a statement reads rows by their ids (a page's, a chat's last message), the company
// is compared as COMPANY (src/db/company.ts), so a fresh company keeps its plan
// (docs/performance.md, "Measured at the statements").

// The subject of both lists: a live contact of the company, by primary key.
const CONTACT = `contact as materialized (
       select ${liveContactExists('$1', '$2')} as found
     )`

// $3 limit, $4 offset (src/db/paging.ts).
const PAGE = pageParams(3, 4)

/**
 * A page of a contact's messages, newest first (sent_at, then id), with its total and
 * whether the contact is there, in one statement. The total is summed from the contact's
 * chats (one row per responsible user). The page's ids come from an index alone in
 * uncorrelated InitPlans: pages of the first half read whatsapp_messages_contact_idx (or
 * _contact_user_idx) forwards, pages of the second half backwards from the exact total, so
 * the last page of a long conversation costs what the first does; then the rows by primary key.
 */
const messagesStatement = (name: string, user: string) => {
  const ids = (order: string, limit: string, offset: string) =>
    `array(select id from whatsapp_messages
                where ${['company_id = $1 and contact_id = $2', user].filter(Boolean).join(' ')}
                order by ${order} limit ${limit} offset ${offset})`
  return defineQuery<PageRow<MessageRecord, { found: boolean }>>(
    name,
    `with ${CONTACT},
     total as materialized (
       select coalesce((select sum(messages_count) from whatsapp_chats
                         where ${['company_id = $1 and contact_id = $2', user].filter(Boolean).join(' ')}), 0)::int as n
     ),
     page as materialized (
       select ${pageIds(PAGE, '(select n from total)', ['sent_at desc nulls last, id desc nulls last', 'sent_at asc nulls first, id asc nulls first'], ids, {
         empty: 'not (select found from contact)',
       })} as ids
     )
     select contact.found, total.n as total, p.*
       from contact cross join total
       left join lateral (
         select ${MESSAGE} from whatsapp_messages
          where company_id = ${COMPANY} and id = any((select ids from page)::bigint[])
          order by sent_at desc, id desc
       ) p on true`,
  )
}

const messagesPages = {
  all: messagesStatement('whatsapp.messages', ''),
  ofUser: messagesStatement('whatsapp.messagesOfUser', 'and user_id = $5'),
}

/** A page of one of a contact's lists (of one user's conversation when userId is given), and whether the contact is there. */
async function contactPage<T, Key extends string>(
  db: Db,
  statements: { all: Query<PageRow<T, { found: boolean }, Key>>; ofUser: Query<PageRow<T, { found: boolean }, Key>> },
  key: Key,
  [companyId, contactId, userId]: [CompanyId, number, number | undefined],
  page: PageSlice,
): Promise<{ found: boolean } & Page<T>> {
  const params = [companyId, contactId, page.limit, page.offset]
  const rows = await (userId === undefined ? run(db, statements.all, params) : run(db, statements.ofUser, [...params, userId]))
  return { found: rows[0]?.found ?? false, ...unwrapPage(rows, key) }
}

export function messagesPageWithTotal(db: Db, companyId: CompanyId, contactId: number, userId: number | undefined, page: PageSlice) {
  return contactPage(db, messagesPages, 'id', [companyId, contactId, userId], page)
}

// A page of an updated_since walk (src/http/sync.ts has the parameters): from
// whatsapp_messages_company_updated_idx (company_id, updated_at, id), an index range read in
// order that stops after $6 rows of live contacts; each message's contact by primary key
// (a deleted contact's messages are hidden from every read, so from the walk too).
const walkStatement = defineQuery<MessageRecord & { sync_at: string }>(
  'whatsapp.walk',
  `select ${syncAt('m.updated_at')} as sync_at, ${MESSAGE_RECORD.columns('m')}
     from whatsapp_messages m
    ${walkRows('m', rowContactLive('m'))}`,
  { replica: true },
)

export function messagesWalkPage(db: Db, companyId: CompanyId, window: WalkWindow) {
  return run(db, walkStatement, walkParams(companyId, window))
}

/**
 * A page of a contact's chats, latest message first, with its total, in one statement. A
 * contact has a chat per responsible user (a handful): they are read whole from the primary
 * key, counted, ordered, and the page's last messages joined by primary key.
 */
const chatsStatement = (name: string, user: string) =>
  defineQuery<PageRow<ChatRecord, { found: boolean }, 'contact_id'>>(
    name,
    `with ${CONTACT},
     chats as materialized (
       select contact_id, user_id, messages_count, last_message_id, last_message_at
         from whatsapp_chats
        where ${['company_id = $1 and contact_id = $2', user, 'and (select found from contact)'].filter(Boolean).join(' ')}
     )
     select contact.found, (select count(*) from chats)::int as total, p.*
       from contact
       left join lateral (
         select ${CHAT}
           from (select * from chats order by last_message_at desc, last_message_id desc ${limitOffset(PAGE)}) c
           join whatsapp_messages m on m.company_id = ${COMPANY} and m.id = c.last_message_id
          order by c.last_message_at desc, c.last_message_id desc
       ) p on true`,
  )

const chatsPages = {
  all: chatsStatement('whatsapp.chats', ''),
  ofUser: chatsStatement('whatsapp.chatsOfUser', 'and user_id = $5'),
}

export function chatsPageWithTotal(db: Db, companyId: CompanyId, contactId: number, userId: number | undefined, page: PageSlice) {
  return contactPage(db, chatsPages, 'contact_id', [companyId, contactId, userId], page)
}
