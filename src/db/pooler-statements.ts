// Named statements behind a transaction pooler that does not keep them (PgBouncer before
// 1.21 in transaction mode): outside a transaction each statement may meet any of the
// pooler's server connections, while node-postgres remembers per client connection which
// names it has parsed. A server connection without the name answers the Bind with 26000; one
// that has it answers a Parse with 42P05. Both fail before anything runs, so the statement is
// sent again with the driver's memory corrected; soon every server connection has every
// statement it is asked for, and then none fails (docs/performance.md, "Through PgBouncer and
// a read replica").
import type pg from 'pg'

/** invalid_sql_statement_name: this server connection has not prepared the name. */
const NOT_PREPARED = '26000'
/** duplicate_prepared_statement: this server connection has prepared it already. */
const ALREADY_PREPARED = '42P05'
/** Named tries before the statement goes unnamed, which every server connection accepts. */
const NAMED_TRIES = 3

/**
 * node-postgres's memory of the names a connection has parsed (pg 8: `parsedStatements` on
 * the client's connection), the one private field of a library the service reads;
 * test/db/pooler-statements.test.ts fails if a pg upgrade changes it.
 */
function parsedNames(client: pg.ClientBase): Record<string, string | undefined> {
  return (client as unknown as { connection: { parsedStatements: Record<string, string | undefined> } }).connection.parsedStatements
}

/** Runs a named statement on a client whose server connection may differ from one statement to the next. */
export async function queryNamed<Row extends pg.QueryResultRow>(client: pg.ClientBase, config: pg.QueryConfig): Promise<pg.QueryResult<Row>> {
  const name = config.name
  if (name === undefined) return client.query<Row>(config)
  for (let tries = 1; tries <= NAMED_TRIES; tries++) {
    try {
      return await client.query<Row>(config)
    } catch (err) {
      const code = (err as { code?: unknown }).code
      if (code === NOT_PREPARED) parsedNames(client)[name] = undefined
      else if (code === ALREADY_PREPARED) parsedNames(client)[name] = config.text
      else throw err
    }
  }
  return client.query<Row>({ text: config.text, values: config.values })
}

/** queryNamed on a client of the pool; like pool.query, a client whose statement failed is not reused. */
export async function queryNamedOnPool<Row extends pg.QueryResultRow>(pool: pg.Pool, config: pg.QueryConfig): Promise<pg.QueryResult<Row>> {
  const client = await pool.connect()
  let failed: Error | undefined
  try {
    return await queryNamed<Row>(client, config)
  } catch (err) {
    failed = err instanceof Error ? err : new Error(String(err))
    throw err
  } finally {
    client.release(failed)
  }
}
