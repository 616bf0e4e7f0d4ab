// Statements written once, as SQL a reviewer can read, and run as named prepared
// statements: PostgreSQL parses and plans each once per connection, and nothing assembles
// SQL per request. A repository defines its statements at module load with defineQuery and
// runs them with run(db, query, params), where db is the database or a transaction.
import { createHash } from 'node:crypto'
import { channel } from 'node:diagnostics_channel'
import pg from 'pg'
import { countStatementError } from '../metrics/shared.js'
import { traced } from '../tracing.js'
import { longerWaitOf, type Db } from './db.js'
import { pipelineOf } from './pipeline.js'
import { queryNamed, queryNamedOnPool } from './pooler-statements.js'
import { replicaFor } from './replica.js'

export interface Query<Row> {
  /** `<module>.<what>`, unique. */
  readonly name: string
  /**
   * The prepared statement's name on the wire: the name and a hash of the text, so that two
   * versions of a statement (a rolling deploy behind one pooler) never share a name.
   */
  readonly preparedName: string
  readonly text: string
  /**
   * A short read (through a key or a small bounded range, about a millisecond) that may share
   * a pipelined connection with other requests' reads when it runs outside a transaction
   * (src/db/pipeline.ts). Never for a statement that could hold the line up.
   */
  readonly pipelined: boolean
  /** Where defineQuery was called (`file:line:column`), for the statements snapshot. */
  readonly definedAt: string
  /**
   * A read that may run on the read replica (DATABASE_REPLICA_URL) when it runs outside a
   * transaction and the replica is exact for the caller (src/db/replica.ts): lists, counts,
   * searches, sync walks.
   */
  readonly replica: boolean
  /** Phantom: the row type the statement answers. */
  readonly row?: Row
}

const registry = new Map<string, Query<unknown>>()

export function defineQuery<Row>(name: string, text: string, options: { pipelined?: boolean; replica?: boolean } = {}): Query<Row> {
  if (registry.has(name)) throw new Error(`query ${name} is defined twice`)
  // PostgreSQL cuts names at 63 bytes: the hash must fit.
  if (Buffer.byteLength(name) > 52) throw new Error(`query name ${name} is longer than 52 bytes`)
  const query: Query<Row> = {
    name,
    preparedName: `${name}/${createHash('sha256').update(text).digest('hex').slice(0, 10)}`,
    text,
    pipelined: options.pipelined ?? false,
    replica: options.replica ?? false,
    definedAt: caller(new Error().stack),
  }
  registry.set(name, query)
  return query
}

/** The `file:line:column` of the stack's third line: who called defineQuery. */
function caller(stack: string | undefined): string {
  const line = stack?.split('\n')[2] ?? ''
  return /\(?((?:file:\/\/)?[^\s(]+:\d+:\d+)\)?\s*$/.exec(line)?.[1] ?? ''
}

/** Every statement defined so far (the snapshot test prepares each against the schema). */
export function definedQueries(): Query<unknown>[] {
  return [...registry.values()]
}

/**
 * How statements are sent (DB_PREPARED_STATEMENTS, DB_POOLER):
 * - `named`: prepared once per connection, by name (PostgreSQL itself; PgBouncer 1.21+ with
 *   max_prepared_statements);
 * - `pooled`: behind a transaction pooler that does not keep them (PgBouncer before 1.21):
 *   named outside transactions, recovering when a server connection lacks or has the name
 *   (pooler-statements.ts); unnamed inside, where a failed statement would end the transaction;
 * - `unnamed`: parsed and planned at every run.
 */
export type StatementMode = 'named' | 'pooled' | 'unnamed'

let mode: StatementMode = 'named'

export function useStatements(next: StatementMode): void {
  mode = next
}

/** How statements are sent now (a worker thread of the process sends them the same way). */
export const statementMode = (): StatementMode => mode

/** Each statement run() sends (its Query), for whoever counts a request's statements (tests). */
export const statementChannel = channel('engage.db.statement')

/** Runs a statement of the registry on the pool (pipelined when it may be) or on a transaction's client. */
export function run<Row>(db: Db, query: Query<Row>, params: unknown[]): Promise<Row[]> {
  return traced(`db ${query.name}`, { 'db.system.name': 'postgresql', 'db.query.summary': query.name }, () => send(db, query, params))
}

async function send<Row>(db: Db, query: Query<Row>, params: unknown[]): Promise<Row[]> {
  // Only a statement defineQuery registered runs, so the snapshot (test/db/statements) shows every one.
  if (registry.get(query.name) !== query) throw new Error(`query ${query.name} was not defined with defineQuery`)
  if (statementChannel.hasSubscribers) statementChannel.publish(query)
  const pool = db instanceof pg.Pool ? db : undefined
  const named = mode === 'named' || (mode === 'pooled' && pool !== undefined)
  const wait = longerWaitOf(db)
  // query_timeout: node-postgres's bound on the answer's wait, for this statement only.
  const config: pg.QueryConfig & { query_timeout?: number } = {
    ...(named ? { name: query.preparedName, text: query.text, values: params } : { text: query.text, values: params }),
    ...(wait === undefined ? {} : { query_timeout: wait }),
  }
  const recovering = named && mode === 'pooled'
  const pipeline = query.pipelined && pool ? pipelineOf(pool) : undefined
  const primary = () =>
    pipeline
      ? pipeline.query<Row & pg.QueryResultRow>(config, recovering ? queryNamed : undefined)
      : pool && recovering
        ? queryNamedOnPool<Row & pg.QueryResultRow>(pool, config)
        : db.query<Row & pg.QueryResultRow>(config)
  const replica = query.replica && pool ? replicaFor(pool) : undefined
  try {
    const result = await (replica ? replica.query<Row & pg.QueryResultRow>(config, primary, recovering) : primary())
    return result.rows
  } catch (err) {
    countStatementError(err)
    throw err
  }
}

/** The first row, or undefined. */
export async function runOne<Row>(db: Db, query: Query<Row>, params: unknown[]): Promise<Row | undefined> {
  const rows = await run(db, query, params)
  return rows[0]
}

/** The one row the statement always answers (an insert's RETURNING, an upsert's). */
export async function runSingle<Row>(db: Db, query: Query<Row>, params: unknown[]): Promise<Row> {
  const row = await runOne(db, query, params)
  if (row === undefined) throw new Error(`${query.name} returned no row`)
  return row
}
