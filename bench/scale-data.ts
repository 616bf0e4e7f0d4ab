// The data of the scale scenarios (issue 9): one company with 1 M contacts, tasks and leads,
// 200 k meeting transcriptions and 2 M WhatsApp messages, generated ONCE into a database
// kept between runs (`engage_scale` on DATABASE_URL's server). It is generated again only
// with --regenerate, or when the migrations (migrations/) or this generator changed.
//
// Everything is set-based SQL (INSERT … SELECT generate_series) with deterministic hashes,
// so the same run gives the same data, and references between tables are computed rather
// than joined: the owner of contact g is always users[1 + h(g, 0) % users]. Secondary indexes
// are dropped during the big load and built again after it; foreign-key triggers are off
// (session_replication_role = replica) because the generator writes consistent data by
// construction. The `counters` rows are then computed from the rows with SQL.
//
// `addFreshCompany` writes a smaller company the same way into the same database without
// ANALYZE: the planner's statistics know nothing of it.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { openDatabase } from '../src/db/client.js'
import { TASK_KINDS } from '../src/modules/tasks/tasks.schemas.js'

/** Bump when the generated data changes: the database is then generated again. */
const GENERATOR_VERSION = 5

export interface CompanySize {
  contacts: number
  tasks: number
  /** Tasks from flows (five per enrollment); the rest are outside any flow. */
  flowTasks: number
  leads: number
  transcriptions: number
  messages: number
  /** Messages and events of contact 0, the one very long conversation and history. */
  whaleMessages: number
  whaleEvents: number
  users: number
  businesses: number
}

export const SCALE: CompanySize = {
  contacts: 1_000_000,
  tasks: 1_000_000,
  flowTasks: 600_000,
  leads: 1_000_000,
  transcriptions: 200_000,
  messages: 2_000_000,
  whaleMessages: 60_000,
  whaleEvents: 5_000,
  users: 20,
  businesses: 50_000,
}

/** The company created before each measurement, never analyzed (a twentieth of the big one). */
export const FRESH: CompanySize = {
  contacts: 50_000,
  tasks: 50_000,
  flowTasks: 30_000,
  leads: 50_000,
  transcriptions: 10_000,
  messages: 100_000,
  whaleMessages: 5_000,
  whaleEvents: 500,
  users: 8,
  businesses: 2_500,
}

/** The company of the side-by-side benchmark (npm run bench): every list has several pages. */
export const SMALL: CompanySize = {
  contacts: 2_000,
  tasks: 2_000,
  flowTasks: 1_000,
  leads: 2_000,
  transcriptions: 1_000,
  messages: 4_000,
  whaleMessages: 500,
  whaleEvents: 100,
  users: 5,
  businesses: 200,
}

/** What the scenarios need to know of a generated company. */
export interface CompanyInfo {
  companyId: number
  name: string
  timezone: string
  /** Users in creation order; the first is an admin. */
  userIds: number[]
  /** The contact with the long conversation and history (contact index 0). */
  whaleContactId: number
  /** A typical contact with about 20 messages, a business and tasks. */
  typicalContactId: number
  flowIds: number[]
  size: CompanySize
}

export interface ScaleInfo {
  hash: string
  generatedAt: string
  seconds: number
  big: CompanyInfo
}

/** Rare term planted in five last names, for the search scenarios. */
export const RARE_LAST_NAME = 'Quillfeather'

const FIRST_NAMES = [
  'Ana', 'Bruno', 'Carla', 'Daniel', 'Eduarda', 'Felipe', 'Gabriela', 'Henrique', 'Isabela', 'João', 'Larissa', 'Marcos',
  'Natália', 'Otávio', 'Paula', 'Rafael', 'Sofia', 'Thiago', 'Vanessa', 'William', 'Emma', 'Liam', 'Olivia', 'Noah',
  'Mia', 'Lucas', 'Chloé', 'Mateo', 'Hannah', 'Kenji', 'Amelia', 'Oliver', 'Ava', 'Elijah', 'Charlotte', 'James',
  'Sophia', 'Benjamin', 'Isabella', 'Henry', 'Yuki', 'Priya', 'Arjun', 'Fatima', 'Omar', 'Leila', 'Ivan', 'Olga',
  'Piotr', 'Zofia', 'Lars', 'Ingrid', 'Sven', 'Astrid', 'Giulia', 'Marco', 'Chiara', 'Luca', 'Camille', 'Hugo',
  'Manon', 'Louis', 'Wei', 'Mei', 'Jun', 'Hana', 'Min-jun', 'Seo-yeon', 'Kwame', 'Amara', 'Tariq', 'Nadia',
  'Diego', 'Valentina', 'Santiago', 'Camila', 'Mateus', 'Beatriz', 'Gustavo', 'Juliana',
]
const LAST_NAMES = [
  'Silva', 'Santos', 'Oliveira', 'Souza', 'Rodrigues', 'Ferreira', 'Alves', 'Pereira', 'Lima', 'Gomes', 'Costa',
  'Ribeiro', 'Martins', 'Carvalho', 'Almeida', 'Araújo', 'Rocha', 'Barbosa', 'Smith', 'Johnson', 'Williams', 'Brown',
  'Jones', 'Miller', 'Davis', 'García', 'Martínez', 'López', 'Hernández', 'González', 'Müller', 'Schmidt', 'Schneider',
  'Fischer', 'Weber', 'Dubois', 'Moreau', 'Laurent', 'Lefebvre', 'Tanaka', 'Suzuki', 'Takahashi', 'Watanabe',
  'Nakamura', 'Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Kowalski', 'Nowak', 'Wiśniewski', 'Ivanov',
  'Petrov', 'Smirnov', 'Kim', 'Lee', 'Park', 'Choi', 'Wang', 'Zhang', 'Chen', 'Liu', 'Singh', 'Kumar', 'Patel',
  'Sharma', 'Okafor', 'Mensah', 'Haddad', 'Nasser', 'Andersson', 'Johansson', 'Karlsson', 'Nielsen', 'Hansen',
  'Jensen', 'Van Dijk', 'De Vries', 'Bakker', 'Janssen', 'Murphy', 'Kelly', "O'Brien", 'Walsh', 'Byrne',
]
const ADJECTIVES = [
  'Blue', 'Green', 'Northern', 'Southern', 'Golden', 'Silver', 'Rapid', 'Bright', 'Prime', 'Global', 'United',
  'First', 'Pacific', 'Atlantic', 'Summit', 'Pioneer', 'Vertex', 'Apex', 'Nova', 'Iron', 'Crystal', 'Red', 'Royal',
  'Urban', 'Coastal', 'Alpine', 'Smart', 'Open', 'Clear', 'True', 'Bold', 'Swift', 'Quantum', 'Solar', 'Lunar',
  'Granite', 'Cedar', 'Maple', 'Harbor', 'Delta',
]
const NOUNS = [
  'Harbor', 'River', 'Valley', 'Peak', 'Bridge', 'Field', 'Forge', 'Works', 'Labs', 'Point', 'Gate', 'Stone', 'Wave',
  'Star', 'Path', 'Line', 'Grid', 'Cloud', 'Leaf', 'Oak', 'Pine', 'Rock', 'Bay', 'Port', 'Crest', 'Ridge', 'Sky',
  'Tide', 'Wind', 'Fire', 'Light', 'Spark', 'Core', 'Hub', 'Nest', 'Shield', 'Arrow', 'Anchor', 'Compass', 'Beacon',
  'Orbit', 'Pulse', 'Signal', 'Vector', 'Matrix', 'Circuit', 'Engine', 'Foundry', 'Garden', 'Market',
]
const SUFFIXES = [
  'Logistics', 'Software', 'Systems', 'Partners', 'Holdings', 'Group', 'Foods', 'Energy', 'Capital', 'Health',
  'Media', 'Retail', 'Consulting', 'Analytics', 'Robotics', 'Pharma', 'Textiles', 'Motors', 'Realty', 'Telecom',
  'Insurance', 'Airlines', 'Studios', 'Brewing', 'Security',
]
const SECTORS = ['Software', 'Logistics', 'Finance', 'Retail', 'Health', 'Manufacturing', 'Energy', 'Media', 'Education', 'Consulting']
const DOMAINS = ['gmail.com', 'gmail.com', 'gmail.com', 'outlook.com', 'yahoo.com', 'hotmail.com', 'icloud.com', 'proton.me', 'corp.example', 'mail.example']
const CITIES: [city: string, state: string, country: string][] = [
  ['São Paulo', 'SP', 'Brazil'], ['Rio de Janeiro', 'RJ', 'Brazil'], ['Belo Horizonte', 'MG', 'Brazil'], ['Curitiba', 'PR', 'Brazil'],
  ['Lisbon', 'Lisboa', 'Portugal'], ['Austin', 'TX', 'United States'], ['New York', 'NY', 'United States'],
  ['Buenos Aires', 'CABA', 'Argentina'], ['Mexico City', 'CDMX', 'Mexico'], ['Berlin', 'BE', 'Germany'],
  ['Paris', 'IDF', 'France'], ['Tokyo', 'Tokyo', 'Japan'],
]
const POSITIONS = ['CEO', 'CTO', 'CFO', 'Head of Sales', 'Sales Manager', 'Account Executive', 'Marketing Director', 'Procurement Manager', 'Operations Manager', 'Founder', 'IT Manager', 'Product Manager']
const STAGES = ['smart_lead', 'prospect', 'lead', 'mql', 'sql', 'opportunity', 'client', 'lost']
const TAGS = ['Hot', 'Decision maker', 'Partner', 'Newsletter', 'Follow up', 'Churn risk', 'VIP', 'Event 2026', 'Inbound', 'Referral']
const MESSAGES = [
  'Hi! Are you free for a quick call tomorrow?', 'Thanks, I will check with my team and get back to you.',
  'Sent you the proposal by email.', 'Can we move our meeting to Thursday?', 'Great, see you then!',
  'What is the price for 50 seats?', 'Following up on our last conversation.', 'Perfect, thank you!',
  'Could you share the case study you mentioned?', 'We signed the contract today.',
]
const FLOW_STEPS: [day: number, kind: string, title: string][] = [
  [0, 'email', 'Introduction email'], [2, 'linkedin', 'Connect on LinkedIn'], [4, 'phonecall', 'First call'],
  [7, 'email', 'Follow-up email'], [10, 'meeting', 'Discovery meeting'],
]

/** A SQL text[] literal of JS strings. */
const textArray = (values: readonly string[]) =>
  `array[${values.map((v) => pg.escapeLiteral(v)).join(', ')}]::text[]`

/** The migrations and this generator: a change in either means the data is generated again. */
export function schemaHash(): string {
  const folder = fileURLToPath(new URL('../migrations', import.meta.url))
  const hash = createHash('sha256').update(`generator ${GENERATOR_VERSION}\n`)
  for (const file of readdirSync(folder).filter((f) => f.endsWith('.sql')).sort()) {
    hash.update(file).update(readFileSync(`${folder}/${file}`))
  }
  return hash.digest('hex').slice(0, 16)
}

export function scaleDatabaseUrl(adminUrl: string, name = 'engage_scale'): string {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** The lowest id of a company's rows in a table: the generator's rows are contiguous from there. */
async function firstId(client: pg.Client, table: string, companyId: number): Promise<number> {
  const { rows } = await client.query<{ id: number | null }>(`select min(id) as id from ${table} where company_id = $1`, [companyId])
  const id = rows[0]?.id
  if (id === null || id === undefined) throw new Error(`no ${table} rows were written`)
  return id
}

let quiet = false
/** Stops the progress lines (the side-by-side benchmark writes a small company). */
export function quietProgress() {
  quiet = true
}
const log = (message: string) => {
  if (!quiet) process.stderr.write(`[scale-data] ${message}\n`)
}

async function step<T>(client: pg.Client, label: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const started = Date.now()
  const result = await client.query(sql, params)
  log(`${label}: ${result.rowCount ?? 0} rows, ${((Date.now() - started) / 1000).toFixed(1)} s`)
  return result.rows as T[]
}

/**
 * Deterministic helper functions of the generator session: h(g, salt) is a non-negative
 * hash, owner(g) the owner index of contact g, email(g) its email.
 */
async function defineHelpers(client: pg.Client) {
  await client.query(`
    create or replace function pg_temp.h(g bigint, salt int) returns int language sql immutable parallel safe as
      $$ select (hashint8(g * 7919 + salt)::bigint & 2147483647)::int $$;
    create or replace function pg_temp.first_name(g bigint) returns text language sql immutable as
      $$ select (${textArray(FIRST_NAMES)})[1 + pg_temp.h(g, 1) % ${FIRST_NAMES.length}] $$;
    create or replace function pg_temp.last_name(g bigint) returns text language sql immutable as
      $$ select case when g in (123457, 555555, 777777, 31337, 49998)
                     then ${pg.escapeLiteral(RARE_LAST_NAME)}
                     else (${textArray(LAST_NAMES)})[1 + pg_temp.h(g, 2) % ${LAST_NAMES.length}] end $$;
    create or replace function pg_temp.email(g bigint) returns text language sql immutable as
      $$ select lower(translate(pg_temp.first_name(g) || '.' || pg_temp.last_name(g), ' áãâéêíóôõúçüöśñ''', '-aaaeeiooouucuosn'))
                || '.' || g || '@' || (${textArray(DOMAINS)})[1 + pg_temp.h(g, 3) % ${DOMAINS.length}] $$;
  `)
}

/** Writes one company; returns what the scenarios need. Runs inside the caller's transaction (or not). */
async function writeCompany(client: pg.Client, name: string, timezone: string, size: CompanySize): Promise<CompanyInfo> {
  await step(client, `company ${name}`, `insert into companies (name, timezone) values ($1, $2)`, [name, timezone])
  const c = (await client.query<{ id: number }>('select max(id) as id from companies')).rows[0]?.id ?? 0

  const users = await step<{ id: number }>(client, 'users', `
    insert into users (company_id, name, email, role)
    select $1::bigint, 'Seller ' || g, 'seller' || g || '.' || $1::bigint || '@scale.example', case when g = 0 then 'admin'::user_role else 'member' end
      from generate_series(0, $2 - 1) g order by g
    returning id`, [c, size.users])
  const userIds = users.map((u) => u.id).sort((a, b) => a - b)
  const U = `$2::bigint[]` // users array parameter in the statements below
  const owner = (g: string) => `(${U})[1 + pg_temp.h(${g}, 0) % ${size.users}]`

  const businessName = (b: string) =>
    `(${textArray(ADJECTIVES)})[1 + ${b} % ${ADJECTIVES.length}] || ' ' || (${textArray(NOUNS)})[1 + (${b} / ${ADJECTIVES.length}) % ${NOUNS.length}]
     || ' ' || (${textArray(SUFFIXES)})[1 + (${b} / ${ADJECTIVES.length * NOUNS.length}) % ${SUFFIXES.length}]`
  await step(client, 'businesses', `
    insert into businesses (company_id, name, sector, colaborators_count)
    select $1::bigint, ${businessName('b')}, (${textArray(SECTORS)})[1 + b % ${SECTORS.length}], 5 + pg_temp.h(b, 9) % 5000
      from generate_series(0, $2 - 1) b order by b`, [c, size.businesses])
  const bizBase = await firstId(client, 'businesses', c)

  // Contact g: 1 % soft-deleted (g % 100 = 99), 10 % without a business.
  await step(client, 'contacts', `
    insert into contacts (company_id, user_id, first_name, last_name, email, business, business_id, position, telephone,
                          cellphone, city, state, country, carousel, stage, deleted_at, created_at, updated_at)
    select $1::bigint, ${owner('g')}, pg_temp.first_name(g), pg_temp.last_name(g), pg_temp.email(g),
           case when pg_temp.h(g, 4) % 10 = 0 then null else ${businessName(`(pg_temp.h(g, 5) % $3)`)} end,
           case when pg_temp.h(g, 4) % 10 = 0 then null else $4::bigint + pg_temp.h(g, 5) % $3 end,
           (${textArray(POSITIONS)})[1 + pg_temp.h(g, 6) % ${POSITIONS.length}],
           '+55 11 ' || lpad((pg_temp.h(g, 7) % 100000000)::text, 8, '0'),
           case when g % 3 = 0 then '+1 512 ' || lpad((pg_temp.h(g, 8) % 10000000)::text, 7, '0') end,
           (${textArray(CITIES.map((x) => x[0]))})[1 + pg_temp.h(g, 10) % ${CITIES.length}],
           (${textArray(CITIES.map((x) => x[1]))})[1 + pg_temp.h(g, 10) % ${CITIES.length}],
           (${textArray(CITIES.map((x) => x[2]))})[1 + pg_temp.h(g, 10) % ${CITIES.length}],
           g % 7 = 0,
           ((${textArray(STAGES)})[1 + pg_temp.h(g, 11) % 8])::contact_stage,
           case when g % 100 = 99 then now() - interval '3 days' end,
           now() - make_interval(secs => ($5 - g) * 90), now() - make_interval(secs => ($5 - g) * 60)
      from generate_series(0, $5 - 1) g order by g`, [c, userIds, size.businesses, bizBase, size.contacts])
  const C = await firstId(client, 'contacts', c)
  const { rows: [range] } = await client.query<{ hi: number; n: number }>(
    'select max(id) as hi, count(*) as n from contacts where company_id = $1', [c])
  if (range?.hi !== C + size.contacts - 1 || range.n !== size.contacts) throw new Error('contact ids are not contiguous')
  /** Contact index g → a live contact index (deleted ones, g % 100 = 99, move to g - 1). */
  const live = (g: string) => `(case when (${g}) % 100 = 99 then (${g}) - 1 else (${g}) end)`

  await step(client, 'tags', `
    insert into tags (company_id, name, color)
    select $1::bigint, t, '#' || lpad(to_hex(pg_temp.h(i, 12) % 16777216), 6, '0') from unnest(${textArray(TAGS)}) with ordinality as x(t, i) order by i`, [c])
  const tagBase = await firstId(client, 'tags', c)
  await step(client, 'contact tags', `
    insert into contact_tags (company_id, contact_id, tag_id)
    select $1::bigint, $2::bigint + g, $3::bigint + (pg_temp.h(g, 13) % ${TAGS.length} + k) % ${TAGS.length}
      from generate_series(0, $4 - 1) g, generate_series(0, 1) k
     where pg_temp.h(g, 14) % 3 = 0 and (k = 0 or pg_temp.h(g, 14) % 9 = 0)`, [c, C, tagBase, size.contacts])

  await step(client, 'custom fields', `
    insert into custom_fields (company_id, field, kind, options) values
      ($1, 'Size', 'dropdown', '[{"name":"S"},{"name":"M"},{"name":"L"},{"name":"XL"}]'),
      ($1, 'Source', 'input', '[]'), ($1, 'Birthday', 'date', '[]'), ($1, 'Notes', 'textarea', '[]'),
      ($1, 'Assistant phone', 'telephone', '[]')`, [c])
  const fieldBase = await firstId(client, 'custom_fields', c)
  await step(client, 'custom values', `
    insert into contact_custom_values (company_id, contact_id, custom_field_id, value)
    select $1::bigint, $2::bigint + g, $3::bigint + f,
           case f when 0 then (array['S','M','L','XL'])[1 + pg_temp.h(g, 15) % 4]
                  when 1 then (array['Website','Referral','Event','Cold outreach','LinkedIn'])[1 + pg_temp.h(g, 16) % 5]
                  else to_char(date '1960-01-01' + pg_temp.h(g, 17) % 15000, 'YYYY-MM-DD') end
      from generate_series(0, $4 - 1) g, generate_series(0, 2) f
     where pg_temp.h(g, 18) % 5 = 0 and (f < 2 or g % 2 = 0)`, [c, C, fieldBase, size.contacts])

  // The tags and custom fields each contact keeps beside it (migrations/0020), which the
  // triggers keep elsewhere: this session has them off. One set-based update, not the
  // triggers' contacts_keep_children: its contact-at-a-time loop took 188 s here, this 37 s.
  await step(client, 'contacts\' tags and fields', `
    update contacts c
       set tags_json = contact_tags_json(c.company_id, c.id), custom_fields_json = contact_custom_values_json(c.company_id, c.id)
     where c.company_id = $1
       and (exists (select from contact_tags ct where ct.company_id = c.company_id and ct.contact_id = c.id)
            or exists (select from contact_custom_values v where v.company_id = c.company_id and v.contact_id = c.id))`, [c])

  // History: every contact's creation, and a long one for the whale (contact 0).
  await step(client, 'contact events', `
    insert into contact_events (company_id, contact_id, kind, user_id, data, occurred_at)
    select $1::bigint, $3::bigint + g, 'contact_created'::contact_event_kind, ${owner('g')}, '{}'::jsonb, now() - make_interval(secs => ($4 - g) * 90)
      from generate_series(0, $4 - 1) g
    union all
    select $1::bigint, $3::bigint, 'stage_changed'::contact_event_kind, ${owner('0')},
           jsonb_build_object('from', (${textArray(STAGES)})[1 + e % 8], 'to', (${textArray(STAGES)})[1 + (e + 1) % 8]),
           now() - make_interval(secs => ($5 - e) * 60)
      from generate_series(0, $5 - 1) e`, [c, userIds, C, size.contacts, size.whaleEvents])

  // Flows: one per user, five steps each; enrollment e is contact 8e (never a deleted one) in flow e % flows.
  const flows = await step<{ id: number }>(client, 'flows', `
    insert into flows (company_id, user_id, name, status)
    select $1::bigint, u, 'Outbound cadence ' || i, case when i % 5 = 0 then 'paused'::flow_status else 'active' end
      from unnest($2::bigint[]) with ordinality as x(u, i) order by i
    returning id`, [c, userIds])
  const flowIds = flows.map((f) => f.id).sort((a, b) => a - b)
  const F = flowIds.length
  await step(client, 'flow steps', `
    insert into flow_steps (company_id, flow_id, position, day, kind, title)
    select $1::bigint, f, s.position, s.day, s.kind::task_kind, s.title
      from unnest($2::bigint[]) f,
           (select * from unnest($3::int[], $4::int[], $5::text[], $6::text[]) as s(position, day, kind, title)) s`,
  [c, flowIds, FLOW_STEPS.map((_, i) => i + 1), FLOW_STEPS.map((s) => s[0]), FLOW_STEPS.map((s) => s[1]), FLOW_STEPS.map((s) => s[2])])
  const enrollments = Math.floor(size.flowTasks / FLOW_STEPS.length)
  await step(client, 'flow enrollments', `
    insert into flow_enrollments (company_id, flow_id, contact_id, status, added_at)
    select $1::bigint, ($2::bigint[])[1 + e % ${F}], $3::bigint + (e * 8) % $4,
           case when e % 5 = 4 then 'finished'::flow_enrollment_status else 'active' end,
           now() - make_interval(days => 300 - (e * 600 / $5))
      from generate_series(0, $5 - 1) e order by e`, [c, flowIds, C, size.contacts, enrollments])
  const enrollBase = await firstId(client, 'flow_enrollments', c)

  // Tasks: flow task t is step t % 5 of enrollment t / 5; the others belong to a random
  // live contact. Due days spread over ±300 days around today (in the company's zone);
  // 80 % of the past ones and 5 % of the others are done, on their due day or today.
  const kinds = textArray(TASK_KINDS)
  await step(client, 'tasks', `
    with t as (
      select g,
             g < $6 as in_flow,
             case when g < $6 then (g / 5) * 8 % $5 else ${live(`pg_temp.h(g, 19) % $5`)} end as contact,
             (now() at time zone $7)::date - 300
               + case when g < $6 then ((g / 5) * 600 / ($6 / 5))::int + (array[0, 2, 4, 7, 10])[1 + g % 5]
                      else pg_temp.h(g, 20) % 601 end as due,
             (now() at time zone $7)::date as today
        from generate_series(0, $4 - 1) g
    ), d as (
      select t.*, (due < today and pg_temp.h(g, 21) % 10 < 8) or pg_temp.h(g, 21) % 20 = 0 as done from t
    )
    insert into tasks (company_id, kind, title, due_date, done, done_at, done_on, assigned_to_id, flow_id, enrollment_id, contact_id)
    select $1,
           (case when in_flow then (array['email', 'linkedin', 'phonecall', 'email', 'meeting'])[1 + g % 5]
                 else (${kinds})[1 + pg_temp.h(g, 22) % 5] end)::task_kind,
           case when in_flow then (array['Introduction email', 'Connect on LinkedIn', 'First call', 'Follow-up email', 'Discovery meeting'])[1 + g % 5]
                else 'Task ' || g end,
           due, done,
           case when done then least((least(due, today)::timestamp + interval '15 hours') at time zone $7, now()) end,
           case when done then least(due, today) end,
           ${owner('contact')},
           case when in_flow then ($9::bigint[])[1 + (g / 5) % ${F}] end,
           case when in_flow then $8::bigint + g / 5 end,
           $3::bigint + contact
      from d order by g`, [c, userIds, C, size.tasks, size.contacts, size.flowTasks, timezone, enrollBase, flowIds])
  const taskBase = await firstId(client, 'tasks', c)

  // Leads: 30 % carry the email of a live contact and are linked to it (lead l ↔ contact l).
  const providers = textArray(['linkedin', 'apollo', 'hubspot'])
  await step(client, 'leads', `
    insert into leads (company_id, user_id, contact_id, first_name, last_name, email, provider, position, city, country,
                       degree_of_connection, business_name, business_sector)
    select $1::bigint, (${U})[1 + pg_temp.h(l, 23) % ${size.users}],
           case when l % 10 < 3 and l < $4 then $3::bigint + l end,
           pg_temp.first_name(l + 7), pg_temp.last_name(l + 7),
           case when l % 10 < 3 and l < $4 then pg_temp.email(l) else 'lead' || l || '@prospects.example' end,
           (${providers})[1 + l % 3],
           (${textArray(POSITIONS)})[1 + pg_temp.h(l, 24) % ${POSITIONS.length}],
           'São Paulo', 'Brazil', 1 + pg_temp.h(l, 25) % 3,
           case when l % 2 = 0 then ${businessName('(pg_temp.h(l, 26) % 50000)')} end,
           case when l % 2 = 0 then (${textArray(SECTORS)})[1 + l % ${SECTORS.length}] end
      from generate_series(0, $5 - 1) l order by l`, [c, userIds, C, size.contacts, size.leads])

  // Transcriptions: 10 % recording, 20 % stopped, 70 % transcribed; 40 % linked to a task.
  await step(client, 'meet transcriptions', `
    insert into meet_transcriptions (company_id, user_id, meet_id, status, stopped_at, transcript, transcript_length, task_id,
                                     created_at, updated_at)
    select $1::bigint, (${U})[1 + pg_temp.h(m, 27) % ${size.users}],
           'mtg-' || to_hex(pg_temp.h(m, 28)) || '-' || m,
           (case when m % 10 = 0 then 'recording' when m % 10 < 3 then 'stopped' else 'transcribed' end)::meet_transcription_status,
           case when m % 10 <> 0 then now() - make_interval(mins => ($4 - m)) end,
           case when m % 10 >= 3 then repeat('Speaker ' || (m % 3) || ': ' || (${textArray(MESSAGES)})[1 + m % 10] || ' ', 1 + m % 8) end,
           case when m % 10 >= 3 then char_length(repeat('Speaker ' || (m % 3) || ': ' || (${textArray(MESSAGES)})[1 + m % 10] || ' ', 1 + m % 8)) end,
           case when pg_temp.h(m, 29) % 5 < 2 then $3::bigint + pg_temp.h(m, 30) % $5 end,
           now() - make_interval(mins => ($4 - m) + 60), now() - make_interval(mins => ($4 - m))
      from generate_series(0, $4 - 1) m order by m`, [c, userIds, taskBase, size.transcriptions, size.tasks])

  // WhatsApp: the whale (contact 0) talks with four users; then contacts 1, 2, … twenty
  // messages each with their owner. Ids and sent_at grow together.
  await step(client, 'whatsapp messages', `
    insert into whatsapp_messages (company_id, contact_id, user_id, direction, body, status, sent_at)
    select $1::bigint, $3::bigint + contact, user_id,
           (case when m % 2 = 0 then 'outbound' else 'inbound' end)::whatsapp_direction,
           (${textArray(MESSAGES)})[1 + pg_temp.h(m, 31) % 10],
           (case when m % 2 = 1 then 'received' else (array['sent','delivered','read','read','failed'])[1 + pg_temp.h(m, 32) % 5] end)::whatsapp_status,
           now() - make_interval(secs => ($4 - m) * 15)
      from (select m, case when m < $5 then 0 else ${live(`1 + (m - $5) / 20`)} end as contact,
                   case when m < $5 then (${U})[1 + m % least(4, ${size.users})] else ${owner(live(`1 + (m - $5) / 20`))} end as user_id
              from generate_series(0, $4 - 1) m) x
     order by m`, [c, userIds, C, size.messages, size.whaleMessages])
  await step(client, 'whatsapp chats', `
    insert into whatsapp_chats (company_id, contact_id, user_id, messages_count, last_message_id, last_message_at)
    select $1::bigint, contact_id, user_id, count(*), max(id), max(sent_at)
      from whatsapp_messages where company_id = $1 group by contact_id, user_id`, [c])

  return {
    companyId: c,
    name,
    timezone,
    userIds,
    whaleContactId: C,
    typicalContactId: C + 8, // enrolled in a flow, with messages and tasks
    flowIds,
    size,
  }
}

/**
 * The `counters` rows of a company, computed from its rows exactly as the services keep them
 * (src/db/counters.ts and the modules named below). A change in a module's counters must be
 * mirrored here; the scale run compares a few totals with COUNT(*) to catch a drift.
 */
async function writeCounters(client: pg.Client, companyId: number) {
  await client.query('delete from counters where company_id = $1', [companyId])
  const day = (col: string) => `(${col} - date '1970-01-01')`
  const kind = `(array_position(${textArray(TASK_KINDS)}, kind::text) - 1)`
  const stage = (column: string) => `(array_position(enum_range(null::contact_stage), ${column}) - 1)`
  await step(client, 'counters', `
    insert into counters (company_id, list, key, value)
    -- contacts.service.ts: live contacts, and per owner
    select $1::bigint, 'contacts', 0, count(*) from contacts where company_id = $1 and deleted_at is null
    union all select $1::bigint, 'contacts_by_user', user_id, count(*) from contacts where company_id = $1 and deleted_at is null group by user_id
    -- migrations/0026_contact_list_filters.sql: live contacts by stage, by owner and stage, by tag
    union all select $1::bigint, 'contacts_by_stage', ${stage('stage')}, count(*)
      from contacts where company_id = $1 and deleted_at is null and stage is not null group by stage
    union all select $1::bigint, 'contacts_by_user_stage', user_id * 8 + ${stage('stage')}, count(*)
      from contacts where company_id = $1 and deleted_at is null and stage is not null group by user_id, stage
    union all select $1::bigint, 'contacts_by_tag', ct.tag_id, count(*)
      from contact_tags ct
     cross join lateral (select from contacts c where c.company_id = ct.company_id and c.id = ct.contact_id and c.deleted_at is null limit 1) live
     where ct.company_id = $1 group by ct.tag_id
    -- task-counters.ts
    union all select $1::bigint, 'tasks', 0, count(*) from tasks where company_id = $1
    union all select $1::bigint, 'tasks.done', 0, count(*) from tasks where company_id = $1 and done
    union all select $1::bigint, 'tasks.assignee', assigned_to_id, count(*) from tasks where company_id = $1 group by assigned_to_id
    union all select $1::bigint, 'tasks.assignee.done', assigned_to_id, count(*) from tasks where company_id = $1 and done group by assigned_to_id
    union all select $1::bigint, 'tasks.flow', flow_id, count(*) from tasks where company_id = $1 and flow_id is not null group by flow_id
    union all select $1::bigint, 'tasks.flow.done', flow_id, count(*) from tasks where company_id = $1 and flow_id is not null and done group by flow_id
    union all select $1::bigint, 'tasks.kind', ${kind}, count(*) from tasks where company_id = $1 group by kind
    union all select $1::bigint, 'tasks.kind.done', ${kind}, count(*) from tasks where company_id = $1 and done group by kind
    union all select $1::bigint, 'tasks.due', ${day('due_date')}, count(*) from tasks where company_id = $1 group by due_date
    union all select $1::bigint, 'tasks.open_due', ${day('due_date')}, count(*) from tasks where company_id = $1 and not done group by due_date
    union all select $1::bigint, 'tasks.done_on', ${day('done_on')}, count(*) from tasks where company_id = $1 and done group by done_on
    union all select $1::bigint, 'tasks.due.u' || assigned_to_id, ${day('due_date')}, count(*) from tasks where company_id = $1 group by assigned_to_id, due_date
    union all select $1::bigint, 'tasks.open_due.u' || assigned_to_id, ${day('due_date')}, count(*) from tasks where company_id = $1 and not done group by assigned_to_id, due_date
    union all select $1::bigint, 'tasks.done_on.u' || assigned_to_id, ${day('done_on')}, count(*) from tasks where company_id = $1 and done group by assigned_to_id, done_on
    union all select $1::bigint, 'tasks.due.k' || ${kind}, ${day('due_date')}, count(*) from tasks where company_id = $1 group by kind, due_date
    union all select $1::bigint, 'tasks.open_due.k' || ${kind}, ${day('due_date')}, count(*) from tasks where company_id = $1 and not done group by kind, due_date
    union all select $1::bigint, 'tasks.kind.u' || assigned_to_id, ${kind}, count(*) from tasks where company_id = $1 group by assigned_to_id, kind
    union all select $1::bigint, 'tasks.kind.done.u' || assigned_to_id, ${kind}, count(*) from tasks where company_id = $1 and done group by assigned_to_id, kind
    union all select $1::bigint, 'tasks.flow.u' || assigned_to_id, flow_id, count(*) from tasks where company_id = $1 and flow_id is not null group by assigned_to_id, flow_id
    union all select $1::bigint, 'tasks.flow.done.u' || assigned_to_id, flow_id, count(*) from tasks where company_id = $1 and flow_id is not null and done group by assigned_to_id, flow_id
    -- flows.repository.ts: active enrollments per flow
    union all select $1::bigint, 'flows.contacts', flow_id, count(*) from flow_enrollments where company_id = $1 and status = 'active' group by flow_id
    -- leads.repository.ts and lead-links.ts: leads per creator, and those linked to a contact
    union all select $1::bigint, 'leads', user_id, count(*) from leads where company_id = $1 group by user_id
    union all select $1::bigint, 'leads_linked', user_id, count(*) from leads where company_id = $1 and contact_id is not null group by user_id
    -- meet-transcriptions.repository.ts: per user, and those linked to a task
    union all select $1::bigint, 'meet_transcriptions', user_id, count(*) from meet_transcriptions where company_id = $1 group by user_id
    union all select $1::bigint, 'meet_transcriptions_linked', user_id, count(*) from meet_transcriptions where company_id = $1 and task_id is not null group by user_id`,
  [companyId])
  // contacts.repository.ts: the one- and two-character grams of live contacts' search texts,
  // the company's, each owner's and each stage's, as the search fold worker would leave them
  // (the triggers that queue changes are off here).
  await step(client, 'search gram counters', `
    with grams as materialized (
      select distinct c.id, c.user_id, array_position(enum_range(null::contact_stage), c.stage) - 1 as stage, g.tail, g.head
        from contacts c, contact_search_grams(c.search_text) g
       where c.company_id = $1 and c.deleted_at is null
    )
    insert into counters (company_id, list, key, value)
    select $1::bigint, 'contacts.gram:' || tail, head, count(*) from grams group by tail, head
    union all
    select $1::bigint, 'contacts.user_gram:' || tail, user_id * 1114112 + head, count(*) from grams group by tail, user_id, head
    union all
    select $1::bigint, 'contacts.stage_gram:' || tail, stage * 1114112 + head, count(*) from grams where stage is not null group by tail, stage, head`,
  [companyId])
}

/** Creates (or re-creates) the database and applies the migrations the way the app does. */
async function createDatabase(adminUrl: string, url: string, name: string) {
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`)
  } finally {
    await admin.end()
  }
  const handle = await openDatabase({ databaseUrl: url })
  await handle.close()
}

async function readInfo(adminUrl: string, name: string): Promise<ScaleInfo | undefined> {
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    const { rows } = await admin.query<{ comment: string | null }>(
      `select shobj_description(oid, 'pg_database') as comment from pg_database where datname = $1`, [name])
    const comment = rows[0]?.comment
    if (!comment) return undefined
    return JSON.parse(comment) as ScaleInfo
  } catch {
    return undefined
  } finally {
    await admin.end()
  }
}

/** A session for bulk writes: no FK triggers (the data is consistent by construction), big sorts. */
async function bulkSession(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, options: '-c timezone=UTC' })
  await client.connect()
  await client.query(`set session_replication_role = replica; set maintenance_work_mem = '512MB'; set work_mem = '256MB';
                      set statement_timeout = 0; set synchronous_commit = off`)
  await defineHelpers(client)
  return client
}

/**
 * The scale database, generated when missing, when its hash differs from schemaHash(), or
 * when `regenerate` is set. Returns its URL and what the scenarios need to know.
 */
export async function ensureScaleData(adminUrl: string, options: { regenerate?: boolean; name?: string } = {}) {
  const name = options.name ?? 'engage_scale'
  const url = scaleDatabaseUrl(adminUrl, name)
  const hash = schemaHash()
  const existing = await readInfo(adminUrl, name)
  if (existing && existing.hash === hash && !options.regenerate) {
    log(`using ${name} generated ${existing.generatedAt} (hash ${hash}); --regenerate to make it again`)
    return { url, info: existing }
  }
  log(existing ? `regenerating ${name} (${existing.hash === hash ? 'asked' : 'schema or generator changed'})` : `generating ${name}`)
  const started = Date.now()
  await createDatabase(adminUrl, url, name)
  const client = await bulkSession(url)
  let info: ScaleInfo
  try {
    // Secondary indexes are built once after the load instead of row by row (GIN trigram
    // indexes especially); primary keys stay, the load is in their order.
    const { rows: indexes } = await client.query<{ name: string; def: string }>(`
      select i.relname as name, pg_get_indexdef(i.oid) as def
        from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
        join pg_namespace n on n.oid = t.relnamespace
       where n.nspname = 'public' and not x.indisprimary`)
    for (const index of indexes) await client.query(`drop index ${pg.escapeIdentifier(index.name)}`)
    log(`dropped ${indexes.length} secondary indexes for the load`)
    const big = await writeCompany(client, 'Scale Co', 'America/Sao_Paulo', SCALE)
    await writeCounters(client, big.companyId)
    for (const index of indexes) {
      await step(client, `index ${index.name}`, index.def)
    }
    await step(client, 'vacuum analyze', 'vacuum (analyze)')
    const seconds = Math.round((Date.now() - started) / 1000)
    info = { hash, generatedAt: new Date().toISOString(), seconds, big }
    await client.query(`comment on database ${pg.escapeIdentifier(name)} is ${pg.escapeLiteral(JSON.stringify(info))}`)
    log(`generated in ${seconds} s`)
  } finally {
    await client.end()
  }
  return { url, info }
}

/**
 * One more company of `size` in an existing (migrated) database, with its counters; analyzed
 * when asked, and vacuumed unless `vacuum: false` (a database just after a bulk import, whose
 * tables the planner knows neither by statistics nor by pg_class's counts).
 */
export async function addCompany(
  url: string,
  name: string,
  size: CompanySize,
  options: { analyze: boolean; vacuum?: boolean },
): Promise<CompanyInfo> {
  const client = await bulkSession(url)
  try {
    const info = await writeCompany(client, name, 'America/Sao_Paulo', size)
    await writeCounters(client, info.companyId)
    if (options.analyze) await client.query('vacuum (analyze)')
    else if (options.vacuum !== false) await client.query('vacuum')
    return info
  } finally {
    await client.end()
  }
}

/**
 * A new company of FRESH size written right now, with no ANALYZE afterwards: its rows are
 * in no statistics. Earlier fresh companies are removed first (and vacuumed, not analyzed).
 */
export function addFreshCompany(url: string): Promise<CompanyInfo> {
  return replaceCompany(url, 'Fresh', FRESH, 'Asia/Tokyo')
}

/** The company of the workspace's pages at a thousand contacts (bench/workspace.ts). */
export const THOUSAND: CompanySize = {
  contacts: 1_000,
  tasks: 1_000,
  flowTasks: 500,
  leads: 1_000,
  transcriptions: 200,
  messages: 2_000,
  whaleMessages: 200,
  whaleEvents: 50,
  users: 5,
  businesses: 100,
}

/**
 * A new company of `size` named `<prefix> <now>`, written without ANALYZE, after removing
 * the earlier companies of that prefix; then VACUUM (the visibility map and hint bits of a
 * company that has been there a while, for index-only scans), statistics left unknown.
 */
export async function replaceCompany(url: string, prefix: string, size: CompanySize, timezone: string): Promise<CompanyInfo> {
  const client = await bulkSession(url)
  try {
    const { rows } = await client.query<{ id: number }>(`select id from companies where name like $1`, [`${prefix} %`])
    for (const { id } of rows) {
      // Children first: with triggers off, the cascades do not run.
      for (const table of ['counters', 'contact_search_changes', 'whatsapp_chats', 'whatsapp_messages', 'meet_transcriptions', 'leads', 'tasks',
        'flow_enrollments', 'flow_steps', 'flows', 'contact_events', 'contact_custom_values', 'custom_fields',
        'contact_tags', 'tags', 'contacts', 'businesses', 'audit_events', 'web_sessions', 'api_tokens', 'users']) {
        await client.query(`delete from ${table} where company_id = $1`, [id])
      }
      await client.query('delete from companies where id = $1', [id])
    }
    const company = await writeCompany(client, `${prefix} ${new Date().toISOString()}`, timezone, size)
    await writeCounters(client, company.companyId)
    await step(client, 'vacuum (no analyze)', 'vacuum')
    return company
  } finally {
    await client.end()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const { info } = await ensureScaleData(adminUrl, { regenerate: process.argv.includes('--regenerate') })
  process.stdout.write(JSON.stringify(info) + '\n')
}
