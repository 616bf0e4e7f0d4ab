import { columns } from '../../db/columns.js'
import type { Db } from '../../db/db.js'
import { addToCounters, COUNTER_ROWS, counterTotal, WRITER_SLOT } from '../../db/counters.js'
import { isoInstant, jsonArrayOf, jsonObjectOf } from '../../db/json-sql.js'
import { COMPANY } from '../../db/company.js'
import { childPageReader, limitOffset, pageIds, pageIdsArray, pageParams, rowsByIds, withinTotal, type PagePlaceholders, type PageRow, type PageSlice } from '../../db/paging.js'
import { defineQuery, run, runOne, runSingle } from '../../db/query.js'
import { recordSql } from '../../db/records.js'
import { walkRows } from '../../db/walk.js'
import { syncAt, walkParams, type WalkWindow } from '../../http/sync.js'
import type { CompanyId } from '../../tenancy.js'
import { businessOfRow, businessRecord, type BusinessRow } from '../businesses/index.js'
import { endEnrollments, FLOW_CONTACTS } from '../flows/index.js'
import { DemoLeadContact, insertLeadParams, insertLeadSql, linkLeadSql, LINKED_LEADS, setLeadsContact, type DemoLeadContactRecord, type LeadCreateBody, type LeadRecord } from '../leads/index.js'
import { outboxCtes } from '../outbox/index.js'
import type { ContactRecord, ContactColumnsRow, ContactInsert } from './contacts.record.js'
import { Contact as ContactSchema, STAGES, type Stage } from './contacts.schemas.js'
import { fieldsNamedAmong, keyShareFieldsAmong, type CustomFieldKind } from '../custom-fields/index.js'
import { deleteTagReturning, keyShareTagsAmong, lockTag, tagsAmong } from '../tags/index.js'
import { contactEventsPageSql, INSERT_CONTACT_EVENTS, type ContactEventRecord } from '../events/index.js'
import { TaskContact, type TaskContactRecord } from '../tasks/index.js'

export type { ContactColumnsRow, ContactInsert } from './contacts.record.js'

// Statements compare the company as COMPANY (src/db/company.ts says why).
// A contact as the API shows it, from `contacts c`: its tags (tag id ascending) and custom
// fields (field id ascending) are kept beside the row as that JSON, by triggers in the
// transaction of every write that changes them (migrations/0020_contact_children_json.sql),
// so a read takes two columns (docs/performance.md, "Plans without statistics").
/** A contact's tags as its JSON array (the Contact schema's shape, id ascending), over rows of `tags t`. */
export const TAGS_JSON = jsonArrayOf('t.id, t.name, t.color', 't.id')
/** A contact's custom fields as its JSON array (field id ascending), over `custom_fields f` with values `v`. */
export const FIELDS_JSON = jsonArrayOf('f.field, v.value', 'f.id')
const CONTACT = recordSql(ContactSchema, 'contacts c', {
  tags: (c) => `${c}tags_json`,
  custom_fields: (c) => `${c}custom_fields_json`,
})
const CONTACT_RECORD = CONTACT.columns('c')

/**
 * A contact as JSON built in SQL from the row `alias` and its `tags` and `custom_fields`
 * (json expressions): the Contact schema's keys in its order, instants as the API writes
 * them, strings escaped as JSON.stringify does (PostgreSQL cannot hold what it would
 * escape differently: lone surrogates are refused at the door), compact (src/db/json-sql.ts).
 */
export const contactJson = (alias: string, tags?: string, customFields?: string) =>
  CONTACT.json(alias, tags === undefined || customFields === undefined ? {} : { tags, custom_fields: customFields })

// GET /contacts/:id, answered as JSON text straight from the statement: no row parsing, no
// serialization (src/http/json-text.ts).
const contactJsonById = defineQuery<{ json: string }>(
  'contacts.jsonById',
  `select ${contactJson('c')}::text as json
     from contacts c
    where c.company_id = ${COMPANY} and c.id = $2 and c.deleted_at is null`,
  { pipelined: true },
)

/** A list's filters beside the company, each optional: the owner, the stage, one tag. */
export interface ContactFilters {
  userId?: number | undefined
  stage?: Stage | undefined
  tagId?: number | undefined
}

// Counters of live contacts, kept by the contact writes (src/db/counters.ts): the company's and
// each owner's; and by the triggers of migrations/0026_contact_list_filters.sql: by stage (key:
// the stage's position in STAGES), by owner and stage (key: the owner's id × 8 + the stage's
// position), by tag (key: the tag id), and the grams of their search texts (SEARCH_GRAMS and
// the gram's last character, key: the code point before it, 0 for a single character), whose
// changes not yet folded in wait in contact_search_changes.
const CONTACTS = 'contacts'
const CONTACTS_BY_USER = 'contacts_by_user'
export const CONTACTS_BY_STAGE = 'contacts_by_stage'
export const CONTACTS_BY_USER_STAGE = 'contacts_by_user_stage'
export const CONTACTS_BY_TAG = 'contacts_by_tag'
export const SEARCH_GRAMS = 'contacts.gram:'
/** The same of one owner's live contacts (key: the owner's id × GRAM_KEYS + the gram's key). */
export const SEARCH_GRAMS_OF_USER = 'contacts.user_gram:'
/** The same of the live contacts at one stage (key: the stage's position × GRAM_KEYS + the gram's key). */
export const SEARCH_GRAMS_AT_STAGE = 'contacts.stage_gram:'
/** The code points there are: a gram's key (the code point before its last character, or 0) is below it. */
export const GRAM_KEYS = 1_114_112

/** The key of a stage (a contact_stage expression) in the stage counters: its position in STAGES. */
const stagePosition = (stage: string) => `array_position(enum_range(null::contact_stage), ${stage}) - 1`

/** The transaction setting under which the trigger contacts_listed leaves a statement's contacts to it (migrations/0028). */
export const LISTED_BY_STATEMENT = { 'engage.contacts_listed_by': 'statement' } as const

/** A search change and the stage counters' rows of contacts `c`, from their columns as they are (`now`) and were (`was`), each a triple. */
interface Listed {
  /** Where the contacts come from, as `c`. */
  rows: string
  now: { text: string; user: string; stage: string }
  was: { text: string; user: string; stage: string }
}
const listedSql = ({ rows, now, was }: Listed) => ({
  searchChanges: `insert into contact_search_changes (company_id, added, added_user_id, added_stage, removed, removed_user_id, removed_stage)
     select c.company_id, ${now.text}, ${now.user}, ${stagePosition(now.stage)}, ${was.text}, ${was.user}, ${stagePosition(was.stage)}
       from ${rows}
      where (${now.text}, ${now.user}, ${now.stage}) is distinct from (${was.text}, ${was.user}, ${was.stage})
      order by c.id`,
  counterRows: `select s.list, s.key, s.delta from ${rows}
      cross join lateral (values ('${CONTACTS_BY_STAGE}', ${stagePosition(now.stage)}, 1),
                                 ('${CONTACTS_BY_USER_STAGE}', ${now.user} * 8 + ${stagePosition(now.stage)}, 1),
                                 ('${CONTACTS_BY_STAGE}', ${stagePosition(was.stage)}, -1),
                                 ('${CONTACTS_BY_USER_STAGE}', ${was.user} * 8 + ${stagePosition(was.stage)}, -1)) s(list, key, delta)
      where s.key is not null and (${now.user}, ${now.stage}) is distinct from (${was.user}, ${was.stage})`,
})

/**
 * What the trigger contacts_listed (migrations/0026) records, for a statement that records it
 * itself under LISTED_BY_STATEMENT: `searchChanges`, an insert of the search changes, and
 * `counterRows`, the rows (list, key, delta) to add to the counters by stage and by owner and
 * stage. `inserted`: of the contacts of `rows` (a CTE of contacts inserted, live); `changed`:
 * of the live contacts of `rows` (a CTE of contacts updated, neither deleted nor restored),
 * whose columns as they were are `was_search_text`, `was_user_id` and `was_stage`.
 */
export const listed = {
  inserted: (rows: string) => listedSql({
    rows: `${rows} c`,
    now: { text: 'c.search_text', user: 'c.user_id', stage: 'c.stage' },
    was: { text: 'null::text', user: 'null::bigint', stage: 'null::contact_stage' },
  }),
  changed: (rows: string) => listedSql({
    rows: `${rows} c`,
    now: { text: 'c.search_text', user: 'c.user_id', stage: 'c.stage' },
    was: { text: 'c.was_search_text', user: 'c.was_user_id', stage: 'c.was_stage' },
  }),
}

type JsonPage = { total: number; data: string }

/**
 * The contacts `ids` (a bigint[] expression) names, read by primary key, as the JSON text of an
 * array of their API shape in id order ('[]' for none); `where` (with its own leading
 * whitespace) may add a condition on the whole read.
 */
const contactsJsonArray = (ids: string, where = '') =>
  `coalesce((select ${jsonArrayOf(CONTACT.jsonColumns('c'), 'c.id')}::text
                        from ${rowsByIds('contacts', 'c', COMPANY, ids)}${where}), '[]')`
type IdsOf = (order: string, limit: string, offset: string) => string

/**
 * A page of live contacts as the JSON text of their API shape, with the list's `total` (an
 * SQL expression), in one statement: ids from `ids` (an index alone, or a tag's rows each
 * probing its contact), then rows by primary key, read backwards from the total in the second
 * half (docs/performance.md, "The contacts statements").
 */
const listStatement = (name: string, page: PagePlaceholders, total: string, orders: readonly [string, string], ids: IdsOf) =>
  defineQuery<JsonPage>(
    name,
    `with total as materialized (
       select ${total} as n
     )
     select total.n as total,
            ${contactsJsonArray(pageIdsArray(page, 'total.n', orders, ids), `
                       where ${withinTotal(page, 'total.n')}`)} as data
       from total`,
    { replica: true },
  )

/** Ids of the live contacts `where` selects, from one index in id order. */
const liveIds = (where: string): IdsOf => (order, limit, offset) =>
  `array(select id from contacts where ${where} order by ${order} limit ${limit} offset ${offset})`

/**
 * The rows of a tag (`tag`, an SQL expression) whose contact is live and passes `also` (on
 * `c`): contact_tags_tag_idx (tag_id, company_id, contact_id) in contact order, each contact
 * probed by its primary key (a LIMIT 1 lookup, which no statistics turn into a join).
 */
const tagged = (tag: string, also = '') => `contact_tags ct
              cross join lateral (select from contacts c
                                   where c.company_id = ${COMPANY} and c.id = ct.contact_id and c.deleted_at is null${also}
                                   limit 1) live
        where ct.tag_id = ${tag} and ct.company_id = ${COMPANY}`
const taggedIds = (tag: string, also?: string): IdsOf => (order, limit, offset) =>
  `array(select ct.contact_id from ${tagged(tag, also)} order by ${order} limit ${limit} offset ${offset})`
const TAG_ORDERS = ['ct.contact_id', 'ct.contact_id desc'] as const

// One filter or none: the total from a counter ($2 list, $3 key), $4 limit, $5 offset, $6 the filter.
const PAGE = pageParams(4, 5)
const COUNTED = counterTotal('$1', '$2', '$3')

// contacts_company_live_idx (company_id, id) where deleted_at is null.
const contactsPage = listStatement('contacts.page', PAGE, COUNTED, ['id', 'id desc'], liveIds(`company_id = ${COMPANY} and deleted_at is null`))

// contacts_company_user_live_idx (company_id, user_id, id) where deleted_at is null.
const contactsPageOfUser = listStatement('contacts.pageOfUser', PAGE, COUNTED, ['id', 'id desc'],
  liveIds(`company_id = ${COMPANY} and user_id = $6 and deleted_at is null`))

// contacts_company_stage_live_idx (company_id, stage, id) where deleted_at is null.
const contactsPageOfStage = listStatement('contacts.pageOfStage', PAGE, COUNTED, ['id', 'id desc'],
  liveIds(`company_id = ${COMPANY} and stage = $6::contact_stage and deleted_at is null`))

// contact_tags_tag_idx, each contact probed (`tagged`).
const contactsPageOfTag = listStatement('contacts.pageOfTag', PAGE, COUNTED, TAG_ORDERS, taggedIds('$6::bigint'))

// An owner and a stage: the owner's index (or the stage's), the other tested on each row.
const contactsPageOfUserStage = listStatement('contacts.pageOfUserStage', PAGE, COUNTED, ['id', 'id desc'],
  liveIds(`company_id = ${COMPANY} and user_id = $6 and stage = $7::contact_stage and deleted_at is null`))

// A tag with an owner ($5) or a stage ($6) or both: no counter; the tag's rows, each contact
// probed in contacts_company_live_idx, which holds the owner and the stage (an index-only
// probe: about a microsecond a row). $2 limit, $3 offset, $4 the tag.
const FILTERED_PAGE = pageParams(2, 3)
const TAG_ALSO = ' and ($5::bigint is null or c.user_id = $5) and ($6::contact_stage is null or c.stage = $6)'
const contactsPageOfTagFiltered = listStatement('contacts.pageOfTagFiltered', FILTERED_PAGE,
  `(select count(*) from ${tagged('$4::bigint', TAG_ALSO)})`, TAG_ORDERS, taggedIds('$4::bigint', TAG_ALSO))

/** A page of the live contacts that pass `filters`, as a JSON array (text), and their total. */
export async function contactsPageJson(db: Db, companyId: CompanyId, filters: ContactFilters, page: PageSlice): Promise<JsonPage> {
  const { userId, stage, tagId } = filters
  const window = [page.limit, page.offset]
  if (tagId !== undefined) {
    return userId === undefined && stage === undefined
      ? runSingle(db, contactsPageOfTag, [companyId, CONTACTS_BY_TAG, tagId, ...window, tagId])
      : runSingle(db, contactsPageOfTagFiltered, [companyId, ...window, tagId, userId ?? null, stage ?? null])
  }
  if (stage !== undefined) {
    const position = STAGES.indexOf(stage)
    return userId === undefined
      ? runSingle(db, contactsPageOfStage, [companyId, CONTACTS_BY_STAGE, position, ...window, stage])
      : runSingle(db, contactsPageOfUserStage, [companyId, CONTACTS_BY_USER_STAGE, userId * 8 + position, ...window, userId, stage])
  }
  return userId === undefined
    ? runSingle(db, contactsPage, [companyId, CONTACTS, 0, ...window])
    : runSingle(db, contactsPageOfUser, [companyId, CONTACTS_BY_USER, userId, ...window, userId])
}

// Search: a case-insensitive substring of the full name, the business or the email. The
// generated column contacts.search_text holds the three, each lower()-ed (what ILIKE does to
// both sides), joined by U+001F: a term without U+001F is in search_text exactly when it is
// in one of the three. contacts_search_trgm_idx, GIN (company_id, user_id, search_text
// gin_trgm_ops) on live contacts, narrows a term that has a trigram, of one owner or not
// (migrations/0007_contact_search.sql).
// Every search statement takes $1 company, $2 term, $3 limit, $4 offset; those below also $5
// a stage and $6 a tag (each null for none), and the *OfUser ones $7 the owner.
/** The contacts searched: the company's live ones, of one owner ($7) in the *OfUser statements. */
const searched = (ofUser: boolean) =>
  `c.company_id = ${COMPANY} and c.deleted_at is null${ofUser ? ' and c.user_id = $7' : ''}`
/** A stage and a tag filter (parameters, null for none), tested on each contact `c` (a tag by contact_tags' primary key). */
const stageAndTag = (stage: string, tag: string) => `(${stage}::contact_stage is null or c.stage = ${stage})
              and (${tag}::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = ${tag}))`
const FILTERS = stageAndTag('$5', '$6')
/** `text` as a LIKE pattern's literal part (`%`, `_` and `\` escaped). */
const likeLiteral = (text: string) => `replace(replace(replace(${text}, '\\', '\\\\'), '%', '\\%'), '_', '\\_')`
/** The term as a LIKE pattern (`%`, `_` and `\` literal), which the GIN index serves. */
const TERM_PATTERN = `'%' || ${likeLiteral('lower($2::text)')} || '%'`
// Compared with `(select …)`, as the company is, so that the plan never weighs the pattern
// against statistics: the trigram index, whatever the term.
const TERM_LIKE = `c.search_text like (select ${TERM_PATTERN})`
/**
 * The same test where no index serves it (a walk in id order, a pass): LIKE as its function,
 * textlike, which the planner never matches to the trigram index; the pattern made once.
 */
const TERM_IN_TEXT = `textlike(c.search_text, (select ${TERM_PATTERN}))`
/** A term containing U+001F could match across two fields in search_text: each field is checked too. */
const TERM_IN_FIELDS = `${TERM_IN_TEXT}
              and ((c.first_name || ' ' || coalesce(c.last_name, '')) ilike (select ${TERM_PATTERN})
                   or coalesce(c.business, '') ilike (select ${TERM_PATTERN}) or c.email ilike (select ${TERM_PATTERN}))`

/** Matches a term may have for its page and total to come from the trigram index alone. */
export const SEARCH_CANDIDATES = 10_000

// A term no index narrows (1–2 characters, U+001F) is tested against every contact searched:
// through the live index, or in a pass over the table when they are a sixth of its rows or
// more (`scope`, decided as the statement runs; docs/performance.md, "The contacts statements").
const SEARCHED_COUNTER = (ofUser: boolean) =>
  ofUser ? counterTotal('$1::bigint', `'${CONTACTS_BY_USER}'`, '$7') : counterTotal('$1::bigint', `'${CONTACTS}'`, '0')
/** The pass's condition: the live contacts searched, written so that no index serves it. */
const passed = (ofUser: boolean) =>
  `c.company_id + 0 = $1::bigint and c.deleted_at is null${ofUser ? ' and c.user_id + 0 = $7' : ''}`
const passOrIndexCount = (ofUser: boolean, test: string) => `case
         when (select pass from scope)
         then (select count(*) from contacts c where ${passed(ofUser)} and ${test})
         else (select count(*) from (select from contacts c where ${searched(ofUser)} and ${test}
                                      order by c.id limit (select 9223372036854775807)) m)
       end`
/** Whether the contacts searched (`counted`: the company's, an owner's, a stage's) are a sixth of the table or more: a pass then costs less than the index. */
const scopeCte = (counted: string) => `scope as materialized (
       select s.n, s.n * 6 >= (select greatest(reltuples, 0) from pg_class where oid = 'contacts'::regclass) as pass
         from (select ${counted} as n) s
     )`

// A sample of the first SEARCH_SAMPLE contacts searched estimates how many match, and
// decides whether the matches are collected first (`collect`); a wrong guess costs time,
// never exactness (docs/performance.md, "The contacts statements").
/** Contacts in the sample that estimates how many match a term. */
export const SEARCH_SAMPLE = 2_000

/** The CTEs that give a search its `scope`, `collect` decision, `candidates` and `known` total (if they are all). */
const candidateCtes = (ofUser: boolean, trigram: boolean, test: string) => `${scopeCte(SEARCHED_COUNTER(ofUser))}, sample as materialized (
       select count(*) filter (where t.hit) as hits, count(*) as seen
         from (select ${test} as hit from contacts c
                where ${trigram ? '' : '(select pass from scope) and '}${searched(ofUser)} order by c.id limit ${SEARCH_SAMPLE}) t
     ), decision as materialized (
       select ${trigram
         ? `not (sample.hits * 20 >= sample.seen and sample.hits * scope.n > ${SEARCH_CANDIDATES}::bigint * sample.seen)`
         : `scope.pass and sample.hits * scope.n <= ${SEARCH_CANDIDATES / 4}::bigint * sample.seen`} as collect
         from scope, sample
     ), candidates as materialized (
       select m.id
         from (select c.id from contacts c
                where ${trigram ? `${searched(ofUser)} and ${TERM_LIKE} and ${FILTERS}` : `${passed(ofUser)} and ${test}`}
                limit ${SEARCH_CANDIDATES + 1}) m
        where (select collect from decision) -- above the LIMIT: nothing is read when not collecting
     ), known as (
       select case when (select collect from decision) and count(*) <= ${SEARCH_CANDIDATES} then count(*) end as n
         from candidates
     ),`

const SEARCH_PAGE = pageParams(3, 4)

/** The page's total, and its records (`page.ids` by primary key) as the JSON text of their API shape in id order, as a list page writes them. */
const SEARCH_RECORDS = `select page.total,
            ${contactsJsonArray('page.ids')} as data
       from page`

// A page of a search with its exact total, in one statement: every part an InitPlan or a
// MATERIALIZED CTE, run at most once whatever the planner believes, so no per-row loop
// (test/contacts/contacts-search.test.ts). At most SEARCH_CANDIDATES matches are the match
// set; more are counted, and the page read in id order, forwards or backwards from the total
// (docs/performance.md, "The contacts statements").
const searchStatement = (name: string, ofUser: boolean, trigram: boolean, term: string) => {
  const where = searched(ofUser)
  const test = `${term} and ${FILTERS}`
  const count = trigram
    ? `case when (select collect from decision)
            then (select count(*) from contacts c where ${where} and ${TERM_LIKE} and ${FILTERS})
            else ${passOrIndexCount(ofUser, test)}
       end`
    : passOrIndexCount(ofUser, test)
  return defineQuery<JsonPage>(
    name,
    `with ${candidateCtes(ofUser, trigram, test)} total as materialized (
       select coalesce((select n from known), ${count}) as n
     ), page as materialized (
       select total.n as total,
              ${pageIds(SEARCH_PAGE, 'total.n', ['c.id', 'c.id desc'], (order, limit, offset) =>
                `array(select c.id from contacts c where ${where} and ${test} order by ${order} limit ${limit} offset ${offset})`, {
                first: `when (select n from known) is not null then array(select id from candidates order by id ${limitOffset(SEARCH_PAGE)})`,
              })} as ids
         from total
     )
     ${SEARCH_RECORDS}`,
    { replica: true },
  )
}

// Each for the whole company and for one owner (`c.user_id = $7`, which the GIN index and
// contacts_company_user_live_idx serve: an owner's search reads the owner's matches only).
const SEARCHES = {
  trigram: {
    all: searchStatement('contacts.search', false, true, TERM_IN_TEXT),
    ofUser: searchStatement('contacts.searchOfUser', true, true, TERM_IN_TEXT),
  },
  short: {
    all: searchStatement('contacts.searchShort', false, false, TERM_IN_TEXT),
    ofUser: searchStatement('contacts.searchShortOfUser', true, false, TERM_IN_TEXT),
  },
  fields: {
    all: searchStatement('contacts.searchFields', false, false, TERM_IN_FIELDS),
    ofUser: searchStatement('contacts.searchFieldsOfUser', true, false, TERM_IN_FIELDS),
  },
}

/**
 * A condition that is always true but parallel restricted (pg_backend_pid), on a walk of a few
 * hundred rows: a generic plan, which cannot see that its LIMIT is small, otherwise spreads the
 * walk over parallel workers, whose start (20 ms on a busy 2-core machine) costs more than the walk.
 */
const SERIAL = 'pg_backend_pid() <> 0'

/** Rows a walk in id order may read for a 1–2 character term's page before another way is cheaper (about 10 ms). */
export const GRAM_WALK_ROWS = 20_000

// A term of one or two characters in the whole company, of one owner or at one stage (no tag),
// `lowered` (the gram): its exact total is the counter of the gram (the company's, the owner's
// or the stage's) plus the changes of search texts not yet folded into the counters
// (contact_search_changes), so no contact is read to count it (docs/performance.md, "The
// workspace's contacts list at a million contacts"). The page then comes one of three ways
// (`way`), decided as the statement runs from the total and the company's contacts:
// - `walk`: in id order through contacts_company_live_idx, forwards or backwards from the
//   total, when at the matches' density that reads at most GRAM_WALK_ROWS contacts (`an`, a
//   third of the contacts: 75 for page 1);
// - `index`: a rare pair of ASCII letters or digits (`lf`, 5 of 1 M): every match from the
//   trigram index. A match of `lf` is at the start of search_text or after some character x,
//   and `%xlf%` has a trigram (`xlf`, or ` lf` where x ends a word), so the matches are those
//   of `lf%` and of `%xlf%` for each character x found before `l` in a live contact (the
//   counters of the grams ending in `l`, the texts not folded yet, U+001F), each pattern
//   probed on its own, its LIMIT (never reached) keeping the probe per pattern (as one
//   `like any`, or a join, PostgreSQL 17 reads the whole table instead);
// - `pass`: another rare term in a company of a sixth of the table or more, collected in one
//   pass that stops at the total (`ø`).
/** What a gram search is bounded to beyond the company: every live contact, one owner's ($5), or one stage's ($5, its position $6). */
interface GramScope {
  /** The gram counters' list prefix, and the key's part for the owner or stage (added to the gram's key). */
  grams: string
  keyBase: string
  /** The contacts searched, by an index; as the trigram index's probes take them (the owner or stage tested on the rows found, never an index walked per pattern); for a pass, by no index. */
  searched: string
  probed: string
  passed: string
  /** Whether a queued change's added and removed texts were of these contacts. */
  added: string
  removed: string
  /** The number of contacts searched (a counter). */
  counted: string
}
const GRAM_SCOPES = {
  company: {
    grams: SEARCH_GRAMS, keyBase: '0', searched: searched(false), probed: searched(false), passed: passed(false), added: 'true', removed: 'true',
    counted: SEARCHED_COUNTER(false),
  },
  user: {
    grams: SEARCH_GRAMS_OF_USER, keyBase: `$5::bigint * ${GRAM_KEYS}`,
    searched: `${searched(false)} and c.user_id = $5::bigint`, probed: `${searched(false)} and c.user_id + 0 = $5::bigint`,
    passed: `${passed(false)} and c.user_id + 0 = $5::bigint`,
    added: 's.added_user_id = $5::bigint', removed: 's.removed_user_id = $5::bigint',
    counted: counterTotal('$1::bigint', `'${CONTACTS_BY_USER}'`, '$5::bigint'),
  },
  stage: {
    grams: SEARCH_GRAMS_AT_STAGE, keyBase: `$6::bigint * ${GRAM_KEYS}`,
    searched: `${searched(false)} and c.stage = $5::contact_stage`, probed: `${searched(false)} and c.stage::text = $5::contact_stage::text`,
    passed: `${passed(false)} and c.stage = $5::contact_stage`,
    added: 's.added_stage = $6::smallint', removed: 's.removed_stage = $6::smallint',
    counted: counterTotal('$1::bigint', `'${CONTACTS_BY_STAGE}'`, '$6::bigint'),
  },
} satisfies Record<string, GramScope>

const gramSearchStatement = (name: string, scope: GramScope) => defineQuery<JsonPage>(
  name,
  `with term as materialized (
       select t.lowered, '%' || ${likeLiteral('t.lowered')} || '%' as pattern,
              '${scope.grams}' || right(t.lowered, 1) as list,
              ${scope.keyBase} + case when char_length(t.lowered) = 2 then ascii(t.lowered)::bigint else 0 end as key,
              t.lowered ~ '^[a-z0-9]{2}$' as pair
         from (select lower($2::text) as lowered) t
     ), total as materialized (
       select ${counterTotal('$1', '(select list from term)', '(select key from term)')}
            + (select coalesce(sum(coalesce(${scope.added} and textlike(s.added, (select pattern from term)), false)::int
                                   - coalesce(${scope.removed} and textlike(s.removed, (select pattern from term)), false)::int), 0)
                 from contact_search_changes s where s.company_id = $1) as n
     ), ${scopeCte(scope.counted)}, way as materialized (
       select case
                when ${SEARCH_PAGE.offset} >= total.n then 'none'
                when least(${SEARCH_PAGE.offset} + ${SEARCH_PAGE.limit}, total.n - ${SEARCH_PAGE.offset}) * scope.n
                     <= total.n * ${GRAM_WALK_ROWS} then 'walk'
                when total.n <= ${SEARCH_CANDIDATES} and (select pair from term) then 'index'
                when total.n <= ${SEARCH_CANDIDATES} and scope.pass then 'pass'
                else 'walk'
              end as way
         from total, scope
     ), before as materialized (
       select chr(n.key::int) as x
         from ${COUNTER_ROWS} n
        where n.company_id = $1 and n.list = (select '${SEARCH_GRAMS}' || left(lowered, 1) from term) and n.key > 0
          and (select way from way) = 'index'
        group by n.key
       having sum(n.value) > 0
       union
       select x from contact_search_changes s, unnest(string_to_array(s.added, null)) x
        where s.company_id = $1 and (select way from way) = 'index'
       union
       select E'\\x1f'
     ), gram_patterns as materialized (
       select '%' || ${likeLiteral('b.x || t.lowered')} || '%' as pattern from before b, term t
       union all
       select ${likeLiteral('lowered')} || '%' from term where (select way from way) = 'index'
     ), candidates as materialized (
       select distinct c.id
         from gram_patterns
        cross join lateral (select c.id from contacts c
                             where ${scope.probed} and c.search_text like gram_patterns.pattern
                               and textlike(c.search_text, (select pattern from term))
                             limit ${SEARCH_CANDIDATES}) c
        where (select way from way) = 'index'
       union all
       select m.id
         from (select c.id from contacts c where ${scope.passed} and textlike(c.search_text, (select pattern from term))
                limit (select n from total)) m
        where (select way from way) = 'pass' -- above the LIMIT: nothing is read otherwise
     ), page as materialized (
       select total.n as total,
              ${pageIds(SEARCH_PAGE, 'total.n', ['c.id', 'c.id desc'], (order, limit, offset) =>
                `array(select c.id from contacts c where ${scope.searched} and textlike(c.search_text, (select pattern from term)) and ${SERIAL}
                        order by ${order} limit ${limit} offset ${offset})`, {
                first: `when (select way from way) in ('index', 'pass') then array(select id from candidates order by id ${limitOffset(SEARCH_PAGE)})`,
              })} as ids
         from total
     )
     ${SEARCH_RECORDS}`,
  { replica: true },
)

// The whole company's (contacts.searchGram: $1 company, $2 term, $3 limit, $4 offset), one
// owner's ($5 the owner) and one stage's ($5 the stage, $6 its position).
const GRAM_SEARCHES = {
  company: gramSearchStatement('contacts.searchGram', GRAM_SCOPES.company),
  user: gramSearchStatement('contacts.searchGramOfUser', GRAM_SCOPES.user),
  stage: gramSearchStatement('contacts.searchGramAtStage', GRAM_SCOPES.stage),
}

/** A term the gram counters total: one or two characters, lower-cased too (as PostgreSQL may, with full case mapping), without U+001F. */
const isGram = (term: string) => !term.includes('\u001f') && Array.from(term.toLowerCase()).length <= 2

/**
 * The statement for a term and its parameters: the gram counters' for one or two characters
 * in the whole company, of one owner or at one stage; else one with three letters or digits in
 * a row has a trigram (the index can narrow it); one without (`a.b`, or 1–2 characters with a
 * tag, or with an owner and a stage) is counted through an index or in one pass over the
 * contacts; one containing U+001F is checked field by field.
 */
export function searchFor(companyId: CompanyId, term: string, filters: ContactFilters, page: PageSlice) {
  const { userId, stage, tagId } = filters
  const base = [companyId, term, page.limit, page.offset]
  if (tagId === undefined && isGram(term)) {
    if (userId === undefined && stage === undefined) return { query: GRAM_SEARCHES.company, params: base }
    if (stage === undefined) return { query: GRAM_SEARCHES.user, params: [...base, userId] }
    if (userId === undefined) return { query: GRAM_SEARCHES.stage, params: [...base, stage, STAGES.indexOf(stage)] }
  }
  const shape = term.includes('\u001f') ? SEARCHES.fields : /[\p{L}\p{N}]{3}/u.test(term) ? SEARCHES.trigram : SEARCHES.short
  const withFilters = [...base, stage ?? null, tagId ?? null]
  return userId === undefined ? { query: shape.all, params: withFilters } : { query: shape.ofUser, params: [...withFilters, userId] }
}

/** A page of the live contacts that pass `filters` and match `term`, as a JSON array (text), and their total. */
export async function searchContacts(db: Db, companyId: CompanyId, term: string, filters: ContactFilters, page: PageSlice): Promise<JsonPage> {
  const { query, params } = searchFor(companyId, term, filters, page)
  return runSingle(db, query, params)
}

/** A row of a walk: the JSON text of a live contact's API shape, or of a deleted one's tombstone. */
export interface ContactWalkRow {
  sync_at: string
  id: number
  json: string
}

// A page of an updated_since walk (src/http/sync.ts has the parameters): the contacts after
// the position up to the high-water marks, deleted ones too, from contacts_company_updated_idx
// (company_id, updated_at, id) alone: an index range read in order that stops after $6 rows.
const contactsWalk = defineQuery<ContactWalkRow>(
  'contacts.walk',
  `select ${syncAt('c.updated_at')} as sync_at, c.id,
          case when c.deleted_at is null then ${contactJson('c')}
               else ${jsonObjectOf(`c.id, true as deleted, ${isoInstant('c.deleted_at')} as deleted_at`)}
          end::text as json
     from contacts c
    ${walkRows('c')}`,
  { replica: true },
)

export function contactsWalkPage(db: Db, companyId: CompanyId, window: WalkWindow): Promise<ContactWalkRow[]> {
  return run(db, contactsWalk, walkParams(companyId, window))
}

// What a write must check before it changes anything, in one statement: the named tags
// (by id) and custom field definitions (by lower-cased name) of the company.
const REFERENCES = `(select coalesce(json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by t.id), '[]')
             from ${tagsAmong('$1', '$2::bigint[]')}) as tags,
          (select coalesce(json_agg(json_build_object('id', f.id, 'field', f.field, 'kind', f.kind, 'options', f.options) order by f.id), '[]')
             from ${fieldsNamedAmong('$1', '$3::text[]')}) as custom_fields`

export interface ContactReferences {
  tags: { id: number; name: string; color: string }[]
  custom_fields: { id: number; field: string; kind: CustomFieldKind; options: { name: string }[] }[]
}

const contactReferences = defineQuery<ContactReferences>('contacts.references', `select ${REFERENCES}`)

/** Tags by id and custom field definitions by name. */
export async function findContactReferences(db: Db, companyId: CompanyId, tagIds: number[], fieldNames: string[]): Promise<ContactReferences> {
  return runSingle(db, contactReferences, [companyId, tagIds, fieldNames.map((name) => name.toLowerCase())])
}

/** A new contact's own columns as a create gives them: the Contact schema's but its id and instants. */
export type NewContact = Omit<ContactColumnsRow, 'id' | 'created_at' | 'updated_at'>

/**
 * CTEs that share-lock the tags and custom fields a write references (`tagIds`, `fieldIds`)
 * before its counters: every writer takes a definition before the company's counters, so a
 * deletion racing many creates cannot deadlock with them (docs/performance.md, "The contacts statements").
 */
export const sharedReferencesCtes = (tagIds: string, fieldIds: string) =>
  `shared_tags as (
     ${keyShareTagsAmong('$1', tagIds)}
   ), shared_fields as (
     ${keyShareFieldsAmong('$1', fieldIds)}
   )`
/** The same CTEs locking nothing, for a write that names no tag or field: no table opened, the parameters kept typed. */
export const noSharedReferencesCtes = (tagIds: string, fieldIds: string) =>
  `shared_tags as (select 1 from unnest(${tagIds}) where false),
   shared_fields as (select 1 from unnest(${fieldIds}) where false)`
export const REFERENCES_SHARED = '(select count(*) from shared_tags) + (select count(*) from shared_fields) >= 0'

/** A live contact as the JSON text of its API shape, or undefined. */
export async function findContactJson(db: Db, companyId: CompanyId, id: number): Promise<string | undefined> {
  return (await runOne(db, contactJsonById, [companyId, id]))?.json
}

// DELETE /contacts/:id, after the contact is locked (contacts.changeLock: this statement then
// reads, with its own snapshot, every lead and enrollment the contact has under that lock):
// the contact hidden, its leads unlinked (leads_company_contact_idx), its active
// enrollments ended (flow_enrollments_contact_idx; its tasks stay as history), its
// contact_deleted event; then the counters (the company's and the owner's contacts, the
// leads' users' linked leads, the flows' contacts) in (list, key) order, and the webhook
// event last (outbox.ts). $5 is that event's data, `{id, deleted_at}` as JSON.
const deleteStatement = defineQuery<{ deleted: number }>(
  'contacts.delete',
  `with deleted as (
     update contacts set deleted_at = $3, updated_at = $3
      where company_id = $1 and id = $2 and deleted_at is null
     returning id, user_id
   ), unlinked as (
     ${setLeadsContact('null', '')}
      where company_id = $1 and contact_id = $2 and exists (select from deleted)
     returning user_id
   ), ended as (
     ${endEnrollments('$3')}
      where company_id = $1 and contact_id = $2 and status = 'active' and exists (select from deleted)
     returning flow_id
   ), evented as (
     ${INSERT_CONTACT_EVENTS}
     select $1, d.id, 'contact_deleted', $4, '{}', $3 from deleted d
     returning 1
   ), counted as (
     ${addToCounters(`     select $1, x.list, x.key, ${WRITER_SLOT}, sum(x.delta)::bigint
       from (select 'contacts' as list, 0::bigint as key, -1 as delta from deleted
             union all select 'contacts_by_user', d.user_id, -1 from deleted d
             union all select '${LINKED_LEADS}', u.user_id, -1 from unlinked u
             union all select '${FLOW_CONTACTS}', e.flow_id, -1 from ended e) x
      where (select count(*) from evented) >= 0
      group by x.list, x.key
      order by x.list, x.key`, { slot: true })}
     returning value
   ), api_event as (
     select 1::bigint as ord, 'contact.deleted'::text as type, $5::json as data from deleted
   ), ${outboxCtes('api_event', '$1::bigint', '$3::timestamptz')}
   select (select count(*) from deleted)::int as deleted`,
)

/** Deletes (soft) a contact its caller has locked, with everything that goes with it (see deleteStatement). */
export async function deleteLockedContact(db: Db, companyId: CompanyId, id: number, userId: number, now: Date): Promise<void> {
  await run(db, deleteStatement, [companyId, id, now, userId, JSON.stringify({ id, deleted_at: now })])
}

// Demo data: many contacts in one statement, from a JSON array of the schema's names.
const insertContactsStatement = defineQuery<DemoContactRow>(
  'contacts.insertMany',
  `insert into contacts (company_id, user_id, first_name, last_name, email, business, business_id, position,
                         telephone, cellphone, city, state, country, url, linkedin, carousel, stage,
                         created_at, updated_at)
   select $1, v.user_id, v.first_name, v.last_name, v.email, v.business, v.business_id, v.position,
          v.telephone, v.cellphone, v.city, v.state, v.country, v.url, v.linkedin, v.carousel, v.stage,
          v.created_at, v.updated_at
     from rows from (json_to_recordset($2::json)
            as (user_id bigint, first_name text, last_name text, email text, business text, business_id bigint,
                position text, telephone text, cellphone text, city text, state text, country text, url text,
                linkedin text, carousel boolean, stage contact_stage, created_at timestamptz, updated_at timestamptz))
          with ordinality as v
    order by v.ordinality
   returning id, user_id, first_name, created_at`,
)

/** What the demo loader reads back of the contacts it made. */
export type DemoContactRow = Pick<ContactColumnsRow, 'id' | 'user_id' | 'first_name' | 'created_at'>

/** Many contacts in one statement (demo data), returned in the given order. */
export async function insertContacts(db: Db, companyId: CompanyId, values: ContactInsert[]): Promise<DemoContactRow[]> {
  if (values.length === 0) return []
  const rows = await run(db, insertContactsStatement, [companyId, JSON.stringify(values)])
  return rows.sort((a, b) => a.id - b.id)
}

const insertContactTagsStatement = defineQuery<never>(
  'contacts.insertTags',
  `insert into contact_tags (company_id, contact_id, tag_id, created_at)
   select $1, p.contact_id, p.tag_id, p.created_at
     from unnest($2::bigint[], $3::bigint[], $4::timestamptz[]) as p(contact_id, tag_id, created_at)`,
)

/** Tags of many contacts in one statement (demo data). */
export async function insertContactTags(
  db: Db,
  companyId: CompanyId,
  pairs: { contactId: number; tagId: number; createdAt: Date }[],
): Promise<void> {
  if (pairs.length === 0) return
  await run(db, insertContactTagsStatement, [companyId, ...columns(pairs, ['contactId', 'tagId', 'createdAt'])])
}

const insertCustomValuesStatement = defineQuery<never>(
  'contacts.insertCustomValues',
  `insert into contact_custom_values (company_id, contact_id, custom_field_id, value, created_at, updated_at)
   select $1, v.contact_id, v.custom_field_id, v.value, v.created_at, v.created_at
     from unnest($2::bigint[], $3::bigint[], $4::text[], $5::timestamptz[]) as v(contact_id, custom_field_id, value, created_at)`,
)

/** Custom values of many contacts in one statement (demo data). */
export async function insertCustomValues(
  db: Db,
  companyId: CompanyId,
  values: { contactId: number; customFieldId: number; value: string; createdAt: Date }[],
): Promise<void> {
  if (values.length === 0) return
  await run(db, insertCustomValuesStatement, [companyId, ...columns(values, ['contactId', 'customFieldId', 'value', 'createdAt'])])
}

// The export (GET /contacts/export): the live contacts after id $3, $5 at a time in id order,
// of one owner ($4), of a stage ($6) and a tag ($7), and matching a term ($2, the list's
// search) when given, all read in one REPEATABLE READ transaction (db.ts, inSnapshot). From
// contacts_company_live_idx (company_id, id) as one range per batch; the term and the filters
// are tested on each row, as a walk in id order cannot take them from another index.
const exportBatchStatement = defineQuery<ContactRecord>(
  'contacts.exportBatch',
  `select ${CONTACT_RECORD}
     from contacts c
    where c.company_id = ${COMPANY} and c.deleted_at is null and c.id > $3::bigint
      and ($4::bigint is null or c.user_id = $4::bigint)
      and ${stageAndTag('$6', '$7')}
      and ($2::text is null or (${TERM_IN_FIELDS}))
    order by c.id
    limit $5`,
)

/** A batch of the export: up to `limit` live contacts after `afterId`, in id order. */
export function contactsExportBatch(
  db: Db,
  companyId: CompanyId,
  filters: ContactFilters & { term: string | undefined },
  afterId: number,
  limit: number,
): Promise<ContactRecord[]> {
  return run(db, exportBatchStatement, [
    companyId, filters.term ?? null, afterId, filters.userId ?? null, limit, filters.stage ?? null, filters.tagId ?? null,
  ])
}

// The search changes folded into the gram counters: up to $2 of a company's ($1) oldest
// changes that no other worker holds, deleted and added to the counters of their texts'
// grams (each text's grams once; an old text's subtracted), the company's, its owner's and its
// stage's, in the worker's slot, in (list, key) order. One statement: a search sees either the
// changes or their counts, never both.
const foldSearchChangesStatement = defineQuery<{ folded: number }>(
  'contacts.foldSearchChanges',
  `with folded as (
     delete from contact_search_changes s
      where s.company_id = $1
        and s.id in (select id from contact_search_changes where company_id = $1 order by id limit $2 for update skip locked)
     returning s.id, s.added, s.added_user_id, s.added_stage, s.removed, s.removed_user_id, s.removed_stage
   ), grams as (
     select distinct f.id, t.sign, t.user_id, t.stage, g.tail, g.head
       from folded f
      cross join lateral (values (f.added, 1, f.added_user_id, f.added_stage),
                                 (f.removed, -1, f.removed_user_id, f.removed_stage)) t(text, sign, user_id, stage)
      cross join lateral contact_search_grams(t.text) g
      where t.text is not null
   ), deltas as (
     select '${SEARCH_GRAMS}' || tail as list, head as key, sum(sign) as delta from grams group by tail, head
     union all
     select '${SEARCH_GRAMS_OF_USER}' || tail, user_id * ${GRAM_KEYS} + head, sum(sign) from grams group by tail, user_id, head
     union all
     select '${SEARCH_GRAMS_AT_STAGE}' || tail, stage * ${GRAM_KEYS} + head, sum(sign) from grams where stage is not null group by tail, stage, head
   ), counted as (
     ${addToCounters(`select $1::bigint, list, key, ${WRITER_SLOT}, delta
       from deltas
      where delta <> 0
      order by list, key`, { slot: true })}
   )
   select count(*)::int as folded from folded`,
)

/** Folds up to `limit` of a company's search changes into the gram counters; answers how many. */
export async function foldSearchChanges(db: Db, companyId: CompanyId, limit: number): Promise<number> {
  return (await runSingle(db, foldSearchChangesStatement, [companyId, limit])).folded
}

// The companies with search changes to fold, in id order, from the primary key (company_id,
// id): one probe per company, skipping over its changes.
const searchChangesCompaniesStatement = defineQuery<{ company_id: CompanyId }>(
  'contacts.searchChangesCompanies',
  `with recursive pending as (
     (select company_id from contact_search_changes order by company_id limit 1)
     union all
     select (select s.company_id from contact_search_changes s where s.company_id > p.company_id order by s.company_id limit 1)
       from pending p
      where p.company_id is not null
   )
   select company_id from pending where company_id is not null limit $1`,
)

/** Up to `limit` companies whose search changes wait to be folded. */
export async function companiesWithSearchChanges(db: Db, limit: number): Promise<CompanyId[]> {
  return (await run(db, searchChangesCompaniesStatement, [limit])).map((row) => row.company_id)
}

// A business's live contacts, counted from contacts_company_business_idx (company_id, business_id).
const BUSINESS_RECORD = businessRecord((b) => `(select count(*) from contacts x
            where x.company_id = ${b}company_id and x.business_id = ${b}id and x.deleted_at is null)::int`)

// The live contact's business by primary keys, with its live contacts counted. It is here, not
// in businesses/, because it reads contacts and businesses/ cannot import this module (contacts
// imports it). The contact is read alone (its LIMIT keeps the join's `business_id = b.id` out
// of it), so that without statistics it is not found by walking contacts_company_business_idx
// filtering on the id (docs/performance.md, "Plans without statistics").
const businessOfContactStatement = defineQuery<BusinessRow>(
  'businesses.ofContact',
  `select ${BUSINESS_RECORD.columns()}
     from (select company_id, business_id from contacts
            where company_id = ${COMPANY} and id = $2 and deleted_at is null limit 1) c
     join ${businessOfRow('c')}`,
)

/** The business of a live contact in its API shape; undefined when there is no such contact or it has none. */
export function findContactBusiness(db: Db, companyId: CompanyId, contactId: number): Promise<BusinessRow | undefined> {
  return runOne(db, businessOfContactStatement, [companyId, contactId])
}

// A page of a live contact's events and their total, in one statement the events module
// writes (contactEventsPageSql), defined here because its test of the contact names contacts.
const CONTACT_2_IS_LIVE = `exists (select from contacts c
                     where c.company_id = ${COMPANY} and c.id = $2 and c.deleted_at is null)`
const contactEventsPageStatement = defineQuery<PageRow<ContactEventRecord, { live: boolean }>>('events.contactPage', contactEventsPageSql(CONTACT_2_IS_LIVE))

/** A page of a contact's events (newest first) and their total; undefined when it is not a live contact of the company. */
export const readContactEventsPage = childPageReader(contactEventsPageStatement, 'live')

// One `tag_removed` event per live contact carrying the tag (contact_tags_tag_idx, then
// contacts by primary key) and the tag deleted, in one statement: every part sees
// contact_tags as it was before the foreign key cascade takes the tag off the contacts.
// One tag.deleted webhook event, and no contact.untagged per contact (docs/webhook-events.md).
// Defined here, not in tags/ (which this module imports), because it reads contact_tags and contacts.
const deleteTagStatement = defineQuery<never>(
  'tags.delete',
  `with gone as (
     ${deleteTagReturning('$1', '$2')}
   ), event as (
     select 1 as ord, 'tag.deleted' as type, json_build_object('id', gone.id, 'deleted_at', ${isoInstant('$4::timestamptz')}) as data
       from gone
   ), ${outboxCtes('event', '$1::bigint', '$4::timestamptz')}
   ${INSERT_CONTACT_EVENTS}
   select ct.company_id, ct.contact_id, 'tag_removed', $3,
          jsonb_build_object('tag_id', gone.id, 'name', gone.name, 'reason', 'tag_deleted'), $4
     from gone
     join contact_tags ct on ct.company_id = $1 and ct.tag_id = gone.id
     join contacts c on c.company_id = ct.company_id and c.id = ct.contact_id
    where c.deleted_at is null
    order by ct.contact_id`,
)

/**
 * Deletes the tag, the foreign key cascade taking it off every contact, with a
 * `tag_removed` event on each live one; in the caller's transaction. False when there is
 * no such tag.
 */
export async function deleteTagWithEvents(
  tx: Db,
  companyId: CompanyId,
  id: number,
  userId: number | null,
  now: Date,
): Promise<boolean> {
  if (!(await lockTag(tx, companyId, id))) return false
  await run(tx, deleteTagStatement, [companyId, id, userId, now])
  return true
}

// A lead's create and link to a contact, whose text the leads module writes (insertLeadSql,
// linkLeadSql, which say what they do): defined here because their contact CTE reads contacts.
const LIVE_CONTACT_WITH_EMAIL_5 = `select id from contacts
      where company_id = $1 and lower(email) = lower($5) and deleted_at is null
        for share`
const insertLeadStatement = defineQuery<LeadRecord>('leads.insert', insertLeadSql(LIVE_CONTACT_WITH_EMAIL_5))
const LIVE_CONTACT_3 = 'select id from contacts where company_id = $1 and id = $3 and deleted_at is null for share'
const linkLeadStatement = defineQuery<LeadRecord>('leads.link', linkLeadSql(LIVE_CONTACT_3))

/**
 * Creates a lead for `userId` with everything that comes with it (see insertLeadSql of the
 * leads module); call inside a transaction holding the lead-link lock of its email.
 */
export async function insertLead(
  db: Db,
  companyId: CompanyId,
  userId: number,
  lead: LeadCreateBody,
  businessName: string | null,
): Promise<LeadRecord> {
  return runSingle(db, insertLeadStatement, insertLeadParams(companyId, userId, lead, businessName))
}

/**
 * Links a lead the caller has locked (lockLead of the leads module) to a live contact of the
 * company, with its counter and webhook event; `hadContact`: whether it was linked before.
 * Undefined when the contact is not a live contact of the company.
 */
export function linkLead(db: Db, companyId: CompanyId, id: number, contactId: number, hadContact: boolean): Promise<LeadRecord | undefined> {
  return runOne(db, linkLeadStatement, [companyId, id, contactId, !hadContact])
}

const DEMO_LEAD_CONTACT = recordSql(DemoLeadContact, 'contacts c').columns('')

// Demo data: the first live contacts, from contacts_company_live_idx (company_id, id).
const firstContactsStatement = defineQuery<DemoLeadContactRecord>(
  'leads.firstContacts',
  `select ${DEMO_LEAD_CONTACT}
     from contacts where company_id = $1 and deleted_at is null order by id limit $2`,
)

/** Demo data: the first live contacts, whom some demo leads describe again. */
export function firstContacts(db: Db, companyId: CompanyId, limit: number): Promise<DemoLeadContactRecord[]> {
  return run(db, firstContactsStatement, [companyId, limit])
}

// A contact as the tasks' and flows' operations take it (the tasks module's TaskContact schema):
// read here, since only this module names contacts and those operations sit above it.
const TASK_CONTACT = recordSql(TaskContact, 'contacts c').columns('')

// By primary key (company_id, id), share-locked until the transaction ends so that the
// contact cannot be deleted or change owner while tasks are made for it.
const shareLockLiveContactStatement = defineQuery<TaskContactRecord>(
  'tasks.lockLiveContact',
  `select ${TASK_CONTACT} from contacts where company_id = $1 and id = $2 and deleted_at is null for share`,
)

/** A live contact of the company, share-locked until the transaction ends. */
export function shareLockLiveContact(db: Db, companyId: CompanyId, id: number): Promise<TaskContactRecord | undefined> {
  return runOne(db, shareLockLiveContactStatement, [companyId, id])
}

const liveContactAnyCompanyStatement = defineQuery<TaskContactRecord>(
  'tasks.liveContactAnyCompany',
  `select ${TASK_CONTACT} from contacts where id = $1 and deleted_at is null`,
)

/** Admin command line only: a live contact by id whatever its company. */
export function findLiveContactAnyCompany(db: Db, id: number): Promise<TaskContactRecord | undefined> {
  return runOne(db, liveContactAnyCompanyStatement, [id])
}

// Demo data: from contacts_company_live_idx (company_id, id).
const firstLiveContactsStatement = defineQuery<TaskContactRecord>(
  'tasks.firstLiveContacts',
  `select ${TASK_CONTACT} from contacts where company_id = $1 and deleted_at is null order by id limit $2`,
)

/** Demo data: the first live contacts of the company. */
export function firstLiveContacts(db: Db, companyId: CompanyId, limit: number): Promise<TaskContactRecord[]> {
  return run(db, firstLiveContactsStatement, [companyId, limit])
}

// ---- lent to other modules' statements (src/db/owners.ts) ----------------------------------

/** The ids of the company's live contacts among an array (`company`, `ids`: SQL expressions, `ids` a bigint[]). */
export const liveContactsAmong = (company: string, ids: string) =>
  `select id from contacts where company_id = ${company} and id = any(${ids}) and deleted_at is null`

/** Whether the company's contact is live (`company`, `contact`: SQL expressions). */
export const liveContactExists = (company: string, contact: string) =>
  `exists(select 1 from contacts where company_id = ${company} and id = ${contact} and deleted_at is null)`

/** Whether the contact of a row `alias` (its company_id and contact_id) is live, by primary key. */
export const rowContactLive = (alias: string) =>
  `exists (select 1 from contacts c where c.company_id = ${alias}.company_id and c.id = ${alias}.contact_id and c.deleted_at is null)`
