// The demo seeds a few dozen leads from several providers and spreads them over the demo
// users. The first ones share their emails with demo contacts (which the contacts seeder
// made), so that the demo shows leads linked to contacts.
import type { DemoSeeder } from '../../demo/seeder.js'
import { firstContacts } from '../contacts/index.js'
import { createLead } from './leads-api.service.js'

const PROVIDERS = ['linkedin', 'apollo', 'hubspot', 'website']
const FIRST = ['Marta', 'Diego', 'Helena', 'Rafael', 'Lucia', 'Tomás', 'Beatriz', 'André', 'Sofia', 'Paulo', 'Clara', 'Vitor']
const LAST = ['Reis', 'Almeida', 'Costa', 'Ferreira', 'Rocha', 'Gomes', 'Martins', 'Barros', 'Teixeira', 'Pinto']
const BUSINESSES = [
  { name: 'Globex', sector: 'Logistics', size: 250, linkedin: 'https://www.linkedin.com/company/globex' },
  { name: 'Initech', sector: 'Software', size: 80, linkedin: 'https://www.linkedin.com/company/initech' },
  { name: 'Umbrella Foods', sector: 'Food & beverage', size: 1200, linkedin: 'https://www.linkedin.com/company/umbrella-foods' },
  { name: 'Vandelay Import', sector: 'Wholesale', size: 35, linkedin: 'https://www.linkedin.com/company/vandelay' },
]
const POSITIONS = ['Head of Sales', 'CEO', 'Marketing Manager', 'Procurement Lead', 'CTO', 'Operations Director']
/** Strips accents (Tomás becomes tomas) so that the demo's email addresses stay plain ASCII. */
const ascii = (text: string) => text.normalize('NFD').replace(/[\u0300-\u036f]/g, '')
const LINKED = 10
const UNLINKED = 30

export const seedLeads: DemoSeeder = async ({ db, companyId, userIds, random }) => {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T
  // The first leads are the people of the first demo contacts, so that they link; the rest are prospects of their own.
  const people = [
    ...(await firstContacts(db, companyId, LINKED)),
    ...Array.from({ length: UNLINKED }, (_, i) => {
      const firstName = FIRST[i % FIRST.length] ?? 'Lead'
      const lastName = LAST[(i * 3) % LAST.length] ?? null
      return { first_name: firstName, last_name: lastName, email: ascii(`${firstName}.${lastName ?? ''}${i}@prospects.example`.toLowerCase()) }
    }),
  ]
  for (const [i, { first_name, last_name, email }] of people.entries()) {
    const business = random() < 0.7 ? pick(BUSINESSES) : undefined
    const userId = userIds[i % userIds.length]
    if (userId === undefined) throw new Error('demo company has no user')
    await createLead(db, { companyId, userId }, {
      first_name,
      last_name,
      email,
      provider: PROVIDERS[i % PROVIDERS.length] ?? 'website',
      position: pick(POSITIONS),
      city: pick(['São Paulo', 'Lisbon', 'Porto Alegre', 'Curitiba']),
      country: pick(['Brazil', 'Portugal']),
      degree_of_connection: 1 + Math.floor(random() * 3),
      business_name: business?.name ?? null,
      business_linkedin_url: business?.linkedin ?? null,
      business_sector: business?.sector ?? null,
      business_colaborators_count: business?.size ?? null,
    })
  }
}
