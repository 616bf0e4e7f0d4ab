// Demo contacts: ~200 people over the demo users and a couple dozen businesses, every
// stage, a handful of tags and custom fields of several kinds with values; written with
// a few multi-row inserts, with their contact_created events and the list counters.
import { adjustCounter } from '../../db/counters.js'
import type { DemoSeeder } from '../../demo/seeder.js'
import { insertBusinesses } from '../businesses/index.js'
import { insertCustomFields } from '../custom-fields/index.js'
import { recordContactEvents } from '../events/index.js'
import { insertTags } from '../tags/index.js'
import { insertContacts, insertContactTags, insertCustomValues, type ContactInsert } from './contacts.repository.js'
import { STAGES } from './contacts.schemas.js'
import { CONTACTS_BY_USER_COUNTER, CONTACTS_COUNTER } from './contacts.service.js'

const CONTACTS = 200
const DAY_MS = 86_400_000

const FIRST_NAMES = [
  'Ana', 'Bruno', 'Carla', 'Daniel', 'Eduarda', 'Felipe', 'Gabriela', 'Henrique', 'Isabela', 'João', 'Larissa', 'Marcos',
  'Natália', 'Otávio', 'Paula', 'Rafael', 'Sofia', 'Thiago', 'Vanessa', 'William', 'Emma', 'Liam', 'Olivia', 'Noah',
  'Mia', 'Lucas', 'Chloé', 'Mateo', 'Hannah', 'Kenji',
]
const LAST_NAMES = [
  'Silva', 'Santos', 'Oliveira', 'Souza', 'Rodrigues', 'Ferreira', 'Alves', 'Pereira', 'Lima', 'Gomes', 'Costa', 'Ribeiro',
  'Martins', 'Carvalho', 'Almeida', 'Araújo', 'Rocha', 'Barbosa', 'Smith', 'Johnson', 'García', 'Müller', 'Dubois',
  'Tanaka', 'Rossi', 'Nakamura',
]
const POSITIONS = [
  'CEO', 'CTO', 'Head of Sales', 'Sales Manager', 'Account Executive', 'Marketing Director', 'Procurement Manager',
  'Operations Manager', 'CFO', 'Product Manager', 'IT Manager', 'Founder',
]
const PLACES: [city: string, state: string, country: string][] = [
  ['São Paulo', 'SP', 'Brazil'], ['Rio de Janeiro', 'RJ', 'Brazil'], ['Belo Horizonte', 'MG', 'Brazil'],
  ['Curitiba', 'PR', 'Brazil'], ['Porto Alegre', 'RS', 'Brazil'], ['Recife', 'PE', 'Brazil'],
  ['Lisbon', 'Lisboa', 'Portugal'], ['Austin', 'TX', 'United States'], ['Buenos Aires', 'CABA', 'Argentina'],
  ['Mexico City', 'CDMX', 'Mexico'],
]
const BUSINESSES: [name: string, sector: string, people: number][] = [
  ['Globex', 'Software', 1200], ['Initech', 'Software', 340], ['Umbrella Corp', 'Pharmaceuticals', 8000],
  ['Hooli', 'Internet', 15000], ['Stark Industries', 'Manufacturing', 22000], ['Wayne Enterprises', 'Conglomerate', 30000],
  ['Acme Logistics', 'Logistics', 560], ['Pied Piper', 'Software', 45], ['Soylent Foods', 'Food & Beverage', 900],
  ['Vandelay Industries', 'Import/Export', 120], ['Cyberdyne Systems', 'Robotics', 2100], ['Tyrell Corporation', 'Biotech', 4300],
  ['Wonka Confectionery', 'Food & Beverage', 650], ['Oceanic Airlines', 'Aviation', 9800], ['Gringotts Bank', 'Finance', 1500],
  ['Nakatomi Trading', 'Trading', 780], ['Dunder Mifflin', 'Paper', 210], ['Monarch Solutions', 'Consulting', 95],
  ['Blue Sun', 'Energy', 5400], ['Massive Dynamic', 'Research', 3100], ['Prestige Worldwide', 'Events', 12],
  ['Sterling Cooper', 'Advertising', 180], ['Bluth Company', 'Real Estate', 260], ['Los Pollos Hermanos', 'Restaurants', 1400],
]
const TAGS: [name: string, color: string][] = [
  ['Hot', '#e11d48'], ['Decision maker', '#7c3aed'], ['Partner', '#0ea5e9'],
  ['Newsletter', '#16a34a'], ['Follow up', '#f59e0b'], ['Churn risk', '#555'],
]
const SIZES = ['S', 'M', 'L', 'XL']
const SOURCES = ['Website', 'Referral', 'Event', 'Cold outreach', 'LinkedIn']
const LANGUAGES = ['Portuguese', 'English', 'Spanish']
const NOTES = [
  'Prefers calls after 2pm.',
  'Met at the trade show; interested in the enterprise plan.',
  'Budget approved for next quarter.',
  'Asked for a case study in their sector.',
  'Champion inside the account.',
]

const ascii = (text: string) => text.normalize('NFD').replace(/[^A-Za-z0-9]/g, '').toLowerCase()
const pad = (n: number, width: number) => String(n).padStart(width, '0')

export const seedContacts: DemoSeeder = async ({ db, companyId, userIds, now, random }) => {
  const pick = <T>(list: readonly T[]): T => {
    const item = list[Math.floor(random() * list.length)]
    if (item === undefined) throw new Error('empty demo list')
    return item
  }
  const daysAgo = (max: number) => new Date(now.getTime() - Math.floor(random() * max * DAY_MS))
  const phone = () => `+55 (11) 9${pad(Math.floor(random() * 10_000), 4)}-${pad(Math.floor(random() * 10_000), 4)}`
  const start = new Date(now.getTime() - 180 * DAY_MS)

  const tags = await insertTags(db, companyId, TAGS.map(([name, color]) => ({ name, color })), start)
  const fields = await insertCustomFields(db, companyId, [
    { field: 'T-shirt size', kind: 'dropdown', options: SIZES.map((name) => ({ name })), now: start },
    { field: 'Lead source', kind: 'dropdown', options: SOURCES.map((name) => ({ name })), now: start },
    { field: 'Birthday', kind: 'date', options: [], now: start },
    { field: 'Personal email', kind: 'email', options: [], now: start },
    { field: 'Office phone', kind: 'telephone', options: [], now: start },
    { field: 'Preferred language', kind: 'input', options: [], now: start },
    { field: 'Notes', kind: 'textarea', options: [], now: start },
  ])
  const businesses = await insertBusinesses(
    db,
    companyId,
    BUSINESSES.map(([name, sector, people]) => ({
      name,
      sector,
      colaboratorsCount: people,
      linkedinUrl: `https://www.linkedin.com/company/${ascii(name)}`,
      telephone: phone(),
      createdAt: start,
    })),
  )

  // Oldest first, so that ids follow creation time.
  const created = Array.from({ length: CONTACTS }, () => daysAgo(170)).sort((a, b) => a.getTime() - b.getTime())
  const values: ContactInsert[] = created.map((createdAt, i) => {
    const firstName = pick(FIRST_NAMES)
    const lastName = pick(LAST_NAMES)
    const business = i % 10 === 9 ? undefined : pick(businesses)
    const [city, state, country] = pick(PLACES)
    const domain = business ? `${ascii(business.name)}.example` : 'mail.example'
    return {
      user_id: userIds[i % userIds.length] ?? userIds[0] ?? 0,
      first_name: firstName,
      last_name: lastName,
      email: `${ascii(firstName)}.${ascii(lastName)}${i + 1}@${domain}`,
      business: business?.name ?? null,
      business_id: business?.id ?? null,
      position: business ? pick(POSITIONS) : null,
      telephone: random() < 0.5 ? phone() : null,
      cellphone: phone(),
      city,
      state,
      country,
      url: business ? `https://www.${domain}` : null,
      linkedin: `https://www.linkedin.com/in/${ascii(firstName)}-${ascii(lastName)}-${i + 1}`,
      carousel: random() < 0.15,
      stage: STAGES[i % STAGES.length] ?? null,
      created_at: createdAt,
      updated_at: createdAt,
    }
  })
  const contacts = await insertContacts(db, companyId, values)

  const tagPairs: { contactId: number; tagId: number; createdAt: Date }[] = []
  const customValues: { contactId: number; customFieldId: number; value: string; createdAt: Date }[] = []
  const [size, source, birthday, personalEmail, officePhone, language, notes] = fields
  for (const contact of contacts) {
    for (const tag of tags) if (random() < 0.2) tagPairs.push({ contactId: contact.id, tagId: tag.id, createdAt: contact.created_at })
    const value = (field: { id: number } | undefined, chance: number, make: () => string) => {
      if (field && random() < chance) {
        customValues.push({ contactId: contact.id, customFieldId: field.id, value: make(), createdAt: contact.created_at })
      }
    }
    value(size, 0.6, () => pick(SIZES))
    value(source, 0.8, () => pick(SOURCES))
    value(birthday, 0.4, () => `${1960 + Math.floor(random() * 40)}-${pad(1 + Math.floor(random() * 12), 2)}-${pad(1 + Math.floor(random() * 28), 2)}`)
    value(personalEmail, 0.3, () => `${ascii(contact.first_name)}${Math.floor(random() * 1000)}@gmail.example`)
    value(officePhone, 0.3, phone)
    value(language, 0.5, () => pick(LANGUAGES))
    value(notes, 0.2, () => pick(NOTES))
  }
  await insertContactTags(db, companyId, tagPairs)
  await insertCustomValues(db, companyId, customValues)
  await recordContactEvents(
    db,
    companyId,
    contacts.map((contact) => ({ contactId: contact.id, kind: 'contact_created' as const, userId: contact.user_id, occurredAt: contact.created_at })),
  )

  await adjustCounter(db, companyId, CONTACTS_COUNTER, 0, contacts.length)
  const perUser = new Map<number, number>()
  for (const contact of contacts) perUser.set(contact.user_id, (perUser.get(contact.user_id) ?? 0) + 1)
  for (const [userId, n] of [...perUser].sort((a, b) => a[0] - b[0])) {
    await adjustCounter(db, companyId, CONTACTS_BY_USER_COUNTER, userId, n)
  }
}
