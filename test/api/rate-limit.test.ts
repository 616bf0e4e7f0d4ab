// Contract section 6 through the HTTP API (the window itself is tested in test/rate-limit).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { describeOrSkip } from '../helpers/suite.js'
import { buildApp } from '../../src/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { backends, startApp, testConfig, type TestApp } from '../helpers/app.js'
import { freePort, hasRedisServer, sleep, startRedis } from '../rate-limit/helpers.js'

const LIMIT = { max: 60, windowMs: 10_000 }
let address = 0
/** A client address of its own for each test, so their per-address budgets stay apart. */
const nextAddress = () => `10.0.0.${++address}`

for (const backend of backends()) {
  describe(`rate limiting (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant

    before(async () => {
      t = await startApp(backend, { config: { rateLimit: { ...LIMIT, keyPrefix: `engage:test:${backend.name}:${process.pid}:` } } })
      acme = await tenant(t.db)
    })
    after(() => t.close())

    const call = (headers: Record<string, string>, remoteAddress: string, url = '/api/v1/users/authorize_api') =>
      t.app.inject({ url, headers, remoteAddress })

    test('60 requests per token in the window, the 61st is 429 with the headers', async () => {
      const { auth } = await tenant(t.db)
      const ip = nextAddress()
      for (let i = 1; i <= 60; i++) {
        const res = await call(auth, ip)
        assert.equal(res.statusCode, 200)
        assert.equal(res.headers['x-ratelimit-limit'], '60')
        assert.equal(res.headers['x-ratelimit-remaining'], String(60 - i))
        assert.ok(Number(res.headers['x-ratelimit-reset']) >= 0)
      }
      const res = await call(auth, ip)
      assert.equal(res.statusCode, 429)
      assert.deepEqual(res.json(), {
        error: { status: 429, message: 'Requests limit exceeded for api_token', code: 'rate_limited', request_id: res.headers['x-request-id'] },
      })
      assert.equal(res.headers['x-ratelimit-remaining'], '0')
      const retryAfter = Number(res.headers['retry-after'])
      assert.ok(retryAfter >= 1 && retryAfter <= 10, String(retryAfter))
      assert.equal(res.headers['x-ratelimit-reset'], res.headers['retry-after'])
      // Another token of the same client is unaffected.
      assert.equal((await call(acme.auth, ip)).statusCode, 200)
    })

    test('authenticated error responses carry the headers too', async () => {
      const res = await call(acme.auth, nextAddress(), '/api/v1/users?page=abc')
      assert.equal(res.statusCode, 422)
      assert.equal(res.headers['x-ratelimit-limit'], '60')
      assert.ok(res.headers['x-ratelimit-remaining'] !== undefined)
    })

    test('requests without a valid token are limited per client address', async () => {
      const ip = nextAddress()
      for (let i = 1; i <= 60; i++) {
        const res = await call(i % 2 ? { authorization: `Bearer eng_guess${i}` } : {}, ip)
        assert.equal(res.statusCode, 401)
      }
      const limited = await call({ authorization: 'Bearer eng_guess' }, ip)
      assert.equal(limited.statusCode, 429)
      assert.equal(limited.json().error.message, 'Requests limit exceeded for api_token')
      assert.ok(Number(limited.headers['retry-after']) >= 1)
      // Valid tokens from the same address are still served, and do not count there.
      const { auth } = await tenant(t.db)
      assert.equal((await call(auth, ip)).statusCode, 200)
      assert.equal((await call({}, nextAddress())).statusCode, 401)
    })

    test('valid-token requests do not use up the address budget', async () => {
      const ip = nextAddress()
      const { auth } = await tenant(t.db)
      for (let i = 0; i < 61; i++) await call(auth, ip)
      const res = await call({ authorization: 'Bearer eng_wrong' }, ip)
      assert.equal(res.statusCode, 401)
      assert.equal(res.headers['x-ratelimit-remaining'], '59')
    })
  })
}

describeOrSkip('rate limit shared through Redis', { skip: !process.env.REDIS_URL && 'REDIS_URL not set' }, () => {
  const [backend] = backends()

  test('two instances on one Redis share the budget of a token', async () => {
    if (!backend) throw new Error('no backend')
    const { database, drop } = await backend.open()
    const config = testConfig({ redisUrl: process.env.REDIS_URL, rateLimit: { ...LIMIT, keyPrefix: `engage:test:shared:${Date.now()}:` } })
    const [a, b] = await Promise.all([buildApp(config, { database }), buildApp(config, { database })])
    try {
      const { auth } = await tenant(database.db)
      for (let i = 0; i < 30; i++) {
        assert.equal((await a.inject({ url: '/api/v1/users/authorize_api', headers: auth })).statusCode, 200)
        assert.equal((await b.inject({ url: '/api/v1/users/authorize_api', headers: auth })).statusCode, 200)
      }
      assert.equal((await a.inject({ url: '/api/v1/users/authorize_api', headers: auth })).statusCode, 429)
      assert.equal((await b.inject({ url: '/api/v1/users/authorize_api', headers: auth })).statusCode, 429)
    } finally {
      await Promise.all([a.close(), b.close()])
      await drop()
    }
  })
})

describeOrSkip('Redis outage', { skip: !hasRedisServer && 'redis-server not installed' }, () => {
  const [backend] = backends()

  test('requests are still served while Redis is down, and Redis is used again when back', async () => {
    if (!backend) throw new Error('no backend')
    const port = await freePort()
    let redis = await startRedis(port)
    const { database, drop } = await backend.open()
    const app = await buildApp(testConfig({ redisUrl: redis.url, rateLimit: { ...LIMIT, keyPrefix: 'engage:test:outage:' } }), { database })
    try {
      const { auth } = await tenant(database.db)
      const call = () => app.inject({ url: '/api/v1/users/authorize_api', headers: auth })
      for (let i = 0; i < 5; i++) assert.equal((await call()).statusCode, 200)
      await redis.kill()
      for (let i = 0; i < 5; i++) {
        const started = Date.now()
        const res = await call()
        assert.equal(res.statusCode, 200)
        assert.ok(Date.now() - started < 1000, 'answered without waiting on Redis')
        assert.ok(res.headers['x-ratelimit-remaining'] !== undefined)
      }
      redis = await startRedis(port)
      // Back on Redis: the fresh server holds no window, so the remaining count restarts there.
      let remaining = ''
      for (let i = 0; i < 60 && remaining !== '59'; i++) {
        await sleep(100)
        remaining = String((await call()).headers['x-ratelimit-remaining'])
      }
      assert.equal(remaining, '59')
    } finally {
      await app.close()
      await drop()
      await redis.kill()
    }
  })
})
