import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ConfigError, loadConfig } from '../src/config.js'

describe('configuration', () => {
  test('defaults', () => {
    const config = loadConfig({})
    assert.equal(config.port, 3000)
    assert.equal(config.host, '0.0.0.0')
    assert.equal(config.databaseUrl, undefined)
    assert.equal(config.dataDir, './data')
    assert.equal(config.redisUrl, undefined)
    assert.deepEqual(config.rateLimit, { max: 60, windowMs: 10_000, keyPrefix: 'engage:rl:' })
    assert.equal(config.seedDemo, true)
    assert.equal(config.logLevel, 'info')
    assert.equal(config.pipelineConnections, 2)
    assert.equal(config.pooler, 'none')
    assert.equal(config.databaseDirectUrl, undefined)
    assert.equal(config.statements, 'named')
    assert.equal(config.shutdownDrainMs, 0)
    assert.equal(config.testFaultAfterCommit, false)
  })

  test('DB_POOLER=transaction: statements named outside transactions, and a direct URL required', () => {
    const pooled = { DATABASE_URL: 'postgres://u@pgbouncer:6432/engage', DATABASE_DIRECT_URL: 'postgres://u@db:5432/engage', DB_POOLER: 'transaction' }
    const config = loadConfig(pooled)
    assert.equal(config.pooler, 'transaction')
    assert.equal(config.databaseDirectUrl, 'postgres://u@db:5432/engage')
    assert.equal(config.statements, 'pooled')
    assert.equal(loadConfig({ ...pooled, DB_PREPARED_STATEMENTS: 'false' }).statements, 'unnamed')
    assert.equal(loadConfig({ DB_PREPARED_STATEMENTS: 'false' }).statements, 'unnamed')
    for (const [env, message] of [
      [{ DB_POOLER: 'session' }, /DB_POOLER must be none or transaction, got "session"/],
      [{ DB_POOLER: 'transaction', DATABASE_URL: pooled.DATABASE_URL }, /DB_POOLER=transaction needs DATABASE_URL \(the pooler\) and DATABASE_DIRECT_URL/],
      [{ DB_POOLER: 'transaction', DATABASE_DIRECT_URL: pooled.DATABASE_DIRECT_URL }, /needs DATABASE_URL/],
      [{ DATABASE_DIRECT_URL: 'mysql://x' }, /DATABASE_DIRECT_URL must start with postgres:\/\//],
      [{ SHUTDOWN_DRAIN_MS: '300001' }, /SHUTDOWN_DRAIN_MS must be a whole number from 0 to 300000/],
    ] as const) {
      assert.throws(() => loadConfig(env), (err: unknown) => err instanceof ConfigError && message.test(err.message))
    }
    assert.equal(loadConfig({ SHUTDOWN_DRAIN_MS: '10000' }).shutdownDrainMs, 10_000)
  })

  test('every setting read from the environment', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://u@db:5432/engage',
      DATA_DIR: '/var/lib/engage',
      REDIS_URL: 'redis://cache:6379',
      RATE_LIMIT_MAX: '100',
      RATE_LIMIT_WINDOW_MS: '60000',
      SEED_DEMO: 'false',
      LOG_LEVEL: 'debug',
      DB_PIPELINE_CONNECTIONS: '0',
      ENGAGE_TEST_FAULT_AFTER_COMMIT: '1',
    })
    assert.equal(config.port, 8080)
    assert.equal(config.host, '127.0.0.1')
    assert.equal(config.databaseUrl, 'postgres://u@db:5432/engage')
    assert.equal(config.dataDir, '/var/lib/engage')
    assert.equal(config.redisUrl, 'redis://cache:6379')
    assert.equal(config.rateLimit.max, 100)
    assert.equal(config.rateLimit.windowMs, 60_000)
    assert.equal(config.seedDemo, false)
    assert.equal(config.logLevel, 'debug')
    assert.equal(config.pipelineConnections, 0)
    assert.equal(config.testFaultAfterCommit, true)
  })

  test('bad values are refused with a message naming the setting', () => {
    for (const [env, message] of [
      [{ PORT: '70000' }, /PORT must be a whole number from 0 to 65535/],
      [{ PORT: '3e3' }, /PORT/],
      [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must start with postgres:\/\/ or postgresql:\/\//],
      [{ DATABASE_URL: 'not a url' }, /DATABASE_URL must be a URL/],
      [{ REDIS_URL: 'http://x' }, /REDIS_URL must start with redis:\/\/ or rediss:\/\//],
      [{ RATE_LIMIT_MAX: '0' }, /RATE_LIMIT_MAX must be a whole number from 1/],
      [{ RATE_LIMIT_WINDOW_MS: '-5' }, /RATE_LIMIT_WINDOW_MS/],
      [{ SEED_DEMO: 'maybe' }, /SEED_DEMO must be true or false/],
      [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
      [{ DB_PIPELINE_CONNECTIONS: '17' }, /DB_PIPELINE_CONNECTIONS must be a whole number from 0 to 16/],
      [{ DB_PIPELINE_CONNECTIONS: '-1' }, /DB_PIPELINE_CONNECTIONS/],
      [{ ENGAGE_TEST_FAULT_AFTER_COMMIT: 'yes' }, /ENGAGE_TEST_FAULT_AFTER_COMMIT must be true or false/],
    ] as const) {
      assert.throws(() => loadConfig(env), (err: unknown) => err instanceof ConfigError && message.test(err.message))
    }
  })
})
