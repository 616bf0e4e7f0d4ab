// A refused sign-in takes as long for an email that has an account as for one that has none
// (issue 38 §5): the refusal's audit record is written after the answer, not before. The
// answer must come while audit_events is locked (a wrong password and over the rate limit);
// and over the rate limit, where no password check hides a few milliseconds, samples of the
// two are interleaved (so a busy machine slows both alike) and the median of the paired
// differences stays under a millisecond (writing the record first made it about ten).
import assert from 'node:assert/strict'
import { performance } from 'node:perf_hooks'
import { after, describe, test, type TestContext } from 'node:test'
import type pg from 'pg'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant } from '../helpers/factories.js'
import { rawRows, sql } from '../helpers/sql.js'
import { Browser, csrfOf, member, type Response } from './helpers.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

const KNOWN = 'known@timing.example'
const UNKNOWN = 'unknown@timing.example'
const PAIRS = 150
const TOLERANCE_MS = 1

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

/**
 * Refused sign-ins with a wrong password, of the known email and of the unknown one in turn
 * (which goes first alternates): the median of the known one's extra time, in ms.
 */
async function extraTimeOfKnown(t: TestContext, app: TestApp, status: number): Promise<number> {
  const browser = new Browser(app.app, '192.0.2.44')
  const csrf = csrfOf((await browser.get('/login')).body)
  if (status === 429) await browser.request('POST', '/login', { email: UNKNOWN, password: 'not the password', _csrf: csrf }) // spends the window's attempt
  const attempt = async (email: string) => {
    const started = performance.now()
    const res = await browser.request('POST', '/login', { email, password: 'not the password', _csrf: csrf })
    const took = performance.now() - started
    assert.equal(res.status, status)
    return took
  }
  for (let i = 0; i < 10; i++) await attempt(i % 2 === 0 ? KNOWN : UNKNOWN) // warm up both paths
  const differences: number[] = []
  for (let i = 0; i < PAIRS; i++) {
    if (i % 2 === 0) {
      const known = await attempt(KNOWN)
      differences.push(known - (await attempt(UNKNOWN)))
    } else {
      const unknown = await attempt(UNKNOWN)
      differences.push((await attempt(KNOWN)) - unknown)
    }
  }
  const extra = median(differences)
  t.diagnostic(`median extra time of a known email: ${extra.toFixed(3)} ms over ${String(PAIRS)} pairs`)
  return extra
}

/** The known email's refusals were all recorded (after their answers). */
async function refusalsRecorded(app: TestApp, reason: string, atLeast: number) {
  const until = Date.now() + 5000
  for (;;) {
    const [row] = await rawRows<{ count: number }>(
      app.db,
      sql`select count(*)::int as count from audit_events where action = 'user.sign_in_refused' and reason = ${reason}`,
    )
    if ((row?.count ?? 0) >= atLeast || Date.now() > until) return row?.count ?? 0
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('a refused sign-in takes as long whether the email has an account or not', () => {
  const apps: TestApp[] = []
  after(async () => {
    for (const app of apps) await app.close()
  })

  test('the answer does not wait for the audit record: 401 and 429 arrive while audit_events is locked', async () => {
    const app = await startApp(backend, { config: { signInLimit: { max: 1, windowMs: 600_000 } } })
    apps.push(app)
    const acme = await tenant(app.db)
    await member(app.db, acme.companyId, { email: KNOWN })
    const locker = await (app.db as pg.Pool).connect()
    try {
      await locker.query('begin')
      await locker.query('lock table audit_events in exclusive mode')
      const answered = (attempt: Promise<Response>) =>
        Promise.race([
          attempt.then((res) => res.status),
          new Promise<string>((resolve) => setTimeout(() => { resolve('no answer while the record waits for its lock'); }, 5000)),
        ])
      assert.equal(await answered(new Browser(app.app, '192.0.2.1').signIn(KNOWN, 'not the password')), 401)
      const limited = new Browser(app.app, '192.0.2.2')
      assert.equal(await answered(limited.signIn(UNKNOWN, 'not the password')), 401)
      assert.equal(await answered(limited.signIn(KNOWN, 'not the password')), 429)
    } finally {
      await locker.query('rollback')
      locker.release()
    }
    assert.equal(await refusalsRecorded(app, 'wrong_password', 1), 1)
    assert.equal(await refusalsRecorded(app, 'rate_limited', 1), 1)
  })

  test('over the rate limit (429, no password check to hide it): the median of paired differences is under a millisecond', async (t) => {
    // One attempt a window per address: every attempt after the first is refused unchecked.
    const app = await startApp(backend, { config: { signInLimit: { max: 1, windowMs: 600_000 } } })
    apps.push(app)
    const acme = await tenant(app.db)
    await member(app.db, acme.companyId, { email: KNOWN })
    const extra = await extraTimeOfKnown(t, app, 429)
    assert.ok(Math.abs(extra) < TOLERANCE_MS, `a known email answered ${extra.toFixed(3)} ms later`)
    assert.equal(await refusalsRecorded(app, 'rate_limited', 5 + PAIRS), 5 + PAIRS)
  })
})
