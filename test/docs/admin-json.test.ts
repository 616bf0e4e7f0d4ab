// Every documented admin command line that writes JSON (README.md and docs/*.md: a line of a
// ```sh block running `npx engage-admin` with --json, or an audit export), run as written in
// a shell on the demo data: stdout is exactly one JSON object, or JSON Lines, and nothing
// else (no npm banner), and a `> file` gets the same.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { seedDemoIfEmpty } from '../../src/demo/index.js'
import { backends } from '../helpers/app.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const [backend] = backends()
if (!backend) throw new Error('no backend')

/** The documented lines: file:line and the command, as a reader would paste it. */
function documentedLines(): { where: string; line: string }[] {
  const found: { where: string; line: string }[] = []
  for (const file of ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]) {
    const text = readFileSync(join(root, file), 'utf8')
    for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
      for (const line of (block[1] ?? '').split('\n')) {
        const command = line.trim()
        if (!command.startsWith('npx engage-admin ')) continue
        const code = command.replace(/\s+#.*$/, '')
        if (/(^|\s)--json(\s|$)/.test(code) || / audit export /.test(code)) found.push({ where: `${file}: ${command}`, line: command })
      }
    }
  }
  return found
}

describe('documented admin lines that write JSON', () => {
  const lines = documentedLines()
  let env: Record<string, string>
  let drop: () => Promise<void>
  const folder = mkdtempSync(join(tmpdir(), 'engage-admin-json-'))
  before(async () => {
    const opened = await backend.open()
    // The month the documented export names.
    await seedDemoIfEmpty(opened.database.db, new Date('2026-11-15T12:00:00Z'))
    drop = opened.drop
    // npx from this Node's npm, as a reader's shell finds it.
    env = { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? '', DATABASE_URL: opened.url }
  })
  after(async () => {
    await drop()
    rmSync(folder, { recursive: true, force: true })
  })

  test('the docs have such lines (company, user and token create, the audit export)', () => {
    assert.ok(lines.some((l) => l.line.includes('audit export') && l.line.includes('>')), 'the audit-log.md export to a file')
    assert.ok(lines.length >= 5, lines.map((l) => l.where).join('\n'))
  })

  for (const { where, line } of lines) {
    test(where, async () => {
      const file = / > (\S+)/.exec(line)?.[1]
      const command = file ? line.replace(` > ${file}`, ` > ${join(folder, file)}`) : line
      const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile('sh', ['-c', command], { cwd: root, env, timeout: 60_000 }, (err, stdout, stderr) => {
          resolve({ code: err ? Number(err.code) : 0, stdout, stderr })
        })
      })
      assert.equal(result.code, 0, result.stderr)
      const output = file ? readFileSync(join(folder, file), 'utf8') : result.stdout
      if (line.includes(' audit export ')) {
        const records = output.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { action: string })
        assert.ok(records.length > 0, 'the demo data has audit records in that month')
        assert.ok(records.every((r) => typeof r.action === 'string'))
      } else {
        assert.equal(output.trimEnd().split('\n').length, 1, output)
        assert.equal(typeof JSON.parse(output), 'object')
      }
    })
  }
})
