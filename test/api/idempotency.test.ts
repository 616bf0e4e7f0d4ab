// Idempotency-Key on POST and PUT (issue 13, item 1): the first request with a key runs and
// its answer is stored for 24 h; a retry with the same parameters gets it again without
// running; other parameters are 422; a retry while the first runs is 409; keys are per token.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Response as Reply } from 'light-my-request'
import { execute, rawRows, sql } from '../helpers/sql.js'
import { systemActing } from '../../src/acting.js'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { fingerprint, KEY_TTL_MS, pruneIdempotencyKeys, storesAnswer } from '../../src/plugins/idempotency.plugin.js'
import { decrypt } from '../../src/secret-key.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addTag } from '../helpers/contacts-factories.js'
import { holdUncommitted, waitForLockWait as waitForLockWaitIn } from '../helpers/locks.js'
import { tableSnapshot } from '../helpers/snapshot.js'
import { tenant, type Tenant } from '../helpers/factories.js'

const TABLES = ['tags', 'contacts', 'contact_events', 'api_events', 'api_event_outbox', 'idempotency_keys']
const START = Date.parse('2026-11-23T10:00:00.000Z')

let sequence = 0
const newKey = () => `key-${String(++sequence)}-${String(Date.now())}`
/** A new contact's fields: an email of its own. */
const person = (name: string) => ({ first_name: name, email: `person${String(++sequence)}@example.com` })

describe('which answers are stored', () => {
  test('2xx and the operation\'s 4xx are; 5xx, 429, 409 and 408 are not', () => {
    for (const status of [200, 201, 204, 400, 404, 413, 415, 422]) assert.equal(storesAnswer(status), true, String(status))
    for (const status of [408, 409, 429, 500, 502, 503]) assert.equal(storesAnswer(status), false, String(status))
  })

  test('the fingerprint: method, path and parameters in any key order; not the query string itself', () => {
    const a = fingerprint('POST', '/api/v1/tags', { name: 'x', color: '#fff', nested: [{ b: 1, a: 2 }] })
    assert.equal(a, fingerprint('POST', '/api/v1/tags?api_token=secret', { nested: [{ a: 2, b: 1 }], color: '#fff', name: 'x' }))
    assert.notEqual(a, fingerprint('PUT', '/api/v1/tags', { name: 'x', color: '#fff', nested: [{ b: 1, a: 2 }] }))
    assert.notEqual(a, fingerprint('POST', '/api/v1/tags', { name: 'x', color: '#fff', nested: [{ b: 2, a: 1 }] }))
    assert.notEqual(fingerprint('POST', '/p', { a: '1' }), fingerprint('POST', '/p', { a: 1 }))
    assert.notEqual(fingerprint('POST', '/p', { a: [] }), fingerprint('POST', '/p', { a: {} }))
    // Deeper than the call stack: no RangeError.
    let deep: unknown = 'x'
    for (let i = 0; i < 100_000; i++) deep = [deep]
    assert.match(fingerprint('POST', '/p', { deep }), /^[0-9a-f]{64}$/)
  })
})

for (const backend of backends()) {
  describe(`Idempotency-Key (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let now = START

    before(async () => {
      // Private destinations allowed: a webhook can be saved without DNS (no network here).
      t = await startApp(backend, { config: { webhookAllowPrivate: true }, deps: { clock: () => new Date(now) } })
      acme = await tenant(t.db)
    })
    after(() => t.close())

    const send = (method: 'POST' | 'PUT', url: string, payload: object, key?: string, auth = acme.auth) =>
      t.app.inject({ method, url: `/api/v1${url}`, headers: { ...auth, ...(key === undefined ? {} : { 'idempotency-key': key }) }, payload })
    const snapshot = () => tableSnapshot(t.db, TABLES)
    const count = async (table: 'tags' | 'meet_transcriptions') =>
      (await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from ${sql.identifier(table)} where company_id = ${acme.companyId}`))[0]?.n
    interface KeyRow {
      statusCode: number | null
      responseHeaders: Record<string, string> | null
      responseBody: string | null
      createdAt: Date
    }
    const keyRow = async (key: string) =>
      (await rawRows<KeyRow>(t.db, sql`
        select status_code as "statusCode", response_headers as "responseHeaders", response_body as "responseBody", created_at as "createdAt"
        from idempotency_keys where key = ${key}`))[0]

    const assertReplayOf = (replay: Reply, first: Reply) => {
      assert.equal(replay.statusCode, first.statusCode)
      assert.equal(replay.body, first.body)
      assert.equal(replay.headers['content-type'], first.headers['content-type'])
      assert.equal(replay.headers.location, first.headers.location)
      assert.equal(replay.headers['idempotent-replayed'], 'true')
      assert.equal(first.headers['idempotent-replayed'], undefined)
    }

    test('a POST retried with its key after it succeeded: the same answer, nothing created', async () => {
      const key = newKey()
      const first = await send('POST', '/tags', { name: 'Retried', color: '#abc' }, key)
      assert.equal(first.statusCode, 201, first.body)
      const id = first.json().id as number
      assert.equal(first.headers.location, `/api/v1/tags/${id}`)
      const before = await snapshot()

      const replay = await send('POST', '/tags', { name: 'Retried', color: '#abc' }, key)
      assertReplayOf(replay, first)
      assert.equal(replay.json().id, id)
      assert.notEqual(replay.headers['x-request-id'], first.headers['x-request-id'])
      assert.deepEqual(await snapshot(), before, 'no tag, event or key row changed')
      assert.equal(await count('tags'), 1)

      const row = await keyRow(key)
      assert.equal(row?.statusCode, 201)
      assert.equal(decrypt(t.app.keys.derive('idempotency'), row.responseBody ?? ''), first.body)
      assert.deepEqual(row.responseHeaders, { 'content-type': first.headers['content-type'], location: `/api/v1/tags/${id}` })
      assert.equal(row.createdAt.getTime(), START)
    })

    test('a stored answer is encrypted: a webhook secret never sits in the table in the clear', async () => {
      const key = newKey()
      const first = await send('POST', '/webhooks', { url: 'https://hooks.example.com/engage', events: ['*'] }, key)
      assert.equal(first.statusCode, 201, first.body)
      const secret = first.json<{ secret: string }>().secret
      assert.match(secret, /^whsec_/)
      const [row] = await rawRows<{ response_body: string }>(t.db, sql`select response_body from idempotency_keys where key = ${key}`)
      assert.ok(row)
      assert.ok(!row.response_body.includes(secret.slice(6)), 'the secret is stored in the clear')
      assert.ok(!row.response_body.includes('hooks.example.com'))
      const replay = await send('POST', '/webhooks', { url: 'https://hooks.example.com/engage', events: ['*'] }, key)
      assert.equal(replay.statusCode, 201)
      assert.equal(replay.headers['idempotent-replayed'], 'true')
      assert.equal(replay.body, first.body)
    })

    test('the same parameters in another shape (key order, root key, form) replay too', async () => {
      const key = newKey()
      const first = await send('POST', '/tags', { name: 'Shapes', color: '#123' }, key)
      assert.equal(first.statusCode, 201)
      assertReplayOf(await send('POST', '/tags', { color: '#123', name: 'Shapes' }, key), first)
      assertReplayOf(await send('POST', '/tags', { tag: { color: '#123', name: 'Shapes' } }, key), first)
      const form = await t.app.inject({
        method: 'POST',
        url: '/api/v1/tags',
        headers: { ...acme.auth, 'idempotency-key': key, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'name=Shapes&color=%23123',
      })
      assertReplayOf(form, first)
    })

    test('a retry counts against the rate limit like any request', async () => {
      const key = newKey()
      const first = await send('POST', '/tags', { name: 'Counted', color: '#abc' }, key)
      const replay = await send('POST', '/tags', { name: 'Counted', color: '#abc' }, key)
      assert.equal(replay.headers['idempotent-replayed'], 'true')
      assert.equal(Number(replay.headers['x-ratelimit-remaining']), Number(first.headers['x-ratelimit-remaining']) - 1)
    })

    test('a PUT retried: the stored answer, and the record is not written again', async () => {
      const tag = await addTag(t.db, acme, { name: 'Before', color: '#000' })
      const key = newKey()
      const first = await send('PUT', `/tags/${tag.id}`, { name: 'After', color: '#111' }, key)
      assert.equal(first.statusCode, 200, first.body)
      // Someone else renames it meanwhile; the retry must not undo that.
      assert.equal((await send('PUT', `/tags/${tag.id}`, { name: 'Later', color: '#222' })).statusCode, 200)
      const before = await snapshot()
      const replay = await send('PUT', `/tags/${tag.id}`, { name: 'After', color: '#111' }, key)
      assertReplayOf(replay, first)
      assert.equal(replay.json().name, 'After')
      assert.deepEqual(await snapshot(), before)
      const [row] = await rawRows<{ name: string }>(t.db, sql`select name from tags where id = ${tag.id}`)
      assert.equal(row?.name, 'Later')
    })

    test('the same key with other parameters, or on another operation: 422, nothing runs', async () => {
      const key = newKey()
      assert.equal((await send('POST', '/tags', { name: 'Original', color: '#abc' }, key)).statusCode, 201)
      const before = await snapshot()
      for (const res of [
        await send('POST', '/tags', { name: 'Other', color: '#abc' }, key),
        await send('POST', '/contacts', { first_name: 'Ana' }, key),
        await send('PUT', '/tags/1', { name: 'Original', color: '#abc' }, key),
      ]) {
        assert.equal(res.statusCode, 422, res.body)
        assert.deepEqual(res.json(), {
          error: {
            status: 422,
            message: 'Could not save the entity',
            code: 'idempotency_key_reused',
            details: { 'Idempotency-Key': ['was already used with different parameters'] },
            detail_codes: { 'Idempotency-Key': ['reused'] },
            request_id: res.headers['x-request-id'],
          },
        })
        assert.equal(res.headers['idempotent-replayed'], undefined)
      }
      assert.deepEqual(await snapshot(), before)
    })

    test('an answer of the operation that refuses (422) is stored too, with this request\'s id', async () => {
      const key = newKey()
      const first = await send('POST', '/tags', { name: 'Bad colour', color: 'blue' }, key)
      assert.equal(first.statusCode, 422)
      assert.equal((await keyRow(key))?.statusCode, 422)
      const replay = await send('POST', '/tags', { name: 'Bad colour', color: 'blue' }, key)
      assert.equal(replay.statusCode, 422)
      assert.equal(replay.headers['idempotent-replayed'], 'true')
      // The body is the stored one but for request_id, which is always the X-Request-Id.
      assert.deepEqual(replay.json(), { error: { ...first.json().error, request_id: replay.headers['x-request-id'] } })
      assert.notEqual(replay.headers['x-request-id'], first.headers['x-request-id'])
      // Corrected parameters need a new key.
      assert.equal((await send('POST', '/tags', { name: 'Bad colour', color: '#00f' }, key)).statusCode, 422)
      assert.equal((await send('POST', '/tags', { name: 'Bad colour', color: '#00f' }, newKey())).statusCode, 201)
    })

    /** Another transaction inserts a tag named `name` and keeps it uncommitted until the returned release. */
    const holdTagName = (name: string) =>
      holdUncommitted(t.db, (tx) => execute(tx, sql`insert into tags (company_id, name, color) values (${acme.companyId}, ${name}, '#000')`))

    const waitForLockWait = () => waitForLockWaitIn(t.db, 'the request')

    test('a retry while the first is still running: 409 with Retry-After: 1; then the stored answer', async () => {
      const key = newKey()
      const release = await holdTagName('Slow')
      const first = send('POST', '/tags', { name: 'Slow', color: '#abc' }, key)
      await waitForLockWait() // the first has claimed the key and waits inside the operation
      const busy = await send('POST', '/tags', { name: 'Slow', color: '#abc' }, key)
      assert.equal(busy.statusCode, 409)
      assert.equal(busy.headers['retry-after'], '1')
      assert.deepEqual(busy.json(), {
        error: {
          status: 409,
          message: 'A request with this Idempotency-Key is still running: retry after Retry-After seconds',
          code: 'idempotency_key_in_use',
          request_id: busy.headers['x-request-id'],
        },
      })
      assert.ok(busy.headers['x-ratelimit-remaining'])
      assert.equal((await keyRow(key))?.statusCode, null, 'the 409 is not stored: the claim still runs')
      await release()
      const done = await first
      assert.equal(done.statusCode, 201, done.body)
      assertReplayOf(await send('POST', '/tags', { name: 'Slow', color: '#abc' }, key), done)
      assert.equal((await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from tags where name = 'Slow'`))[0]?.n, 1)
    })

    test('concurrent requests with one key: one runs, the others get 409 or its answer', async () => {
      const key = newKey()
      const body = person('Concurrent')
      const answers = await Promise.all(Array.from({ length: 6 }, () => send('POST', '/contacts', body, key)))
      const ran = answers.filter((res) => res.statusCode === 201 && res.headers['idempotent-replayed'] === undefined)
      assert.equal(ran.length, 1, answers.map((res) => `${String(res.statusCode)} ${res.body}`).join('\n'))
      for (const res of answers) {
        if (res === ran[0]) continue
        if (res.statusCode === 409) assert.equal(res.headers['retry-after'], '1')
        else assertReplayOf(res, ran[0] as Reply)
      }
      assert.ok(answers.some((res) => res.statusCode === 409), 'at least one arrived while the first ran')
      const [row] = await rawRows<{ n: number }>(
        t.db,
        sql`select count(*)::int as n from contacts where company_id = ${acme.companyId} and first_name = 'Concurrent'`,
      )
      assert.equal(row?.n, 1)
    })

    test('a failure the retry may not get again (503) is not stored: the key is released and the retry runs', async () => {
      const key = newKey()
      const release = await holdTagName('Stuck')
      // The insert waits for the held name past the lock timeout (3 s): 503.
      const failed = await send('POST', '/tags', { name: 'Stuck', color: '#abc' }, key)
      await release()
      assert.equal(failed.statusCode, 503, failed.body)
      assert.equal(await keyRow(key), undefined)
      const retry = await send('POST', '/tags', { name: 'Stuck', color: '#abc' }, key)
      assert.equal(retry.statusCode, 201, retry.body)
      assert.equal(retry.headers['idempotent-replayed'], undefined)
    })

    test('a claim taken over while it ran: its writes roll back with it and it answers 503, never 201 (issue 38)', async () => {
      const key = newKey()
      const release = await holdTagName('Overtaken')
      const first = send('POST', '/tags', { name: 'Overtaken', color: '#abc' }, key)
      await waitForLockWait()
      // What a takeover of an abandoned claim does: the key row is another request's now.
      await execute(t.db, sql`update idempotency_keys set created_at = created_at + interval '1 second' where key = ${key}`)
      await release()
      const res = await first
      assert.equal(res.statusCode, 503, res.body)
      assert.deepEqual(res.json(), {
        error: { status: 503, message: 'Service unavailable', code: 'service_unavailable', request_id: res.headers['x-request-id'] },
      })
      assert.equal(res.headers.location, undefined)
      const [written] = await rawRows<{ tags: number; events: number }>(t.db, sql`
        select (select count(*)::int from tags where name = 'Overtaken') as tags,
               (select count(*)::int from api_event_outbox where data->>'name' = 'Overtaken')
             + (select count(*)::int from api_events where data->>'name' = 'Overtaken') as events`)
      assert.deepEqual(written, { tags: 0, events: 0 }, 'the tag and its event were rolled back')
      assert.equal((await keyRow(key))?.statusCode, null, 'the key is left to its new owner')
    })

    test('a claim left running by a process that died is taken over after the request timeout', async () => {
      const fresh = newKey()
      const stale = newKey()
      const [token] = await rawRows<{ id: number }>(t.db, sql`select id::int from api_tokens where company_id = ${acme.companyId} order by id limit 1`)
      const claim = (key: string, age: number) =>
        execute(t.db, sql`
          insert into idempotency_keys (company_id, token_id, key, fingerprint, created_at)
          values (${acme.companyId}, ${token?.id ?? 0}, ${key}, 'x', ${new Date(now - age)})`)
      await claim(fresh, 29_000)
      await claim(stale, 31_000)
      const body = person('Fresh')
      assert.equal((await send('POST', '/contacts', body, fresh)).statusCode, 422, 'another fingerprint: reused')
      await execute(t.db, sql`update idempotency_keys set fingerprint = ${fingerprint('POST', '/api/v1/contacts', body)} where key = ${fresh}`)
      assert.equal((await send('POST', '/contacts', body, fresh)).statusCode, 409)
      const res = await send('POST', '/contacts', person('Taken over'), stale)
      assert.equal(res.statusCode, 201, res.body)
      const row = await keyRow(stale)
      assert.equal(row?.statusCode, 201)
      assert.equal(row.createdAt.getTime(), now)
    })

    test('keys are per token: another token\'s same key runs normally', async () => {
      const key = newKey()
      const first = await send('POST', '/contacts', person('Mine'), key)
      assert.equal(first.statusCode, 201)
      const { token } = await createToken(t.db, systemActing(), acme.userId) // same user, another token
      const other = await send('POST', '/contacts', person('Mine'), key, { authorization: `Bearer ${token}` })
      assert.equal(other.statusCode, 201)
      assert.equal(other.headers['idempotent-replayed'], undefined)
      assert.notEqual(other.json().id, first.json().id)
      const globex = await tenant(t.db)
      const theirs = await send('POST', '/contacts', person('Mine'), key, globex.auth)
      assert.equal(theirs.statusCode, 201)
      assert.equal(theirs.headers['idempotent-replayed'], undefined)
      const rows = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from idempotency_keys where key = ${key}`)
      assert.equal(rows[0]?.n, 3)
    })

    const transcription = () => ({ user_id: acme.userId, company_id: acme.companyId, meet_id: 'abc-defg-hij' })

    test('without the header two identical POSTs create two records and store nothing', async () => {
      const before = await count('meet_transcriptions')
      const keys = await snapshot().then((state) => state.idempotency_keys)
      const a = await send('POST', '/meet_transcriptions', transcription())
      const b = await send('POST', '/meet_transcriptions', transcription())
      assert.equal(a.statusCode, 201, a.body)
      assert.equal(b.statusCode, 201)
      assert.notEqual(a.json().id, b.json().id)
      assert.equal(await count('meet_transcriptions'), (before ?? 0) + 2)
      assert.equal((await snapshot()).idempotency_keys, keys)
    })

    test('GET and DELETE ignore the header', async () => {
      const tag = await addTag(t.db, acme)
      const key = newKey()
      const headers = { ...acme.auth, 'idempotency-key': key }
      assert.equal((await t.app.inject({ url: '/api/v1/tags', headers })).statusCode, 200)
      assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/tags/${tag.id}`, headers })).statusCode, 204)
      assert.equal(await keyRow(key), undefined)
    })

    test('an invalid header (empty, over 255 characters, not printable): 422 and nothing runs', async () => {
      const before = await snapshot()
      for (const key of ['', 'x'.repeat(256), 'tab\there', 'caf\u00e9']) {
        const res = await send('POST', '/contacts', person('Never'), key)
        assert.equal(res.statusCode, 422, JSON.stringify(key))
        assert.deepEqual(res.json().error.details, { 'Idempotency-Key': ['must be 1 to 255 printable characters'] })
        assert.equal(res.json().error.code, 'validation_failed')
        assert.equal(res.json().error.request_id, res.headers['x-request-id'])
      }
      assert.deepEqual(await snapshot(), before)
      const longest = await send('POST', '/contacts', person('Longest key'), `${'k'.repeat(250)} ~!@#`)
      assert.equal(longest.statusCode, 201)
    })

    test('a key is kept 24 h: just before it replays, at 24 h it runs again', async () => {
      const key = newKey()
      const first = await send('POST', '/meet_transcriptions', transcription(), key)
      assert.equal(first.statusCode, 201)
      now += KEY_TTL_MS - 1
      assertReplayOf(await send('POST', '/meet_transcriptions', transcription(), key), first)
      now += 1
      const again = await send('POST', '/meet_transcriptions', transcription(), key)
      assert.equal(again.statusCode, 201)
      assert.equal(again.headers['idempotent-replayed'], undefined)
      assert.notEqual(again.json().id, first.json().id)
      assert.equal((await keyRow(key))?.createdAt.getTime(), now)
      // An expired key may come back with other parameters: it is a new key.
      now += KEY_TTL_MS
      assert.equal((await send('POST', '/contacts', person('Other day'), key)).statusCode, 201)
    })

    test('the prune deletes the keys older than 24 h, and only those', async () => {
      const old = newKey()
      const recent = newKey()
      assert.equal((await send('POST', '/contacts', person('Old'), old)).statusCode, 201)
      now += 60_000
      assert.equal((await send('POST', '/contacts', person('Recent'), recent)).statusCode, 201)
      now += KEY_TTL_MS - 30_000 // old: 24 h 30 s; recent: 23 h 59 min 30 s
      const all = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from idempotency_keys where created_at < ${new Date(now - KEY_TTL_MS)}`)
      const deleted = await pruneIdempotencyKeys(t.db, new Date(now))
      assert.equal(deleted, all[0]?.n)
      assert.ok(deleted >= 1)
      assert.equal(await keyRow(old), undefined)
      assert.equal((await keyRow(recent))?.statusCode, 201)
      const left = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from idempotency_keys where created_at < ${new Date(now - KEY_TTL_MS)}`)
      assert.equal(left[0]?.n, 0)
      assert.equal(await pruneIdempotencyKeys(t.db, new Date(now)), 0)
    })
  })
}
