// Paged lists: limit/offset from `page` and `per_page`, the `meta` object and the Link
// header (first/last always, prev/next where such a page exists), whose URLs keep every
// query parameter of the request except api_token.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'
import type { Page } from '../db/paging.js'
import { notFound } from '../errors.js'
import { JSON_TYPE, sendJsonText } from './json-text.js'

export const DEFAULT_PER_PAGE = 25

export interface PageRequest {
  page: number
  per_page?: number | undefined
}

export interface PageWindow {
  page: number
  perPage: number
  limit: number
  offset: number
}

/**
 * Every list's window. The offset is at most 2^53 − 1: past any list's end, yet still an
 * exact integer (page 2^53 − 1 of 100 would not be); statements read it as bigint
 * (src/db/paging.ts), so a page past the end is the same empty page whatever its number.
 */
export function pageWindow(query: PageRequest): PageWindow {
  const perPage = query.per_page ?? DEFAULT_PER_PAGE
  return { page: query.page, perPage, limit: perPage, offset: Math.min((query.page - 1) * perPage, Number.MAX_SAFE_INTEGER) }
}

/** A page as a service answers it: its window, the list's total, and its records, or their JSON text as a statement wrote it. */
export type ListPage<T = unknown> = { window: PageWindow; total: number } & ({ data: T[] } | { json: string })

/**
 * A service's page of a list: the window of `query`, and the total and records `read` finds
 * in it; undefined from `read` when the list's parent (a contact, a webhook) is not there: 404.
 */
export async function readPage<T>(query: PageRequest, read: (window: PageWindow) => Promise<Page<T> | undefined>): Promise<ListPage<T>> {
  const window = pageWindow(query)
  const page = await read(window)
  if (!page) throw notFound()
  return { window, total: page.total, data: page.rows }
}

/**
 * Sends a page of a list: the Link header, then `{data, meta}`. JSON text from a statement is
 * written around as the serializer would (PageMeta's keys in order, json-text.ts); records are
 * serialized by `schema` when given (the page's own, for a route whose response is a union of
 * a page and a walk's page, whose serializer would validate each record to choose), else by
 * the route's.
 */
export function sendListPage(request: FastifyRequest, reply: FastifyReply, page: ListPage, schema?: TSchema): FastifyReply {
  const { window, total } = page
  const totalPages = setPageLinks(request, reply, window, total)
  if ('json' in page) {
    const meta = `{"page":${String(window.page)},"per_page":${String(window.perPage)},"total_count":${String(total)},"total_pages":${String(totalPages)}}`
    return sendJsonText(reply, `{"data":${page.json},"meta":${meta}}`)
  }
  const body = { data: page.data, meta: { page: window.page, per_page: window.perPage, total_count: total, total_pages: totalPages } }
  if (schema === undefined) return reply.send(body)
  const serialize = reply.compileSerializationSchema(schema as unknown as Record<string, unknown>, '200')
  return reply.type(JSON_TYPE).serializer(serialize).send(body)
}

/** Sets the Link header of a page; answers the number of pages. */
function setPageLinks(request: FastifyRequest, reply: FastifyReply, window: PageWindow, total: number): number {
  const totalPages = Math.ceil(total / window.perPage)
  reply.header('link', linkHeader(request.url, window.page, Math.max(totalPages, 1)))
  return totalPages
}

/** Parameters a page link never repeats: the token (a secret) and the page it replaces. */
const PAGE_DROPPED: ReadonlySet<string> = new Set(['api_token', 'page'])

function linkHeader(url: string, page: number, lastPage: number): string {
  const { path, kept } = linkParts(url, PAGE_DROPPED)
  const link = (n: number, rel: string) => `<${path}?${[`page=${n}`, ...kept].join('&')}>; rel="${rel}"`
  const links = [link(1, 'first')]
  if (page > 1) links.push(link(Math.min(page - 1, lastPage), 'prev'))
  if (page < lastPage) links.push(link(page + 1, 'next'))
  links.push(link(lastPage, 'last'))
  return links.join(', ')
}

/** A request URL's path, and its query's `name=value` pairs as sent but those named in `dropped`: the makings of a Link header. */
export function linkParts(url: string, dropped: ReadonlySet<string>): { path: string; kept: string[] } {
  const q = url.indexOf('?')
  if (q === -1) return { path: url, kept: [] }
  const kept = url
    .slice(q + 1)
    .split('&')
    .filter((pair) => pair !== '' && !dropped.has(paramName(pair)))
  return { path: url.slice(0, q), kept }
}

function paramName(pair: string): string {
  const eq = pair.indexOf('=')
  const raw = eq === -1 ? pair : pair.slice(0, eq)
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '))
  } catch {
    return raw
  }
}
