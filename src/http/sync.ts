// Incremental sync (issue 13): `updated_since` walks of a list in (updated_at, id) order,
// page after page with a signed cursor, never skipping or repeating a record although
// records are written while the walk runs. docs/integrators.md explains it to callers; the
// reasoning is here.
//
// The commit-order race: a transaction that stamped a row's updated_at earlier may commit
// after a page that already went past that instant, and a walk that only moves forward
// would never see the row. So a page only returns rows stamped before a high-water mark:
// the start of the oldest transaction still open on the database (pg_stat_activity), or
// now if none is, minus a margin, and never later than the app clock's now minus the margin.
// Every write stamps updated_at with its request's clock, read before its transaction
// begins (or with the database's now(), the transaction's start): at most the margin
// before that transaction's start. A transaction open when the mark was taken therefore
// stamps at or after the mark; one that begins later stamps after it too. Either way its
// rows wait for a later page, which starts from the cursor and still sees them.
//
// The mark is taken by its own statement, which must have finished before the page's
// statement takes its snapshot: in one statement, a transaction committing between the
// snapshot and the read of pg_stat_activity would be neither seen nor waited for. A mark
// stays safe as it ages (it only holds more rows back), so one is reused for up to a second
// across requests: most pages are one round trip.
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static, type TSchema } from 'typebox'
import type { Db } from '../db/db.js'
import { defineQuery, runOne } from '../db/query.js'
import { requireReplayed } from '../db/replica.js'
import { invalid } from '../errors.js'
import type { SecretKeys } from '../secret-key.js'
import type { Caller, CompanyId } from '../tenancy.js'
import { instantOf } from './dates.js'
import { JSON_TYPE, sendJsonText } from './json-text.js'
import { DEFAULT_PER_PAGE, linkParts, sendListPage, type ListPage } from './pagination.js'
import { operation, type OperationConfig, type OperationTexts } from './routes.js'
import { Ref } from './schemas.js'
import { requireGiven } from './validation.js'

/** The lists a walk can run on; a cursor names its list and works on no other. */
export type SyncResource = 'contacts' | 'tasks' | 'leads' | 'meet_transcriptions' | 'whatsapp_messages' | 'audit_events'

/**
 * How far behind the clocks a walk stays: covers the time between a request reading its
 * clock and its transaction beginning (the pool's 3 s connection wait at worst) plus clock
 * skew between instances and the database.
 */
export const SYNC_MARGIN_MS = 5_000
/** How long a high-water mark is reused by this process. */
export const MARK_REUSE_MS = 1_000

const options = { marginMs: SYNC_MARGIN_MS, reuseMs: MARK_REUSE_MS }

/** Tests only: a shorter margin or reuse, so that walks catch up without waiting seconds. */
export function setSyncOptions(changes: Partial<typeof options>): void {
  Object.assign(options, changes)
}

export const SyncParams = {
  updated_since: Type.Optional(Type.String({
    format: 'date-time',
    description:
      'ISO 8601 date-time with offset: walk the records changed at or after it, in (updated_at, id) order, ' +
      'a page at a time with `cursor` (see `meta.next_cursor`); no other filter, no `page`',
  })),
  cursor: Type.Optional(Type.String({
    maxLength: 1000,
    description: '`meta.next_cursor` of the previous page of a walk: carries the position (and wins over `updated_since`)',
  })),
}

export const SyncMeta = Type.Object(
  {
    per_page: Type.Integer({ description: 'records per page (1 to 100, default 25)' }),
    has_more: Type.Boolean({ description: 'more records are ready now: ask again with `next_cursor` at once' }),
    next_cursor: Type.String({
      description:
        'where the walk stands after this page: pass it as `cursor`, now when `has_more`, else later to get what changed meanwhile',
    }),
  },
  {
    $id: 'SyncMeta',
    description:
      'Where an `updated_since` walk stands. Records changed in the last few seconds wait for a later page, ' +
      'so a walk never skips one that commits late; there is no total',
    examples: [{ per_page: 100, has_more: true, next_cursor: 'eyJ2IjoxLCJyIjoiY29udGFjdHMiLCJjIjoxLCJ0IjoiMjAyNi0xMS0yMlQxMDowMDowMC4wMDAwMDBaIiwiaSI6N30.x5Vd3k' }],
  },
)

/** A page of a walk (`<Name>SyncPage`): the records (`item`, often a Ref) and where the walk stands. */
export const SyncList = <T extends TSchema>(item: T, id: string, description: string) =>
  Type.Object({ data: Type.Array(item), meta: Ref(SyncMeta) }, { $id: id, description })

/** An updated_at to the microsecond, as PostgreSQL keeps it (milliseconds would tie or skip). */
export const syncAt = (column: string) => `to_char((${column}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

/** A place in a walk: after the record (at, id) in (updated_at, id) order. */
export interface SyncPosition {
  /** updated_at to the microsecond, UTC: `2026-11-22T10:00:00.123456Z`. */
  at: string
  id: number
}

export interface SyncQuery {
  updated_since?: string | undefined
  cursor?: string | undefined
  per_page?: number | undefined
}

const AT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/
const CURSOR_VERSION = 1

function signature(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest()
}

export function encodeCursor(key: Buffer, resource: SyncResource, companyId: CompanyId, position: SyncPosition): string {
  const payload = Buffer.from(
    JSON.stringify({ v: CURSOR_VERSION, r: resource, c: companyId, t: position.at, i: position.id }),
  ).toString('base64url')
  return `${payload}.${signature(key, payload).toString('base64url')}`
}

const badCursor = (message: string) => invalid({ cursor: [message] })

/** The position a cursor carries, or a 422 naming what is wrong with it. */
export function decodeCursor(key: Buffer, resource: SyncResource, companyId: CompanyId, cursor: string): SyncPosition {
  const [payload, sig, extra] = cursor.split('.')
  if (payload === undefined || sig === undefined || extra !== undefined) throw badCursor('is invalid')
  const expected = signature(key, payload)
  const given = Buffer.from(sig, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw badCursor('is invalid (not a cursor this service issued, or altered)')
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
  } catch {
    throw badCursor('is invalid')
  }
  const c = parsed as { v?: unknown; r?: unknown; c?: unknown; t?: unknown; i?: unknown }
  if (c.v !== CURSOR_VERSION || typeof c.t !== 'string' || !AT.test(c.t) || !Number.isSafeInteger(c.i) || (c.i as number) < 0) {
    throw badCursor('is invalid')
  }
  if (c.r !== resource) throw badCursor(`is invalid (a cursor of another list: ${String(c.r)})`)
  if (c.c !== companyId) throw badCursor('is invalid (a cursor of another company)')
  return { at: c.t, id: c.i as number }
}

/**
 * Whether the request is a walk, and from where: the cursor's position, else just before
 * the first record changed at `updated_since`; undefined for a page of the list. The other
 * filters of the list (`refused`, with `page`) cannot be combined with a walk: 422.
 */
export function syncPosition<Q extends SyncQuery>(
  key: Buffer,
  resource: SyncResource,
  companyId: CompanyId,
  query: Q,
  refused: readonly (keyof Q & string)[],
): SyncPosition | undefined {
  const cursor = query.cursor === '' ? undefined : query.cursor
  if (cursor === undefined && query.updated_since === undefined) return undefined
  const mode = cursor === undefined ? 'updated_since' : 'cursor'
  const fields = query as Record<string, unknown>
  const given = ['page', ...refused].filter((name) => fields[name] !== undefined && fields[name] !== '')
  if (given.length > 0) throw invalid(Object.fromEntries(given.map((name) => [name, [`can't be combined with ${mode}`]])))
  if (cursor !== undefined) return decodeCursor(key, resource, companyId, cursor)
  const since = instantOf(query.updated_since ?? '')
  return { at: `${since.toISOString().slice(0, -1)}000Z`, id: 0 }
}

// The start of the oldest transaction open on this database (other than this statement's),
// or now, minus the margin ($1 ms); it is an aggregate so that it answers one row whatever
// is running. With it, the primary's WAL position once that was read: a page read on the
// read replica waits until the replica has replayed that far (src/db/replica.ts), so it sees
// all the mark covers.
const markStatement = defineQuery<{ at: string; lsn: string }>(
  'sync.highWaterMark',
  `select ${syncAt(`least(now(), min(xact_start)) - $1::int * interval '1 millisecond'`)} as at,
          pg_current_wal_insert_lsn()::text as lsn
     from pg_stat_activity
    where datname = current_database() and backend_type = 'client backend'
      and pid <> pg_backend_pid() and xact_start is not null`,
)

const marks = new WeakMap<Db, { takenAt: number; mark: Promise<{ at: string; lsn: string }> }>()

async function highWaterMark(db: Db): Promise<string> {
  const cached = marks.get(db)
  const entry =
    cached && performance.now() - cached.takenAt < options.reuseMs
      ? cached
      : {
          takenAt: performance.now(),
          mark: runOne(db, markStatement, [options.marginMs]).then((row) => {
            if (!row) throw new Error('no high-water mark')
            return row
          }),
        }
  if (entry !== cached) {
    marks.set(db, entry)
    entry.mark.catch(() => {
      if (marks.get(db) === entry) marks.delete(db)
    })
  }
  const { at, lsn } = await entry.mark
  requireReplayed(lsn)
  return at
}

/**
 * What a walk statement takes: $1 company, $2 $3 the position (at, id), $4 the database's
 * high-water mark, $5 the app clock's (now minus the margin), $6 one more than a page.
 */
export interface WalkWindow {
  after: SyncPosition
  mark: string
  clockMark: Date
  limit: number
}

export const walkParams = (companyId: CompanyId, w: WalkWindow): unknown[] =>
  [companyId, w.after.at, w.after.id, w.mark, w.clockMark, w.limit]

export interface SyncMetaBody {
  per_page: number
  has_more: boolean
  next_cursor: string
}

/** A request for a page of a walk, as the route hands it to the service. */
export interface WalkRequest {
  /** The cursor signing key. */
  key: Buffer
  /** The request's clock. */
  now: Date
  after: SyncPosition
  perPage: number | undefined
}

/**
 * The walk a list request asks for (see syncPosition), or undefined for a page of the list.
 */
function walkRequest<Q extends SyncQuery>(
  keys: SecretKeys,
  resource: SyncResource,
  caller: Caller,
  query: Q,
  refused: readonly (keyof Q & string)[],
): WalkRequest | undefined {
  const key = keys.derive('sync cursor')
  const after = syncPosition(key, resource, caller.companyId, query, refused)
  return after && { key, now: caller.now, after, perPage: query.per_page }
}

/** What a page of a walk answers: its records, or their JSON array as text (walkJsonPage), and where the walk stands. */
export type WalkPage = { data: unknown[]; meta: SyncMetaBody } | { json: string; meta: SyncMetaBody }

/**
 * The rows of one page of a walk and where the walk stands after them: `read` runs the list's
 * walk statement on the window (rows carry `sync_at`, their updated_at to the microsecond).
 */
async function walkRows<Row extends { sync_at: string; id: number }>(
  db: Db,
  walk: WalkRequest & { resource: SyncResource; companyId: CompanyId },
  read: (window: WalkWindow) => Promise<Row[]>,
): Promise<{ page: Row[]; meta: SyncMetaBody }> {
  const perPage = walk.perPage ?? DEFAULT_PER_PAGE
  const mark = await highWaterMark(db)
  const clockMark = new Date(walk.now.getTime() - options.marginMs)
  const rows = await read({ after: walk.after, mark, clockMark, limit: perPage + 1 })
  const page = rows.slice(0, perPage)
  const last = page.at(-1)
  const position = last ? { at: last.sync_at, id: last.id } : walk.after
  return {
    page,
    meta: {
      per_page: perPage,
      has_more: rows.length > perPage,
      next_cursor: encodeCursor(walk.key, walk.resource, walk.companyId, position),
    },
  }
}

/** One page of a walk (walkRows), each row made its API shape by `toItem`. */
export async function walkPage<Row extends { sync_at: string; id: number }, Item>(
  db: Db,
  walk: WalkRequest & { resource: SyncResource; companyId: CompanyId },
  read: (window: WalkWindow) => Promise<Row[]>,
  toItem: (row: Row) => Item,
): Promise<{ data: Item[]; meta: SyncMetaBody }> {
  const { page, meta } = await walkRows(db, walk, read)
  return { data: page.map(toItem), meta }
}

/** One page of a walk (walkRows) whose statement writes each record as JSON text (`json`): sent as it is. */
export async function walkJsonPage(
  db: Db,
  walk: WalkRequest & { resource: SyncResource; companyId: CompanyId },
  read: (window: WalkWindow) => Promise<{ sync_at: string; id: number; json: string }[]>,
): Promise<{ json: string; meta: SyncMetaBody }> {
  const { page, meta } = await walkRows(db, walk, read)
  return { json: `[${page.map((row) => row.json).join(',')}]`, meta }
}

/** Drops the walk's own column from a row. */
export function withoutSyncAt<Row extends { sync_at: string }>(row: Row): Omit<Row, 'sync_at'> {
  const { sync_at: _, ...record } = row
  return record
}

/**
 * Sends a page of a walk, with a `Link` header (rel `next`) when more is ready now: the
 * request's parameters but `page`, `updated_since` and `api_token`, with the new cursor.
 * The records are already JSON text or in their API shapes, which plain JSON.stringify
 * writes (the route's response schema, a union of the list's two shapes, would validate
 * every record to pick one).
 */
export function sendWalkPage(request: FastifyRequest, reply: FastifyReply, body: WalkPage) {
  if (body.meta.has_more) {
    const { path, kept } = linkParts(request.url, DROPPED)
    reply.header('link', `<${path}?${[`cursor=${encodeURIComponent(body.meta.next_cursor)}`, ...kept].join('&')}>; rel="next"`)
  }
  if ('json' in body) return sendJsonText(reply, `{"data":${body.json},"meta":${JSON.stringify(body.meta)}}`)
  return reply.type(JSON_TYPE).serializer(JSON.stringify).send(body)
}

/** Parameters a walk's next link never repeats: the token, the page, and the walk's start, which the cursor replaces. */
const DROPPED: ReadonlySet<string> = new Set(['api_token', 'page', 'updated_since', 'cursor'])

/**
 * A list route that also walks (`updated_since`), declared once when its module loads
 * (walkingList). Its reads are its service's functions, each called with the app's database
 * and the request's caller.
 */
export interface WalkingList<Q, K extends keyof Q & string, One> {
  resource: SyncResource
  /** The list's filters, which a walk refuses. */
  walkRefuses: readonly (keyof Q & string)[]
  /** What a page needs (a walk needs none of it). */
  pageNeeds: readonly K[]
  /**
   * A reference to the page's own schema, which serializes a page: the route's response is a
   * union of a page and a walk's page (and a record, for a list that shows one), whose
   * serializer would validate every record to pick one.
   */
  pageSchema: TSchema
  /** The route's querystring schema. */
  query: TSchema
  /** The route's answer: a page or a walk's page (or a record, for a list that shows one). */
  response: TSchema
  /** Refuses a request before anything is read (a company other than the caller's). */
  refuse?: (caller: Caller, query: Q) => void
  walk: (db: Db, caller: Caller, walk: WalkRequest) => Promise<WalkPage>
  /** With `id` in the query: that one record (before the page's needs are checked). */
  one?: (db: Db, caller: Caller, id: number) => Promise<One>
  page: (db: Db, caller: Caller, query: Q & { [P in K]-?: NonNullable<Q[P]> }) => Promise<ListPage>
}

/**
 * Declares a list route that also walks: `query` is the route's querystring schema, which
 * types the names the list refuses and needs; `pageSchema` is the page's schema (with its
 * `$id`), referenced here once.
 */
export function walkingList<S extends TSchema, K extends keyof Static<S> & string, One = never>(
  list: WalkingList<Static<S>, K, One> & { query: S },
): WalkingList<Static<S>, K, One> {
  return { ...list, pageSchema: Ref(list.pageSchema) }
}

/** Declares GET `path`, the operation `operationId` of the list `list` (answerList). */
export function walkingListRoute<Q extends SyncQuery & { id?: number | undefined }, K extends keyof Q & string, One, Id extends string>(
  app: FastifyInstance & { db: Db; keys: SecretKeys },
  path: string,
  texts: OperationTexts<Id>,
  operationId: NoInfer<Id>,
  config: OperationConfig,
  list: WalkingList<Q, K, One>,
): void {
  app.get<{ Querystring: Q }>(path, operation(texts, operationId, config, {
    querystring: list.query, response: { 200: list.response },
  }), async (request, reply) => {
    // The schema validated it; Fastify's request type only wraps a generic querystring.
    const query = request.query as Q
    list.refuse?.(request.caller, query)
    return answerList(app, request, reply, query, list)
  })
}

/**
 * Answers a list request: a page of a walk when it asks for one (syncPosition), the record of
 * `id` for a list that shows one, else a page of the list once what it needs is given (422).
 */
export async function answerList<Q extends SyncQuery & { id?: number | undefined }, K extends keyof Q & string, One>(
  app: { db: Db; keys: SecretKeys },
  request: FastifyRequest,
  reply: FastifyReply,
  query: Q,
  list: WalkingList<Q, K, One>,
): Promise<FastifyReply | One> {
  const { caller } = request
  const walk = walkRequest(app.keys, list.resource, caller, query, list.walkRefuses)
  if (walk) return sendWalkPage(request, reply, await list.walk(app.db, caller, walk))
  if (list.one && query.id !== undefined) return list.one(app.db, caller, query.id)
  requireGiven(query, list.pageNeeds)
  return sendListPage(request, reply, await list.page(app.db, caller, query), list.pageSchema)
}
