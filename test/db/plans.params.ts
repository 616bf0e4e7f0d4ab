// The plans test's parameters (test/db/plans.test.ts). A statement gets values by their
// types (Seed.byType: $1 the company, other ids a typical contact's, limits 25, ...) unless
// PARAMS gives them; EXEMPT lists the statements whose plans are not checked, each with why.
import type pg from 'pg'
import type { CompanyInfo } from '../../bench/scale-data.js'

export class Seed {
  private constructor(
    readonly client: pg.Client,
    readonly company: CompanyInfo,
    readonly other: CompanyInfo,
    private readonly labels: Map<string, string>,
  ) {}

  static async read(client: pg.Client, company: CompanyInfo, other: CompanyInfo): Promise<Seed> {
    const { rows } = await client.query<{ type: string; label: string }>(
      `select distinct on (t.typname) t.typname as type, e.enumlabel as label
         from pg_enum e join pg_type t on t.oid = e.enumtypid order by t.typname, e.enumsortorder`,
    )
    return new Seed(client, company, other, new Map(rows.map((r) => [r.type, r.label])))
  }

  get companyId(): number {
    return this.company.companyId
  }
  get contactId(): number {
    return this.company.typicalContactId
  }

  /** A value for each parameter type: the company first, then what a typical request sends. */
  byType(types: string[]): unknown[] {
    return types.map((type, index) => this.value(type, index))
  }

  private value(type: string, index: number): unknown {
    if (type.endsWith('[]')) return [this.value(type.slice(0, -2), 1)]
    switch (type) {
      case 'bigint':
        return index === 0 ? this.companyId : this.contactId
      case 'integer':
      case 'smallint':
        return 25
      case 'numeric':
      case 'double precision':
        return 1
      case 'text':
      case 'character varying':
      case 'unknown':
        return 'UTC' // a name, a term, a colour of 7 characters at most, a time zone
      case 'boolean':
        return true
      case 'timestamp with time zone':
      case 'timestamp without time zone':
        return '2026-11-26T12:00:00Z'
      case 'date':
        return '2026-11-26'
      case 'interval':
        return '1 day'
      case 'json':
      case 'jsonb':
        return '{}'
      case 'uuid':
        return '00000000-0000-4000-8000-000000000000'
      case 'bytea':
        return Buffer.from('00', 'hex')
      case 'inet':
        return '127.0.0.1'
      default: {
        const label = this.labels.get(type)
        if (label === undefined) throw new Error(`no value for a parameter of type ${type}`)
        return label
      }
    }
  }
}

/**
 * A task list's parameters ($1 company, $2 today, $3 limit, $4 offset, $5-$8 the done, due
 * range and kind filters, $9-$12 the counters' terms): none of the optional filters, then `more`.
 */
const taskList = (seed: Seed, ...more: unknown[]) =>
  [seed.companyId, '2026-11-26', 25, 0, null, null, null, null, null, null, null, null, ...more]

/** Parameters a statement needs that its types alone do not give (without them: every filter at once). */
export const PARAMS: Record<string, (seed: Seed) => unknown[]> = {
  'tasks.page': (seed) => taskList(seed),
  'tasks.pageOfAssignee': (seed) => taskList(seed, seed.company.userIds[1]),
  'tasks.pageOfFlow': (seed) => taskList(seed, seed.company.flowIds[0], null),
  'tasks.pageOfContact': (seed) => taskList(seed, seed.contactId, null, null, null, null),
  'tasks.pageByDoneDate': (seed) => taskList(seed, '2026-01-01', '2026-11-26', null, null),
}

/** Statements whose plans are not checked, and why. */
export const EXEMPT: Record<string, string> = {}

/**
 * Findings that are intended or harmless, by statement: a finding starting with `finding`
 * (`Seq Scan on <table>`, or `<table> via <index>`) is not reported. Most are ties of a
 * database never analysed, where every condition on a company is estimated at a row or so
 * and an index bounded by a few rows of the company is as cheap as the key's (at scale the
 * estimates differ by the company's size and the key wins).
 */
const TAGS_BY_ID = { finding: 'tags via tags_company_id_id_pk', reason: 'the named tags (`id = any(array)`) read within the company\'s tags on its primary key: tens of rows' }
const FIELDS_BY_ID = {
  finding: 'custom_fields via custom_fields_company_id_id_pk',
  reason: 'the named custom fields within the company\'s on its primary key: tens of rows',
}
const SEARCH_PASS = {
  finding: 'Seq Scan on contacts',
  reason: 'the pass over the table that a search takes on purpose when the company holds a sixth of the contacts or more (contacts.repository.ts, `scope`)',
}
const USER_TOKEN = {
  finding: 'api_tokens via api_tokens_company_user_idx',
  reason: 'one token of one user (company, id and user given): the user\'s handful of tokens through (user_id, company_id), a tie with the primary key',
}
const IDEMPOTENCY = {
  finding: 'idempotency_keys via idempotency_keys_created_idx',
  reason: '`created_at = $4` is as selective as the key (one row per instant)',
}
const LEADS_OF_CONTACT = {
  finding: 'leads via leads_company_updated_idx',
  reason: 'a write unlinking a contact\'s leads; a tie without statistics (after ANALYZE: leads_company_contact_idx)',
}
const NAMED_OWNERS = {
  finding: 'users via users_company_id_id_pk',
  reason: 'the named owners within the company\'s users on the primary key: tens of rows',
}
const BATCH_LINKS = {
  finding: 'contact_tags via contact_tags_tag_idx',
  reason: 'a batch write replacing its contacts\' tags: after ANALYZE the named tags\' rows (a tag\'s contacts) are read, bounded by the batch',
}
const CONTACT_TASKS = {
  finding: 'tasks via tasks_company_updated_idx',
  reason: 'a contact\'s tasks: a tie without statistics between the company\'s indexes (tasks_contact_idx after ANALYZE); not fixed yet (docs/performance.md, "Plans without statistics")',
}
export const ACCEPTED: Record<string, { finding: string; reason: string }[]> = {
  'contacts.labels': [{
    finding: 'contacts via contacts_company_updated_idx',
    reason: 'the named contacts (`id = any(array)`, at most a page of them) within the company: a tie without statistics; after ANALYZE the primary key',
  }],
  'contacts.references': [TAGS_BY_ID],
  'contacts.delete': [LEADS_OF_CONTACT],
  'leads.ofContact': [{
    finding: 'leads via leads_company_updated_idx',
    reason: 'a contact\'s leads (its page in the workspace): a tie without statistics (after ANALYZE: leads_company_contact_idx)',
  }],
  'contacts.resolveLocked': [TAGS_BY_ID, NAMED_OWNERS],
  'contacts.resolveCreating': [TAGS_BY_ID, NAMED_OWNERS],
  'contacts.batchWrite': [TAGS_BY_ID, FIELDS_BY_ID, BATCH_LINKS, LEADS_OF_CONTACT, {
    finding: 'contact_custom_values via contact_custom_values_field_idx',
    reason: 'as its tags: the named fields\' values, bounded by the batch',
  }],
  'contacts.createWrite': [TAGS_BY_ID, FIELDS_BY_ID, BATCH_LINKS],
  'contacts.changePlainWrite': [LEADS_OF_CONTACT],
  'contacts.search': [SEARCH_PASS],
  'contacts.searchOfUser': [SEARCH_PASS],
  'contacts.searchShort': [SEARCH_PASS],
  'contacts.searchShortOfUser': [SEARCH_PASS],
  'contacts.searchFields': [SEARCH_PASS],
  'contacts.searchFieldsOfUser': [SEARCH_PASS],
  'contacts.searchGram': [SEARCH_PASS],
  'contacts.searchGramOfUser': [SEARCH_PASS],
  'contacts.searchGramAtStage': [SEARCH_PASS],
  'whatsapp.liveContacts': [{
    finding: 'contacts via contacts_company_user_live_idx',
    reason: 'the named contacts (`id = any(array)`) of the company\'s live contacts: a tie without statistics',
  }, {
    finding: 'contacts via contacts_company_email_live_key',
    reason: 'the same tie, another partial index of the live contacts (PostgreSQL 17, the embedded cluster)',
  }, {
    finding: 'contacts via contacts_company_live_idx',
    reason: 'the same tie, the live contacts\' id index (it holds their owner and stage since migration 0026)',
  }],
  'whatsapp.companyUsers': [{ finding: 'users via users_company_id_id_pk', reason: 'the named users within the company\'s: tens of rows' }],
  'auth.tokenOfUser': [USER_TOKEN],
  'auth.revokeOfUser': [USER_TOKEN],
  'oauth.revokeGrantOfUser': [{
    finding: 'oauth_grants via oauth_grants_company_user_idx',
    reason: 'a user\'s grants, a handful, through (company_id, user_id)',
  }],
  'tasks.pageOfContact': [CONTACT_TASKS],
  'meetTranscriptions.ofContact': [CONTACT_TASKS],
  'idempotency.complete': [IDEMPOTENCY],
  'idempotency.release': [IDEMPOTENCY],
}
