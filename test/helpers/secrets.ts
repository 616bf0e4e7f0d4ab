// The suite-wide search for secrets in the audit log (issue 28: "a test searches every record
// written in the whole suite for every token, secret and password the suite created").
// The helpers that make or see secrets remember them here (per test file: each runs in its
// own process): the factories' tokens, the web helpers' passwords, what the admin command line
// prints, and every API or web answer of an app built by startApp that shows a token, a
// signing secret or a password. Before a test database is dropped (test/helpers/app.ts), its
// audit records are read once and searched for each remembered secret, its SHA-256 (how
// tokens are stored), and anything shaped like a whole api token or signing secret: a hit
// fails the file, loudly, after the database is dropped. One query per database.
import { createHash } from 'node:crypto'
import pg from 'pg'

const remembered = new Set<string>()

// Shorter strings could occur in a record by chance (a name, a label).
const MIN_LENGTH = 12

/** Remembers a secret the test made or was shown, to search the audit log for it. */
export function rememberSecret(secret: string | null | undefined): void {
  // A lower-case word (`refresh_token` sent as a hint) is vocabulary, not a random secret.
  if (typeof secret === 'string' && secret.length >= MIN_LENGTH && !/^[a-z_]+$/.test(secret)) remembered.add(secret)
}

/** How many secrets are remembered (the test of this search). */
export const rememberedCount = () => remembered.size

// A whole api token (eng_ + 32 characters; a record may show its first 12) and a whole
// signing secret (whsec_ + base64 of 32 bytes), whoever made them.
const SHAPES = [/eng_[A-Za-z0-9_-]{32}/, /whsec_[A-Za-z0-9+/]{43}=/]

// JSON fields of answers and command output that hold a secret.
const SECRET_FIELDS = /"(token|secret|password|access_token|refresh_token|client_secret)"\s*:\s*"([^"]+)"/g

/** Remembers each secret a JSON text (an answer's body, a command's output) shows. */
export function rememberSecretsIn(text: string): void {
  if (!text.includes('"')) return
  for (const match of text.matchAll(SECRET_FIELDS)) rememberSecret(match[2])
  for (const invite of text.matchAll(/\/invite\/([A-Za-z0-9_-]{20,})/g)) rememberSecret(invite[1])
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** The problems of the audit records of the database at `url`: empty when none holds a secret. */
export async function secretsInAuditLog(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  let rows: Record<string, unknown>[]
  try {
    const { rows: [table] } = await client.query<{ name: string | null }>(`select to_regclass('public.audit_events')::text as name`)
    if (!table?.name) return []
    rows = (await client.query<Record<string, unknown>>('select * from audit_events order by id')).rows
  } finally {
    await client.end()
  }
  const problems: string[] = []
  const secrets = [...remembered].flatMap((secret) => [{ secret, shown: secret }, { secret: sha256(secret), shown: `sha256 of ${secret}` }])
  for (const row of rows) {
    const text = JSON.stringify(row)
    const where = `audit record ${String(row.id)} (${String(row.action)})`
    for (const { secret, shown } of secrets) {
      if (text.includes(secret)) problems.push(`${where} holds a secret the tests made: ${shown.slice(0, 16)}…`)
    }
    for (const shape of SHAPES) {
      const found = shape.exec(text)
      if (found) problems.push(`${where} holds something shaped like a secret: ${found[0].slice(0, 16)}…`)
    }
  }
  return problems
}
