// The embedded PostgreSQL cluster under DATA_DIR: created on first use, shared by every
// process that opens it (the server and the admin command line), stopped by the last one
// out (processes that died do not count), and recovered after the database itself crashed.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { openDatabase } from '../../src/db/client.js'
import { sql, rawRows } from '../helpers/sql.js'
import { isAlive, runDetached, startEmbeddedCluster } from '../../src/db/embedded.js'

function postmasterPid(dataDir: string): number | undefined {
  const file = join(dataDir, 'postgres', 'postmaster.pid')
  return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : undefined
}

async function waitUntil(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('embedded PostgreSQL', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'engage-embedded-'))
  after(async () => {
    const pid = postmasterPid(dataDir)
    if (isAlive(pid)) process.kill(pid as number, 'SIGINT')
    await waitUntil(() => !isAlive(pid)).catch(() => undefined)
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('first open creates and migrates the cluster; a second opener attaches; the last one out stops it', async () => {
    const first = await openDatabase({ dataDir })
    assert.equal(first.kind, 'embedded')
    const pid = postmasterPid(dataDir)
    assert.ok(isAlive(pid), 'the cluster runs')
    const tables = await rawRows(first.db, sql`select count(*)::int as n from pg_tables where tablename = 'contacts'`)
    assert.deepEqual(tables, [{ n: 1 }])

    const second = await openDatabase({ dataDir })
    assert.equal(postmasterPid(dataDir), pid)
    await rawRows(first.db, sql`insert into companies (name, timezone) values ('Shared', 'UTC')`)
    assert.equal((await rawRows(second.db, sql`select name from companies where name = 'Shared'`)).length, 1)

    await first.close()
    assert.ok(isAlive(pid), 'still running for the second opener')
    await second.ping()
    await second.close()
    await waitUntil(() => !isAlive(pid))
  })

  test('another live process using the cluster keeps it running; a dead one does not', async () => {
    // Another process (the server while an admin command ends) registered as a user.
    const other = spawn('sleep', ['30'], { stdio: 'ignore' })
    const users = join(dataDir, 'postgres.users')
    try {
      const opened = await openDatabase({ dataDir })
      const pid = postmasterPid(dataDir)
      assert.equal((await rawRows(opened.db, sql`select name from companies where name = 'Shared'`)).length, 1, 'data survived the stop')
      writeFileSync(join(users, String(other.pid)), '')
      writeFileSync(join(users, '2147483646'), '') // a user that crashed without unregistering
      await opened.close()
      assert.ok(isAlive(pid), 'kept running for the other process')

      other.kill('SIGKILL')
      await once(other, 'exit')
      const again = await openDatabase({ dataDir })
      await again.close()
      await waitUntil(() => !isAlive(pid))
      assert.deepEqual(readdirSync(users), [], 'dead users are pruned')
    } finally {
      other.kill('SIGKILL')
    }
  })

  test('after the database itself crashed (SIGKILL), the next start recovers it', async () => {
    const opened = await openDatabase({ dataDir })
    await rawRows(opened.db, sql`insert into companies (name, timezone) values ('Before crash', 'UTC')`)
    const pid = postmasterPid(dataDir)
    process.kill(pid as number, 'SIGKILL')
    await waitUntil(() => !isAlive(pid))
    await opened.close().catch(() => undefined)
    // Its backends die with it shortly; the stale postmaster.pid stays behind.
    await new Promise((resolve) => setTimeout(resolve, 500))
    const again = await openDatabase({ dataDir })
    try {
      const rows = await rawRows(again.db, sql`select name from companies where name = 'Before crash'`)
      assert.equal(rows.length, 1, 'committed data survived the crash')
    } finally {
      await again.close()
    }
  })

  test('a DATA_DIR too long for the socket gets a clear message', async () => {
    const long = join(dataDir, 'x'.repeat(120))
    await assert.rejects(startEmbeddedCluster({ dataDir: long }), /too long a path for the database's socket/)
  })

  test('the cluster listens on no TCP port', async () => {
    const opened = await openDatabase({ dataDir })
    try {
      const setting = await rawRows(opened.db, sql`select current_setting('listen_addresses') as value`)
      assert.deepEqual(setting, [{ value: '' }])
    } finally {
      await opened.close()
    }
  })
})

// A signal to the server's process group (Ctrl-C, or SIGTERM to npm start) that arrives while
// a PostgreSQL binary is being spawned reaches the child before its setsid and kills it before
// its program starts: once it made a first start fail ("could not create the embedded
// database", no output). Such a run did nothing and is run again. The race itself cannot be
// timed from a test; a program that dies of SIGTERM on its first run stands in for it.
test('a PostgreSQL binary killed by a signal is run again; one killed every time fails clearly', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'engage-signal-'))
  try {
    const runs = join(folder, 'runs')
    const once = `echo run >> ${runs}; [ "$(wc -l < ${runs})" -gt 1 ] && exit 0; kill -TERM $$`
    assert.deepEqual(await runDetached('bash', ['-c', once], {}), { code: 0, output: '' })
    assert.equal(readFileSync(runs, 'utf8'), 'run\nrun\n')

    const always = join(folder, 'always')
    assert.deepEqual(await runDetached('bash', ['-c', `echo run >> ${always}; kill -TERM $$`], {}), { code: 1, output: 'killed by SIGTERM' })
    assert.equal(readFileSync(always, 'utf8'), 'run\n'.repeat(5))
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
})
