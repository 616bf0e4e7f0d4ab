// The previous release, built from this repository's history: its files at a commit (git
// archive), this checkout's node_modules (a symlink) and this checkout's tsc. The upgrade test
// (test/upgrade) and the drill's rolling upgrade (deploy/local-cluster) run its dist/server.js.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/** The release upgraded from: the last landed main, moved forward at each release. */
export const PREVIOUS_RELEASE = 'aba1610'

const REPO = resolve(import.meta.dirname, '../..')

export interface PreviousRelease {
  commit: string
  /** Its checkout: package.json, migrations/, dist/ (compiled), node_modules → this checkout's. */
  dir: string
  version: string
  /** Its migrations' names, in order; the last is its schema version. */
  migrations: string[]
}

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
}

/** The full hash of `commit`, or a clear error: a shallow clone lacks the history the test needs. */
export function resolveCommit(commit: string): string {
  try {
    return git(['rev-parse', '--verify', '--quiet', `${commit}^{commit}`])
  } catch {
    throw new Error(
      `the previous release ${commit} is not in this clone's history (a shallow clone? git fetch --unshallow): the upgrade cannot be tested without it`,
    )
  }
}

type Dependencies = Record<string, string>

/** `^x.y.z` admits `version`: same major (same minor below 1.0), and not older. */
function caretAdmits(range: string, version: string): boolean {
  const want = /^\^(\d+)\.(\d+)\.(\d+)/.exec(range)
  const have = /^(\d+)\.(\d+)\.(\d+)/.exec(version)
  if (!want || !have) return false
  const [w, h] = [want.slice(1, 4).map(Number), have.slice(1, 4).map(Number)] as [number[], number[]]
  const [wMajor = 0, wMinor = 0, wPatch = 0] = w
  const [hMajor = 0, hMinor = 0, hPatch = 0] = h
  if (hMajor !== wMajor) return false
  if (wMajor === 0 && hMinor !== wMinor) return false
  return hMinor > wMinor || (hMinor === wMinor && hPatch >= wPatch)
}

/**
 * The old release's run-time dependencies that this checkout's node_modules does not satisfy
 * (missing, or installed at a version outside the old range); empty when it can run on them.
 */
export function unmetDependencies(old: Dependencies, modules = join(REPO, 'node_modules')): string[] {
  const unmet: string[] = []
  for (const [name, range] of Object.entries(old)) {
    const file = join(modules, name, 'package.json')
    if (!existsSync(file)) {
      unmet.push(`${name}@${range}: not installed`)
      continue
    }
    const installed = (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version
    if (!caretAdmits(range, installed)) unmet.push(`${name}@${range}: ${installed} is installed`)
  }
  return unmet
}

/**
 * Builds the release at `commit` once into the system's temporary folder (kept: a second run
 * reuses it) and answers where it is. Throws, saying why, when the commit is not
 * in the history or its dependencies are not a subset of the installed ones.
 */
export function buildPreviousRelease(commit = PREVIOUS_RELEASE, log: (line: string) => void = () => undefined): PreviousRelease {
  const hash = resolveCommit(commit)
  // Outside node_modules (tsc emits nothing from a path through it), one per checkout (its node_modules linked in).
  const dir = join(tmpdir(), 'engage-previous-release', `${hash.slice(0, 12)}-${createHash('sha256').update(REPO).digest('hex').slice(0, 8)}`)
  const pkg = JSON.parse(git(['show', `${hash}:package.json`])) as { version: string; dependencies?: Dependencies }
  const unmet = unmetDependencies(pkg.dependencies ?? {})
  if (unmet.length > 0) {
    throw new Error(
      `the previous release ${commit} needs dependencies this checkout's node_modules does not have, so it cannot be run from it:\n  ${unmet.join('\n  ')}`,
    )
  }
  if (!existsSync(join(dir, 'built'))) {
    log(`building the previous release ${commit} (${hash.slice(0, 12)}) in ${dir}`)
    const partial = `${dir}.partial`
    rmSync(partial, { recursive: true, force: true })
    mkdirSync(partial, { recursive: true })
    const archive = execFileSync('git', ['archive', '--format=tar', hash], { cwd: REPO, maxBuffer: 1 << 30 })
    execFileSync('tar', ['-x', '-C', partial], { input: archive })
    symlinkSync(join(REPO, 'node_modules'), join(partial, 'node_modules'), 'dir')
    execFileSync(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: partial, stdio: ['ignore', 'pipe', 'pipe'] })
    writeFileSync(join(partial, 'built'), `${new Date().toISOString()}\n`)
    rmSync(dir, { recursive: true, force: true })
    renameSync(partial, dir)
  }
  const migrations = git(['ls-tree', '--name-only', `${hash}:migrations`])
    .split('\n')
    .filter((name) => name.endsWith('.sql'))
    .map((name) => name.replace(/\.sql$/, ''))
    .sort()
  return { commit: hash, dir, version: pkg.version, migrations }
}
