// The Node.js check (bin/check-node.cjs) that npm start, npm test and the admin command line
// run first: the versions of package.json's engines pass, others exit 1 with one line.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../', import.meta.url))
const check = createRequire(import.meta.url)('../../bin/check-node.cjs') as {
  supported(version: string): boolean
  problem(version: string): string | null
}
const scripts = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: Record<string, string>; engines: { node: string } })

test('the versions of engines (^22.12.0 || >=24) pass; older 22s, 23 and everything before 22 do not', () => {
  assert.equal(scripts.engines.node, '^22.12.0 || >=24', 'the check follows engines: change both together')
  for (const version of ['v22.12.0', 'v22.20.1', 'v24.0.0', 'v24.11.1', 'v25.2.0', 'v30.0.0']) assert.equal(check.supported(version), true, version)
  for (const version of ['v22.11.0', 'v22.0.0', 'v23.11.0', 'v20.19.5', 'v18.20.8', 'v16.0.0', 'v0.10.48', 'nonsense']) {
    assert.equal(check.supported(version), false, version)
  }
  assert.equal(check.problem('v24.11.1'), null)
  assert.equal(
    check.problem('v20.19.5'),
    `engage needs Node.js ^22.12.0 || >=24 (22.12 or a later 22, or 24 and later); this is Node.js v20.19.5 (${process.execPath})`,
  )
})

test('npm start, npm test and the admin command line run the check before anything else', () => {
  assert.match(scripts.scripts.start ?? '', /^exec node -r \.\/bin\/check-node\.cjs dist\/server\.js$/)
  assert.match(scripts.scripts.pretest ?? '', /^node bin\/check-node\.cjs && /)
  assert.match(scripts.scripts.admin ?? '', /^node bin\/engage-admin\.cjs$/)
  assert.match(readFileSync(`${root}bin/engage-admin.cjs`, 'utf8'), /^require\('\.\/check-node\.cjs'\)$/m)
})

// The machine's default Node.js (Debian's) is older than engines on the development machines.
const OLD_NODE = '/usr/bin/node'
const oldVersion = existsSync(OLD_NODE) ? await new Promise<string>((resolve) => {
  execFile(OLD_NODE, ['--version'], (_err, stdout) => {
    resolve(stdout.trim())
  })
}) : ''
const skip = oldVersion === '' ? `no ${OLD_NODE}` : check.supported(oldVersion) ? `${OLD_NODE} is ${oldVersion}, a supported version` : false

test(`a real old Node.js (${OLD_NODE}) exits 1 with the one line, before loading the server or the command line`, { skip }, async () => {
  for (const args of [['-r', './bin/check-node.cjs', 'dist/server.js'], ['bin/engage-admin.cjs', 'company', 'list', '--json'], ['bin/check-node.cjs']]) {
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(OLD_NODE, args, { cwd: root, env: { PATH: process.env.PATH ?? '', DATA_DIR: '/nonexistent/engage-never-made' } }, (err, stdout, stderr) => {
        resolve({ code: err ? Number(err.code) : 0, stdout, stderr })
      })
    })
    assert.equal(result.code, 1, args.join(' '))
    assert.equal(result.stdout, '')
    assert.equal(result.stderr, `engage needs Node.js ^22.12.0 || >=24 (22.12 or a later 22, or 24 and later); this is Node.js ${oldVersion} (${OLD_NODE})\n`)
  }
})
