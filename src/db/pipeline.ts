// Short reads share a few pipelined connections (node-postgres `pipeline: true`) instead of
// taking a pooled connection each. A pooled read costs a round trip per request on both
// sides: the driver writes one query and waits, and the server backend wakes up, answers
// and sleeps again for every request. On a pipelined connection the queries of all the
// requests that arrive in one turn of the event loop go out in one write (the socket is
// corked until setImmediate), the server reads them in one go and answers them in order, and
// the driver reads the answers together. Each query still ends with its own Sync, so it is
// its own implicit transaction with its own error: one failing query fails alone.
//
// Only statements that cannot hold the line up take this path: reads through a key or a
// small bounded range, each answered in about a millisecond (defineQuery's `pipelined`
// option). A statement queued behind a slow one waits for it, so searches, walks and the
// pages of the big lists (whose OFFSET can walk far) keep their pooled connections, as do
// transactions.
//
// A lane whose connection fails (killed, the server stopped, no answer within the client's
// query timeout, which destroys the connection) fails the queries in flight on it, as a
// pooled connection would, and the next query opens a new one.
import pg from 'pg'

export interface PipelineOptions {
  /** Pipelined connections; queries go to them in turn. */
  connections: number
  /** The settings of each connection (the pool's: timeouts, session options). */
  client: pg.ClientConfig
  onError: (err: Error) => void
}

interface Lane {
  client: pg.Client
  connected: Promise<void>
  /** Corked until the end of this event-loop turn: the turn's queries leave in one write. */
  corked: boolean
  broken: boolean
}

export class Pipeline {
  private readonly lanes: (Lane | undefined)[]
  private next = 0
  private closed = false

  constructor(private readonly options: PipelineOptions) {
    this.lanes = new Array<Lane | undefined>(options.connections).fill(undefined)
  }

  /** `send` runs the query on the lane's client (queryNamed behind a transaction pooler). */
  async query<Row extends pg.QueryResultRow>(
    config: pg.QueryConfig,
    send: (client: pg.Client, config: pg.QueryConfig) => Promise<pg.QueryResult<Row>> = (client) => client.query<Row>(config),
  ): Promise<pg.QueryResult<Row>> {
    if (this.closed) throw new Error('Client was closed and is not queryable')
    const index = this.next
    this.next = (index + 1) % this.lanes.length
    let lane = this.lanes[index]
    if (!lane || lane.broken) {
      lane = this.open()
      this.lanes[index] = lane
    }
    if (!lane.corked) {
      lane.corked = true
      const stream = lane.client.connection.stream
      stream.cork()
      const uncorking = lane
      setImmediate(() => {
        uncorking.corked = false
        stream.uncork()
      })
    }
    await lane.connected
    return send(lane.client, config)
  }

  private open(): Lane {
    // keepAlive: a lane stays open while idle, and a connection a firewall dropped silently
    // is found by the kernel instead of by the next query's timeout.
    const client = new pg.Client({ ...this.options.client, pipeline: true, keepAlive: true })
    const lane: Lane = { client, connected: Promise.resolve(), corked: false, broken: false }
    const broken = () => {
      lane.broken = true
    }
    client.on('error', (err) => {
      broken()
      this.options.onError(err)
    })
    client.on('end', broken)
    lane.connected = client.connect().then(() => undefined, (err: unknown) => {
      broken()
      void client.end().catch(() => undefined)
      throw err
    })
    // The rejection is the queries' to report; this keeps an unawaited one from crashing.
    lane.connected.catch(() => undefined)
    return lane
  }

  /** Waits for the queries in flight, then closes the connections. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all(
      this.lanes.map(async (lane) => {
        if (!lane) return
        await lane.connected.catch(() => undefined)
        await lane.client.end().catch(() => undefined)
      }),
    )
  }
}

// The pipeline of each pool (src/db/client.ts makes both), found by run() in src/db/query.ts.
const pipelines = new WeakMap<object, Pipeline>()

export function attachPipeline(pool: pg.Pool, pipeline: Pipeline): void {
  pipelines.set(pool, pipeline)
}

/** The pipeline of a pool; undefined for a transaction's client or a pool without one. */
export function pipelineOf(client: object): Pipeline | undefined {
  return pipelines.get(client)
}
