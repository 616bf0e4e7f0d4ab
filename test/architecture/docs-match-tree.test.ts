// The docs say what is in src/, and this test keeps them in step with the tree
// (docs/architecture.md, "Folder READMEs"). The convention, for every folder of src/ that
// holds a file:
// - it has a README.md;
// - its README.md names each of its entries in backticks, `name.ts` for a file and `name/`
//   for a folder (README.md itself aside);
// - a bare name in backticks (no slash inside, a file's extension or one trailing slash) is
//   an entry of that folder, so one that is not there is stale. Elsewhere is written as a
//   path: `../config.ts`, `src/db/`, `frame/form.ts`, `<name>.cli.ts`.
// And docs/architecture.md's tree of src/ names every entry of src/ and every file of
// src/db/, and each file it names under a folder is in that folder.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'

const root = fileURLToPath(new URL('../../', import.meta.url))

/** A bare file name (one of the kinds kept in src/ or named in its READMEs) or folder name. */
const BARE = /^[\w-][\w.-]*(?:\.(?:ts|mts|js|mjs|cjs|json|css|svg|md|sql|html|txt)|\/)$/

/** A folder's entries as a README names them: `name.ts`, `name/`. */
function entries(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true })
    .filter((entry) => entry.name !== 'README.md')
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort()
}

/** src/ and every folder below it, as paths from the repository's root. */
function folders(folder = 'src'): string[] {
  const below = readdirSync(join(root, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => folders(`${folder}/${entry.name}`))
  return [folder, ...below]
}

const holdsAFile = (folder: string) => readdirSync(join(root, folder), { withFileTypes: true }).some((entry) => entry.isFile())

/** The code spans of a markdown text, fenced blocks left out. */
const codeSpans = (text: string) => [...text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '')

function readmeProblems(folder: string): string[] {
  let text: string
  try {
    text = readFileSync(join(root, folder, 'README.md'), 'utf8')
  } catch {
    return [`${folder}/: no README.md`]
  }
  const present = entries(folder)
  const named = new Set(codeSpans(text).filter((span) => BARE.test(span)))
  return [
    ...present.filter((entry) => !named.has(entry)).map((entry) => `${folder}/README.md: \`${entry}\` is not named`),
    ...[...named].filter((name) => !present.includes(name)).sort().map((name) => `${folder}/README.md: names \`${name}\`, which is not in ${folder}/`),
  ]
}

test('every folder of src/ has a README.md that names its entries, and only those', () => {
  const all = folders()
  assert.ok(all.length > 30, `only ${String(all.length)} folders`)
  const problems = all.filter(holdsAFile).flatMap(readmeProblems)
  if (problems.length > 0) assert.fail(`\n${problems.join('\n')}`)
})

/** docs/architecture.md's tree of src/: each entry line (two spaces in) with its continuation lines. */
function architectureTree(): { entry: string; text: string }[] {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8')
  const block = /^```\n(src\/\n[\s\S]*?)^```/m.exec(doc)?.[1]
  assert.ok(block, 'docs/architecture.md has no tree of src/')
  const tree: { entry: string; text: string }[] = []
  for (const line of block.split('\n').slice(1)) {
    if (!line.startsWith(' ')) break
    const entry = /^ {2}(\S+)(.*)$/.exec(line)
    const last = tree.at(-1)
    if (entry?.[1]) tree.push({ entry: entry[1], text: entry[2] ?? '' })
    else if (last) last.text += line
  }
  return tree
}

const exists = (path: string) => {
  try {
    statSync(join(root, path))
    return true
  } catch {
    return false
  }
}

test('docs/architecture.md names every entry of src/ and every file of src/db/, and nothing that is not there', () => {
  const tree = architectureTree()
  // `modules/index.ts` and `modules/<resource>/` both stand for `modules/`.
  const listed = tree.map(({ entry }) => entry.replace(/\/.+$/, '/'))
  const problems = [
    ...entries('src').filter((entry) => !listed.includes(entry)).map((entry) => `src/${entry} is not in the tree`),
    ...tree.map(({ entry }) => entry).filter((entry) => !entry.includes('<') && !exists(`src/${entry}`)).map((entry) => `src/${entry} is in the tree, not in src/`),
  ]
  for (const { entry, text } of tree) {
    if (!entry.endsWith('/') || entry.includes('<')) continue
    // A file named in a folder's line: a name not inside a path or a pattern (`<r>.service.ts`).
    const files = new Set([...text.matchAll(/(?<![\w.<>/-])([\w-]+(?:\.[\w-]+)*\.(?:ts|json|css|svg))\b/g)].map((match) => match[1] ?? ''))
    for (const file of files) if (!exists(`src/${entry}${file}`)) problems.push(`the tree names ${file} under src/${entry}, which does not hold it`)
    if (entry === 'db/') for (const file of entries('src/db')) if (!files.has(file)) problems.push(`src/db/${file} is not in the tree`)
  }
  if (problems.length > 0) assert.fail(`\n${problems.join('\n')}`)
})
