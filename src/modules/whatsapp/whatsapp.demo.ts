// Demo WhatsApp conversations: a few dozen demo contacts (made by the contacts seeder),
// each talking with its owner and sometimes with another user, over the last two weeks.
import type { DemoSeeder } from '../../demo/seeder.js'
import { firstLiveContacts } from '../contacts/index.js'
import { importMessages, type NewMessage } from './whatsapp.repository.js'

const CONTACTS = 36
const MINUTE_MS = 60_000
// Turn by turn: what the user writes, and the contact's answer.
const EXCHANGES: [outbound: string, inbound: string][] = [
  ['Hi! Thanks for your interest, do you have 15 minutes this week?', 'Hello! Yes, Wednesday afternoon works for me.'],
  ['Sharing the deck we talked about.', 'Got it, thanks. I will review it with my team.'],
  ['Just checking in: any questions about the proposal?', 'Could you send the pricing for 20 seats?'],
  ['Great, I will send the invite for Thursday at 10am.', 'Perfect, see you then.'],
]

export const seedWhatsapp: DemoSeeder = async ({ db, companyId, userIds, now, random }) => {
  const contacts = await firstLiveContacts(db, companyId, CONTACTS)
  const messages: NewMessage[] = []
  for (const contact of contacts) {
    const others = userIds.filter((id) => id !== contact.user_id)
    const second = others[Math.floor(random() * others.length)]
    const people = random() < 0.3 && second !== undefined ? [contact.user_id, second] : [contact.user_id]
    for (const userId of people) {
      let at = now.getTime() - Math.floor(random() * 14 * 24 * 60) * MINUTE_MS
      const length = 3 + Math.floor(random() * 6)
      for (let i = 0; i < length; i++) {
        const outbound = i % 2 === 0
        at = Math.min(at + (5 + Math.floor(random() * 600)) * MINUTE_MS, now.getTime())
        messages.push({
          contactId: contact.id,
          userId,
          direction: outbound ? 'outbound' : 'inbound',
          status: outbound ? (['delivered', 'read', 'read', 'sent', 'failed'] as const)[Math.floor(random() * 5)] ?? 'read' : 'received',
          body: EXCHANGES[(i >> 1) % EXCHANGES.length]?.[outbound ? 0 : 1] ?? '',
          sentAt: new Date(at).toISOString(),
        })
      }
    }
  }
  await importMessages(db, companyId, messages)
}
