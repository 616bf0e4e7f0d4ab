// Demo transcriptions: a dozen meetings of the demo users in every state (recording,
// stopped, transcribed), some linked to tasks made by the flows/tasks seeder.
import type { DemoSeeder } from '../../demo/seeder.js'
import { firstTaskIds, insertTranscription, stopRecording } from './meet-transcriptions.repository.js'
import { linkToTask, setTranscript } from './meet-transcriptions.service.js'

const HOUR_MS = 3_600_000
const COUNT = 12
const LINES = [
  'Ana: Thanks for joining. Shall we start with your current process?',
  'Client: Sure. Today we track every lead in spreadsheets, and follow-ups slip.',
  'Ana: How many people touch a lead before it becomes an opportunity?',
  'Client: Three, usually: an SDR, an account executive and sometimes the CEO.',
  'Ana: Then flows with tasks per step would give each of them a clear queue.',
  'Client: That sounds right. Can you send a proposal by Friday?',
]

export const seedMeetTranscriptions: DemoSeeder = async ({ db, companyId, userIds, now, random }) => {
  const taskIds = await firstTaskIds(db, companyId, COUNT)
  for (let i = 0; i < COUNT; i++) {
    const userId = userIds[i % userIds.length]
    if (userId === undefined) throw new Error('demo company has no user')
    const meetId = `${Math.floor(random() * 1e3)}-demo-${String(i).padStart(3, '0')}`
    const row = await insertTranscription(db, companyId, { userId, meetId })
    const state = i % 3 // 0 recording, 1 stopped, 2 transcribed
    if (state >= 1) {
      const stoppedAt = new Date(now.getTime() - (COUNT - i) * 6 * HOUR_MS)
      await stopRecording(db, companyId, row.id, { at: stoppedAt })
    }
    if (state === 2) {
      await setTranscript(db, companyId, row.id, LINES.slice(0, 2 + (i % LINES.length)).join('\n'))
    }
    const taskId = taskIds[i]
    if (i % 2 === 0 && taskId !== undefined) await linkToTask(db, { companyId, userId }, row.id, taskId)
  }
}
