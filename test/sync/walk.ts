// Walking a list with updated_since and cursor through the API, for the sync tests.
import assert from 'node:assert/strict'
import type { App } from '../../src/app.js'

export interface WalkMeta {
  per_page: number
  has_more: boolean
  next_cursor: string
}

export interface WalkItem {
  id: number
  updated_at?: string
  deleted?: true
  deleted_at?: string
  [field: string]: unknown
}

export interface WalkResult {
  items: WalkItem[]
  pages: number
  cursor: string
}

export async function walkPageOf(
  app: App,
  auth: Record<string, string>,
  path: string,
  params: Record<string, string>,
): Promise<{ data: WalkItem[]; meta: WalkMeta; link: string | undefined }> {
  const response = await app.inject({ url: `${path}?${new URLSearchParams(params).toString()}`, headers: auth })
  assert.equal(response.statusCode, 200, response.body)
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
  const body = response.json<{ data: WalkItem[]; meta: WalkMeta }>()
  assert.deepEqual(Object.keys(body.meta).sort(), ['has_more', 'next_cursor', 'per_page'])
  const link = response.headers.link as string | undefined
  if (body.meta.has_more) {
    assert.ok(link !== undefined)
    assert.ok(link.includes(`cursor=${encodeURIComponent(body.meta.next_cursor)}`), link)
    assert.ok(link.endsWith('; rel="next"'), link)
    assert.ok(!/[?&](updated_since|page)=/.test(link), link)
  } else {
    assert.equal(link, undefined)
  }
  return { ...body, link }
}

/**
 * Walks from `start` (updated_since, or a cursor) until the walk has caught up (has_more
 * false), page by page with the cursor each page gives.
 */
export async function walk(
  app: App,
  auth: Record<string, string>,
  path: string,
  start: { updated_since: string } | { cursor: string },
  perPage = 100,
  extra: Record<string, string> = {},
): Promise<WalkResult> {
  const items: WalkItem[] = []
  let params: Record<string, string> = { ...extra, ...start, per_page: String(perPage) }
  for (let pages = 1; ; pages++) {
    const page = await walkPageOf(app, auth, path, params)
    assert.ok(page.data.length <= perPage)
    if (page.meta.has_more) assert.equal(page.data.length, perPage)
    items.push(...page.data)
    if (!page.meta.has_more) return { items, pages, cursor: page.meta.next_cursor }
    params = { ...extra, cursor: page.meta.next_cursor, per_page: String(perPage) }
  }
}

/** The walk's order: updated_at (to the millisecond here) never goes back. */
export function assertWalkOrder(items: WalkItem[]): void {
  for (let i = 1; i < items.length; i++) {
    const [a, b] = [items[i - 1], items[i]]
    const at = (item: WalkItem | undefined) => item?.updated_at ?? item?.deleted_at ?? ''
    assert.ok(at(a) <= at(b), `${JSON.stringify(a)} before ${JSON.stringify(b)}`)
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
