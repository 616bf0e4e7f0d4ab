// The test files `npm test` runs, the slow ones first: the runner starts files in the order
// given, two at a time, and a slow file started last runs alone at the end while the other
// worker idles. The list: files by their time in a whole run (docs/performance.md, "Test
// suite time"), slowest first; a file not listed runs after them, in path order. Re-measure
// and reorder when a file gets slow (a browser test, a child process, a long wait).
// test/upgrade/ is left out: it builds and runs the previous release (`npm run test:upgrade`, in CI).
import { readdirSync } from 'node:fs'

const SLOW_FIRST = [
  'test/docs/admin-json.test.ts',
  'test/docs/every-example.test.ts',
  'test/web/workspace-browser.test.ts',
  'test/web/workspace-tasks-browser.test.ts',
  'test/web/leads-browser.test.ts',
  'test/web/meetings-browser.test.ts',
  'test/oauth/oauth4webapi.test.ts',
  'test/imports/import-page.test.ts',
  'test/api/idempotency-crash.test.ts',
  'test/server.test.ts',
  'test/web/browser.test.ts',
  'test/oauth/browser.test.ts',
  'test/web/web.test.ts',
  'test/http/hostile-input.test.ts',
  'test/webhooks/delivery.test.ts',
  'test/drills/database.test.ts',
  'test/oauth/flow.test.ts',
  'test/db/plans.test.ts',
  'test/web/webhooks.test.ts',
  'test/contacts/contacts-search.test.ts',
  'test/sdk/sdk.test.ts',
  'test/web/admin.test.ts',
  'test/webhooks/restart.test.ts',
  'test/imports/import-restart.test.ts',
  'test/contacts/contacts-batch.test.ts',
  'test/webhooks/subscriptions.test.ts',
  'test/db/embedded-failures.test.ts',
  'test/docs/walkthroughs.test.ts',
  'test/web/demo.test.ts',
  'test/web/access.test.ts',
  'test/audit/list.test.ts',
  'test/oauth/conformance.test.ts',
  'test/fuzz/oauth-fields.test.ts',
  'test/web/hostile-forms.test.ts',
  'test/fuzz/every-field.test.ts',
  'test/operations/backup-restore.test.ts',
  'test/db/test-cluster.test.ts',
  'test/db/embedded-root.test.ts',
  'test/imports/contact-imports.test.ts',
]

const all = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts') && !file.startsWith('upgrade'))
  .map((file) => `test/${file.split('\\').join('/')}`)
  .sort()
const first = SLOW_FIRST.filter((file) => all.includes(file))
console.log([...first, ...all.filter((file) => !first.includes(file))].join('\n'))
