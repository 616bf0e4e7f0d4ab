// The walk-throughs in docs/ run as written against a fresh start with the demo data: each
// ```sh block after a `<!-- walk-through -->` line is read as a shell user would paste it
// (line continuations, quotes, $TOKEN), every curl is sent to the app in order, and the
// status written under it (`# 201 …`) must be the one answered.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { seedDemoIfEmpty } from '../../src/demo/index.js'
import { backends, startApp } from '../helpers/app.js'
import { curlRequest, walkThroughSteps, words } from '../helpers/shell.js'

const [backend] = backends()
const PAGES = ['contacts.md', 'flows-and-tasks.md', 'leads-meetings-whatsapp.md']

describe('the walk-throughs in docs/ against a fresh start with the demo data', () => {
  for (const page of PAGES) {
    test(page, async () => {
      if (!backend) throw new Error('no backend')
      const markdown = readFileSync(fileURLToPath(new URL(`../../docs/${page}`, import.meta.url)), 'utf8')
      const steps = walkThroughSteps(markdown)
      assert.ok(steps.length >= 4, `${page} has a walk-through`)
      const t = await startApp(backend)
      try {
        const demo = await seedDemoIfEmpty(t.db)
        assert.ok(demo)
        for (const step of steps) {
          assert.ok(step.status, `every command says what it answers (# 201 …): ${step.command}`)
          const response: { statusCode: number; body: string } = await t.app.inject(curlRequest(words(step.command, { TOKEN: demo.token })))
          assert.equal(response.statusCode, step.status, `${step.command}\n  answered ${response.body}`)
        }
      } finally {
        await t.close()
      }
    })
  }
})
