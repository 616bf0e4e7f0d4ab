// The container files (Dockerfile, compose.yaml) cannot be built here (no Docker daemon), so
// what can be checked is checked: they name only scripts, paths and settings that exist, the
// runtime stage holds every file the compiled service reads, runs as a normal user with
// DATA_DIR a volume and a health check on /readyz, and runs what `npm start` runs.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, test } from 'node:test'

const root = fileURLToPath(new URL('../..', import.meta.url))
const read = (file: string) => readFileSync(join(root, file), 'utf8')
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> }

interface Instruction {
  op: string
  args: string
}

/** Dockerfile instructions per stage, continuation lines joined, comments dropped. */
function stages(text: string): Map<string, Instruction[]> {
  const joined = text.replace(/\\\n/g, ' ').split('\n').filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'))
  const result = new Map<string, Instruction[]>()
  let current: Instruction[] | undefined
  for (const line of joined) {
    const [, op = '', args = ''] = /^\s*(\S+)\s*(.*)$/.exec(line) ?? []
    if (op.toUpperCase() === 'FROM') {
      const name = /\sAS\s+(\S+)/i.exec(args)?.[1] ?? `stage${result.size}`
      current = []
      result.set(name, current)
    }
    current?.push({ op: op.toUpperCase(), args: args.replace(/\s+/g, ' ').trim() })
  }
  return result
}

/** The environment names src/config.ts reads (`env.NAME` and `(env, 'NAME'`). */
function configNames(): Set<string> {
  const text = read('src/config.ts')
  return new Set([...text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)|\(env, '([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1] ?? m[2] ?? ''))
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    return entry.isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : []
  })
}

/** Files outside dist/ that the compiled service reads (`new URL('…', import.meta.url)` in src/), relative to the root. */
function filesReadAtRunTime(): string[] {
  const found: string[] = []
  for (const file of sourceFiles(join(root, 'src'))) {
    const compiled = join(root, 'dist', relative(join(root, 'src'), file))
    for (const m of readFileSync(file, 'utf8').matchAll(/new URL\('([^']+)', import\.meta\.url\)/g)) {
      const target = relative(root, resolve(dirname(compiled), m[1] ?? ''))
      if (!target.startsWith('dist')) found.push(target)
    }
  }
  return found
}

const dockerfile = stages(read('Dockerfile'))
const names = [...dockerfile.keys()]
const runtime = dockerfile.get(names.at(-1) ?? '') ?? []
const build = dockerfile.get('build') ?? []
const dockerignore = read('.dockerignore').split('\n').filter(Boolean)
const jsonArgs = (args: string) => JSON.parse(args) as string[]
const runtimeEnv = new Map(
  runtime.filter((i) => i.op === 'ENV').flatMap((i) => [...i.args.matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)].map((m) => [m[1] ?? '', m[2] ?? ''] as const)),
)

describe('Dockerfile', () => {
  test('two stages, the last one the runtime: npm ci --omit=dev, without the build script that needs devDependencies', () => {
    assert.deepEqual(names, ['build', 'runtime'])
    const runs = runtime.filter((i) => i.op === 'RUN').map((i) => i.args)
    assert.ok(runs.some((r) => /npm ci --omit=dev/.test(r)), 'production dependencies only')
    assert.ok(runs.some((r) => r.includes('npm pkg delete scripts.prepare')), 'prepare (tsc) is not run where TypeScript is absent')
    assert.match(pkg.scripts.prepare ?? '', /npm run build/, 'prepare is indeed the build')
  })

  test('every `npm run` names a package.json script, and the build stage makes the dist/ the runtime copies', () => {
    for (const i of [...build, ...runtime].filter((x) => x.op === 'RUN')) {
      for (const m of i.args.matchAll(/npm run (\S+)/g)) assert.ok(m[1] && m[1] in pkg.scripts, `npm run ${m[1] ?? ''}`)
      for (const m of i.args.matchAll(/npm pkg delete scripts\.(\S+)/g)) assert.ok(m[1] && m[1] in pkg.scripts, `scripts.${m[1] ?? ''}`)
    }
    assert.ok(build.some((i) => i.op === 'RUN' && i.args.includes('npm run build')))
    const outDir = (JSON.parse(read('tsconfig.build.json')) as { compilerOptions: { outDir: string } }).compilerOptions.outDir
    assert.ok(runtime.some((i) => i.op === 'COPY' && i.args === `--from=build /app/${outDir} ${outDir}`))
  })

  test('every file copied from the context exists and is not excluded by .dockerignore', () => {
    for (const i of [...build, ...runtime].filter((x) => x.op === 'COPY' && !x.args.startsWith('--from'))) {
      const sources = i.args.split(' ').slice(0, -1)
      for (const source of sources) {
        assert.ok(existsSync(join(root, source)), `COPY ${source}: no such file`)
        assert.ok(!dockerignore.some((pattern) => source === pattern || source.startsWith(`${pattern}/`)), `${source} is in .dockerignore`)
      }
    }
  })

  test('the runtime stage holds every file the compiled service reads beside dist/ (migrations, stylesheet, package.json)', () => {
    // What the runtime stage holds: the sources copied from the context, the folders copied from the build stage.
    const copied = runtime
      .filter((i) => i.op === 'COPY')
      .flatMap((i) => (i.args.startsWith('--from') ? [i.args.split(' ').at(-1) ?? ''] : i.args.split(' ').slice(0, -1)))
    const needed = filesReadAtRunTime()
    assert.ok(needed.includes('migrations') && needed.includes('package.json'), `found: ${needed.join(', ')}`)
    for (const file of needed) {
      assert.ok(
        copied.some((c) => file === c || file.startsWith(`${c}/`)),
        `${file} is read at run time but not copied into the runtime stage`,
      )
    }
  })

  test('runs as a normal user, DATA_DIR a volume, settings src/config.ts reads', () => {
    const users = runtime.filter((i) => i.op === 'USER').map((i) => i.args)
    assert.ok(users.length > 0 && !['root', '0'].includes(users.at(-1) ?? ''), 'a non-root USER')
    const known = configNames()
    for (const name of runtimeEnv.keys()) assert.ok(known.has(name), `ENV ${name} is not read by src/config.ts`)
    const dataDir = runtimeEnv.get('DATA_DIR')
    assert.ok(dataDir, 'DATA_DIR set')
    assert.ok(runtime.some((i) => i.op === 'VOLUME' && i.args === dataDir), 'DATA_DIR is a volume')
    assert.ok(runtime.some((i) => i.op === 'RUN' && i.args.includes(`chown node:node ${dataDir}`)), 'the user owns DATA_DIR')
    assert.ok(runtime.some((i) => i.op === 'EXPOSE' && i.args === runtimeEnv.get('PORT')), 'EXPOSE is PORT')
  })

  test('HEALTHCHECK asks /readyz, a route the service has', () => {
    const check = runtime.find((i) => i.op === 'HEALTHCHECK')
    assert.ok(check)
    assert.match(check.args, /\/readyz/)
    assert.match(read('src/plugins/health.plugin.ts'), /app\.get\('\/readyz'/)
  })

  test('the command is what `npm start` runs', () => {
    const cmd = runtime.filter((i) => i.op === 'CMD').at(-1)
    assert.ok(cmd, 'a CMD')
    const start = pkg.scripts.start ?? ''
    assert.equal(jsonArgs(cmd.args).join(' '), start.replace(/^exec /, ''))
    assert.ok(existsSync(join(root, jsonArgs(cmd.args).at(-1) ?? '')), 'and that file is built (npm run build made it)')
  })
})

describe('compose.yaml', () => {
  const compose = read('compose.yaml')
  const services = [...compose.matchAll(/^ {2}([a-z][a-z0-9-]*):\s*$/gm)].map((m) => m[1])
  /** The lines of one service (two-space indented key up to the next one). */
  const service = (name: string) => new RegExp(`^ {2}${name}:\\s*\\n((?: {4}.*\\n|\\s*\\n)*)`, 'm').exec(compose)?.[1] ?? ''

  test('engage, PostgreSQL and Redis', () => {
    for (const name of ['engage', 'postgres', 'redis']) assert.ok(services.includes(name), `service ${name}`)
    assert.match(service('engage'), /^ {4}build: \.$/m)
    assert.ok(existsSync(join(root, 'Dockerfile')))
  })

  test("engage's settings are ones src/config.ts reads, pointing at the services defined here", () => {
    const engage = service('engage')
    const env = new Map([...engage.matchAll(/^ {6}([A-Z][A-Z0-9_]*): (.+)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']))
    const known = configNames()
    for (const name of env.keys()) assert.ok(known.has(name), `${name} is not read by src/config.ts`)
    const database = new URL(env.get('DATABASE_URL') ?? '')
    assert.ok(services.includes(database.hostname), 'DATABASE_URL names the postgres service')
    const postgres = service('postgres')
    assert.match(postgres, new RegExp(`POSTGRES_USER: ${database.username}$`, 'm'))
    assert.match(postgres, new RegExp(`POSTGRES_PASSWORD: ${database.password}$`, 'm'))
    assert.match(postgres, new RegExp(`POSTGRES_DB: ${database.pathname.slice(1)}$`, 'm'))
    assert.ok(services.includes(new URL(env.get('REDIS_URL') ?? '').hostname), 'REDIS_URL names the redis service')
    assert.match(engage, new RegExp(`- "\\d+:${runtimeEnv.get('PORT') ?? ''}"`), 'publishes the PORT the image listens on')
    assert.match(engage, new RegExp(`- [a-z-]+:${runtimeEnv.get('DATA_DIR') ?? ''}(\\s|$)`), 'a named volume on DATA_DIR')
  })

  test('engage waits for healthy PostgreSQL and Redis', () => {
    const engage = service('engage')
    for (const name of ['postgres', 'redis']) {
      assert.match(engage, new RegExp(`^ {6}${name}:\\n {8}condition: service_healthy$`, 'm'))
      assert.match(service(name), /^ {4}healthcheck:$/m)
    }
  })
})
