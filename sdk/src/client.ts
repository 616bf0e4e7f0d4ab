// A small client over fetch (no runtime dependencies): the token in the header, one typed
// method per operation (types generated from the OpenAPI document into schema.ts),
// `for await` over every paged list, retries after `Retry-After` on 429 and 503, errors
// that carry the API's stable codes, and (with a refresh token) an OAuth access token renewed
// when the API refuses it.
import type { components, operations } from './schema.js'

export type Schemas = components['schemas']
type Ops = operations

type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : undefined
/** What the operation answers on success (its 200 or 201 body; undefined for a 204). */
export type Result<K extends keyof Ops> = Ops[K]['responses'] extends { 200: infer R }
  ? JsonOf<R>
  : Ops[K]['responses'] extends { 201: infer R }
    ? JsonOf<R>
    : Ops[K]['responses'] extends { 202: infer R }
      ? JsonOf<R>
      : undefined
/** The operation's query string parameters. */
export type Query<K extends keyof Ops> = NonNullable<Ops[K]['parameters']['query']>
/** The operation's body (JSON). */
export type Body<K extends keyof Ops> = Ops[K] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never
/** A list's page parameters (not those of an `updated_since` walk). */
export type PageQuery<K extends keyof Ops> = Omit<Query<K>, 'updated_since' | 'cursor'>
/** A paged list's parameters without `page`: auto-paging starts at `page` 1 unless given. */
export type AllQuery<K extends keyof Ops> = Omit<PageQuery<K>, 'page'> & { page?: number }
/** Where an `updated_since` walk starts: a time, or the cursor a previous walk ended with. */
export type WalkStart = ({ updated_since: string; cursor?: undefined } | { cursor: string; updated_since?: undefined }) & { per_page?: number }

/** Every error kind the API documents (new ones may be added; none is ever renamed). */
export type ErrorCode =
  | 'bad_request'
  | 'token_missing'
  | 'token_invalid'
  | 'token_expired'
  | 'insufficient_scope'
  | 'forbidden_role'
  | 'not_found'
  | 'request_timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation_failed'
  | 'state_refused'
  | 'rate_limited'
  | 'header_too_large'
  | 'internal_error'
  | 'service_unavailable'
  | 'idempotency_key_in_use'
  | 'idempotency_key_reused'

/** An error answer of the API (or a body that is not the API's, code `unexpected_response`). */
export class EngageError extends Error {
  override readonly name = 'EngageError'
  constructor(
    readonly status: number,
    /** Stable: match this, not the message. */
    readonly code: ErrorCode | 'unexpected_response' | (string & {}),
    message: string,
    /** Problems per parameter, as people read them. */
    readonly details: Record<string, string[]>,
    /** The same keys as `details`, one stable code per message (`taken`, `blank`, …). */
    readonly detailCodes: Record<string, string[]>,
    /** The request's id (X-Request-Id): quote it when reporting a problem. */
    readonly requestId: string | undefined,
  ) {
    super(message)
  }
}

export interface RetryOptions {
  /**
   * Retries after a 429, a 503, or a 409 of an Idempotency-Key still in use (default 3).
   * Every POST and PUT carries an Idempotency-Key of its own, the same on its retries, so a
   * retried write never runs twice.
   */
  retries?: number
  /** The longest wait for one retry (default 60 s): a longer Retry-After fails at once. */
  maxWaitMs?: number
}

/** Tokens the token endpoint issued: store them (the refresh token rotates on every use). */
export interface Tokens {
  accessToken: string
  refreshToken: string
  /** When the access token expires (from `expires_in`); undefined when not said. */
  expiresAt: Date | undefined
}

export interface EngageOptions {
  /** Where the service is: `http://localhost:3000`. */
  baseUrl: string
  /** The api_token (`eng_…`) or an OAuth access token, sent as `Authorization: Bearer`. */
  token: string
  /**
   * An OAuth refresh token: when the API answers 401 (`token_expired` or `token_invalid`),
   * the client asks the token endpoint for new tokens (RFC 6749 §6), calls `onTokens`, and
   * sends the request again, once. Needs `clientId`.
   */
  refreshToken?: string
  /** The OAuth app's client_id (with `refreshToken`). */
  clientId?: string
  /** The app's client_secret, for a confidential app (sent in the form: client_secret_post). */
  clientSecret?: string
  /** Told each new pair of tokens, to store them; awaited before the request is sent again. */
  onTokens?: (tokens: Tokens) => void | Promise<void>
  /** The token endpoint; default `<origin of baseUrl>/oauth/token`. */
  tokenUrl?: string
  /** Retries on 429, 503 and 409 (key in use) honouring Retry-After; `false` turns them off. */
  retry?: RetryOptions | false
  /** Another fetch (a proxy agent, a test double). */
  fetch?: typeof fetch
}

interface PageOf<T> {
  data: T[]
  meta: { page: number; total_pages: number }
}

interface SyncPageOf {
  meta: { has_more: boolean; next_cursor: string }
}

type Params = Record<string, string | number | boolean | null | undefined>

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export class Engage {
  readonly users
  readonly contacts
  readonly customFields
  readonly tags
  readonly flows
  readonly tasks
  readonly leads
  readonly meetTranscriptions
  readonly whatsapp
  readonly webhooks
  readonly events

  private readonly baseUrl: string
  private token: string
  private refreshToken: string | undefined
  private readonly oauth: Pick<EngageOptions, 'clientId' | 'clientSecret' | 'onTokens'> & { tokenUrl: string }
  /** The refresh in flight: requests refused meanwhile wait for it instead of refreshing again. */
  private refreshing: Promise<void> | undefined
  private readonly retry: Required<RetryOptions> | false
  private readonly fetch: typeof fetch

  constructor(options: EngageOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.token = options.token
    this.refreshToken = options.refreshToken
    this.oauth = {
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      onTokens: options.onTokens,
      tokenUrl: options.tokenUrl ?? new URL('/oauth/token', this.baseUrl).toString(),
    }
    this.retry = options.retry === false ? false : { retries: 3, maxWaitMs: 60_000, ...options.retry }
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis)

    const get = <K extends keyof Ops>(path: string, query?: object) => this.request<Result<K>>('GET', path, query)
    const send = <K extends keyof Ops>(method: 'POST' | 'PUT', path: string, body: object) =>
      this.request<Result<K>>(method, path, undefined, body)
    const remove = (path: string) => this.request<undefined>('DELETE', path)
    const all = <T>(list: (page: number) => Promise<PageOf<T>>, from = 1) => this.paginate(list, from)
    const page = <T>(path: string, query: object) => this.request<T>('GET', path, query)
    const walk = <T extends SyncPageOf>(path: string, start: WalkStart) => this.walk<T>(path, start)

    this.users = {
      list: (query: Query<'listUsers'>) => get<'listUsers'>('/api/v1/users', query),
      all: (query: AllQuery<'listUsers'> = {}) => all((page) => get<'listUsers'>('/api/v1/users', { ...query, page }), query.page),
      /** The user the token acts for, and its company. */
      authorize: () => get<'authorizeApi'>('/api/v1/users/authorize_api'),
    }
    this.contacts = {
      list: (query: PageQuery<'listContacts'>) => page<Schemas['ContactPage']>('/api/v1/contacts', query),
      all: (query: AllQuery<'listContacts'> = {}) =>
        all((n) => page<Schemas['ContactPage']>('/api/v1/contacts', { ...query, page: n }), query.page),
      /** Pages of an `updated_since` walk until caught up; keep the last page's `meta.next_cursor`. */
      walk: (start: WalkStart) => walk<Schemas['ContactSyncPage']>('/api/v1/contacts', start),
      /** Up to 100 contacts created or updated by email; one result per item, in order. */
      batch: (contacts: Body<'upsertContactsBatch'>['contacts']) =>
        send<'upsertContactsBatch'>('POST', '/api/v1/contacts/batch', { contacts }),
      get: (id: number) => get<'getContact'>(`/api/v1/contacts/${id}`),
      create: (body: Body<'createContact'>) => send<'createContact'>('POST', '/api/v1/contacts', body),
      update: (id: number, body: Body<'updateContact'>) => send<'updateContact'>('PUT', `/api/v1/contacts/${id}`, body),
      delete: (id: number) => remove(`/api/v1/contacts/${id}`),
      events: (id: number, query: Query<'listContactEvents'>) => get<'listContactEvents'>(`/api/v1/contacts/${id}/events`, query),
      allEvents: (id: number, query: AllQuery<'listContactEvents'> = {}) =>
        all((page) => get<'listContactEvents'>(`/api/v1/contacts/${id}/events`, { ...query, page }), query.page),
      business: (id: number) => get<'getContactBusiness'>(`/api/v1/contacts/${id}/business`),
    }
    this.customFields = {
      list: () => get<'listCustomFields'>('/api/v1/custom_fields'),
      create: (body: Body<'createCustomField'>) => send<'createCustomField'>('POST', '/api/v1/custom_fields', body),
      update: (id: number, body: Body<'updateCustomField'>) => send<'updateCustomField'>('PUT', `/api/v1/custom_fields/${id}`, body),
      delete: (id: number) => remove(`/api/v1/custom_fields/${id}`),
    }
    this.tags = {
      list: () => get<'listTags'>('/api/v1/tags'),
      create: (body: Body<'createTag'>) => send<'createTag'>('POST', '/api/v1/tags', body),
      update: (id: number, body: Body<'updateTag'>) => send<'updateTag'>('PUT', `/api/v1/tags/${id}`, body),
      delete: (id: number) => remove(`/api/v1/tags/${id}`),
    }
    this.flows = {
      list: (query: Query<'listFlows'>) => get<'listFlows'>('/api/v1/flows', query),
      all: (query: AllQuery<'listFlows'> = {}) => all((page) => get<'listFlows'>('/api/v1/flows', { ...query, page }), query.page),
      get: (id: number) => get<'getFlow'>(`/api/v1/flows/${id}`),
      create: (body: Body<'createFlow'>) => send<'createFlow'>('POST', '/api/v1/flows', body),
      /** `steps` replaces the whole list; contacts already in the flow keep their tasks. */
      update: (id: number, body: Body<'updateFlow'>) => send<'updateFlow'>('PUT', `/api/v1/flows/${id}`, body),
      addContact: (id: number, contactId: number) =>
        send<'addContactToFlow'>('PUT', `/api/v1/flows/${id}/add_contact`, { contact_id: contactId }),
    }
    this.tasks = {
      list: (query: PageQuery<'listTasks'>) => page<Schemas['TaskPage']>('/api/v1/tasks', query),
      all: (query: AllQuery<'listTasks'> = {}) => all((n) => page<Schemas['TaskPage']>('/api/v1/tasks', { ...query, page: n }), query.page),
      walk: (start: WalkStart) => walk<Schemas['TaskSyncPage']>('/api/v1/tasks', start),
      get: (id: number) => get<'getTask'>(`/api/v1/tasks/${id}`),
      create: (body: Body<'createTask'>) => send<'createTask'>('POST', '/api/v1/tasks', body),
      complete: (id: number) => send<'completeTask'>('PUT', `/api/v1/tasks/${id}/complete`, {}),
    }
    type LeadsPageQuery = Omit<Query<'listLeads'>, 'id'> & { page: number; user_id: number }
    this.leads = {
      list: (query: LeadsPageQuery) => this.request<Schemas['LeadPage']>('GET', '/api/v1/leads', query),
      all: (query: Omit<LeadsPageQuery, 'page'> & { page?: number }) =>
        all((page) => this.request<Schemas['LeadPage']>('GET', '/api/v1/leads', { ...query, page }), query.page),
      get: (id: number) => get<'getLead'>(`/api/v1/leads/${id}`),
      count: (query: Query<'countLeads'>) => get<'countLeads'>('/api/v1/leads/count', query),
      walk: (start: WalkStart) => walk<Schemas['LeadSyncPage']>('/api/v1/leads', start),
      create: (body: Body<'createLead'>) => send<'createLead'>('POST', '/api/v1/leads', body),
      /** Links the lead to a contact by hand (its email may differ); replaces the contact it had. */
      linkContact: (id: number, contactId: number) =>
        send<'linkLeadToContact'>('PUT', `/api/v1/leads/${id}/contact`, { contact_id: contactId }),
    }
    type TranscriptionsPageQuery = Omit<Query<'listMeetTranscriptions'>, 'id'> & { page: number; user_id: number; company_id: number }
    this.meetTranscriptions = {
      list: (query: TranscriptionsPageQuery) =>
        this.request<Schemas['MeetTranscriptionPage']>('GET', '/api/v1/meet_transcriptions', query),
      all: (query: Omit<TranscriptionsPageQuery, 'page'> & { page?: number }) =>
        all(
          (page) => this.request<Schemas['MeetTranscriptionPage']>('GET', '/api/v1/meet_transcriptions', { ...query, page }),
          query.page,
        ),
      get: (id: number) => get<'getMeetTranscription'>(`/api/v1/meet_transcriptions/${id}`),
      count: (query: Query<'countMeetTranscriptions'>) => get<'countMeetTranscriptions'>('/api/v1/meet_transcriptions/count', query),
      walk: (start: WalkStart) => walk<Schemas['MeetTranscriptionSyncPage']>('/api/v1/meet_transcriptions', start),
      create: (body: Body<'createMeetTranscription'>) => send<'createMeetTranscription'>('POST', '/api/v1/meet_transcriptions', body),
      stop: (id: number, stoppedAt: string) =>
        send<'stopMeetTranscription'>('PUT', `/api/v1/meet_transcriptions/${id}/stop`, { stopped_at: stoppedAt }),
      setTranscript: (id: number, transcript: string) =>
        send<'setMeetTranscript'>('PUT', `/api/v1/meet_transcriptions/${id}/transcript`, { transcript }),
      linkToTask: (id: number, taskId: number) =>
        send<'linkMeetTranscriptionToTask'>('PUT', `/api/v1/meet_transcriptions/${id}/to_task`, { task_id: taskId }),
    }
    this.whatsapp = {
      messages: (query: PageQuery<'listWhatsappMessages'>) => page<Schemas['WhatsappMessagePage']>('/api/v1/whatsapp_messages', query),
      allMessages: (query: AllQuery<'listWhatsappMessages'>) =>
        all((n) => page<Schemas['WhatsappMessagePage']>('/api/v1/whatsapp_messages', { ...query, page: n }), query.page),
      walkMessages: (start: WalkStart) => walk<Schemas['WhatsappMessageSyncPage']>('/api/v1/whatsapp_messages', start),
      chats: (query: Query<'listWhatsappChats'>) => get<'listWhatsappChats'>('/api/v1/whatsapp_messages/chats', query),
      allChats: (query: AllQuery<'listWhatsappChats'>) =>
        all((page) => get<'listWhatsappChats'>('/api/v1/whatsapp_messages/chats', { ...query, page }), query.page),
    }
    this.webhooks = {
      list: (query: Query<'listWebhooks'>) => get<'listWebhooks'>('/api/v1/webhooks', query),
      get: (id: number) => get<'getWebhook'>(`/api/v1/webhooks/${id}`),
      /** The answer carries the signing secret: the only time, with rotateSecret, it is shown. */
      create: (body: Body<'createWebhook'>) => send<'createWebhook'>('POST', '/api/v1/webhooks', body),
      update: (id: number, body: Body<'updateWebhook'>) => send<'updateWebhook'>('PUT', `/api/v1/webhooks/${id}`, body),
      delete: (id: number) => remove(`/api/v1/webhooks/${id}`),
      rotateSecret: (id: number) => send<'rotateWebhookSecret'>('POST', `/api/v1/webhooks/${id}/rotate_secret`, {}),
      /** Sends a `ping`; answers its delivery. */
      test: (id: number) => send<'testWebhook'>('POST', `/api/v1/webhooks/${id}/test`, {}),
      deliveries: (id: number, query: Query<'listWebhookDeliveries'>) =>
        get<'listWebhookDeliveries'>(`/api/v1/webhooks/${id}/deliveries`, query),
      delivery: (id: number, deliveryId: number) => get<'getWebhookDelivery'>(`/api/v1/webhooks/${id}/deliveries/${deliveryId}`),
      retryDelivery: (id: number, deliveryId: number) =>
        send<'retryWebhookDelivery'>('POST', `/api/v1/webhooks/${id}/deliveries/${deliveryId}/retry`, {}),
    }
    this.events = {
      list: (query: Query<'listEvents'>) => get<'listEvents'>('/api/v1/events', query),
      all: (query: AllQuery<'listEvents'> = {}) => all((page) => get<'listEvents'>('/api/v1/events', { ...query, page }), query.page),
      get: (id: number) => get<'getEvent'>(`/api/v1/events/${id}`),
    }
  }

  /** The pages of an `updated_since` walk, until it has caught up (`meta.has_more` false). */
  async *walk<T extends SyncPageOf>(path: string, start: WalkStart): AsyncGenerator<T, void, undefined> {
    let query: object = start
    for (;;) {
      const page = await this.request<T>('GET', path, query)
      yield page
      if (!page.meta.has_more) return
      query = { cursor: page.meta.next_cursor, ...(start.per_page === undefined ? {} : { per_page: start.per_page }) }
    }
  }

  /** Every record of a paged list, fetching page after page as the loop asks for them. */
  async *paginate<T>(list: (page: number) => Promise<PageOf<T>>, from = 1): AsyncGenerator<T, void, undefined> {
    for (let page = from; ; page++) {
      const { data, meta } = await list(page)
      yield* data
      if (data.length === 0 || page >= meta.total_pages) return
    }
  }

  /** One request: JSON in and out, retried after Retry-After on 429, 503 and 409 when allowed. */
  async request<T>(method: string, path: string, query?: object, body?: object): Promise<T> {
    const url = new URL(this.baseUrl + path)
    for (const [name, value] of Object.entries((query ?? {}) as Params)) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value))
    }
    const headers: Record<string, string> = { accept: 'application/json' }
    if (body !== undefined) headers['content-type'] = 'application/json'
    // One key per call, the same on its retries: a write whose answer was lost runs once.
    if (method === 'POST' || method === 'PUT') headers['idempotency-key'] = crypto.randomUUID()
    let refreshed = false
    for (let attempt = 0; ; attempt++) {
      const token = this.token
      headers.authorization = `Bearer ${token}`
      const response = await this.fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
      if (response.ok) return (response.status === 204 ? undefined : await response.json()) as T
      if (response.status === 401 && !refreshed && this.canRefresh()) {
        const error = await errorOf(response)
        if (error.code !== 'token_expired' && error.code !== 'token_invalid') throw error
        // Refused before it ran (the same Idempotency-Key goes again): new tokens, then once more.
        refreshed = true
        attempt--
        await this.refreshAfter(token)
        continue
      }
      const wait = this.retryWait(response, attempt)
      if (wait === undefined) throw await errorOf(response)
      await response.body?.cancel()
      await sleep(wait)
    }
  }

  private canRefresh(): boolean {
    return this.refreshToken !== undefined && this.oauth.clientId !== undefined
  }

  /**
   * New tokens after `stale` was refused: one refresh at a time, shared by every request
   * refused meanwhile; none when another request has already replaced `stale`.
   */
  private async refreshAfter(stale: string): Promise<void> {
    if (this.token !== stale) return
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = undefined
    })
    await this.refreshing
  }

  /** RFC 6749 §6: the refresh_token grant, form-encoded; the rotated tokens replace the old ones. */
  private async refresh(): Promise<void> {
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: this.refreshToken ?? '', client_id: this.oauth.clientId ?? '' })
    if (this.oauth.clientSecret !== undefined) form.set('client_secret', this.oauth.clientSecret)
    const response = await this.fetch(this.oauth.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    })
    const text = await response.text()
    let answer: { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } = {}
    try {
      answer = JSON.parse(text) as typeof answer
    } catch {
      // not the token endpoint's JSON: described by its status alone
    }
    if (!response.ok || typeof answer.access_token !== 'string') {
      // RFC 6749 §5.2: {error, error_description}; `invalid_grant` means sign in again.
      const code = typeof answer.error === 'string' ? answer.error : 'unexpected_response'
      const message = typeof answer.error_description === 'string' ? answer.error_description : `token endpoint: HTTP ${response.status}`
      throw new EngageError(response.status, code, message, {}, {}, response.headers.get('x-request-id') ?? undefined)
    }
    this.token = answer.access_token
    // A server that does not rotate may leave the refresh token out: the old one stays good.
    if (typeof answer.refresh_token === 'string') this.refreshToken = answer.refresh_token
    const seconds = typeof answer.expires_in === 'number' ? answer.expires_in : undefined
    await this.oauth.onTokens?.({
      accessToken: this.token,
      refreshToken: this.refreshToken ?? '',
      expiresAt: seconds === undefined ? undefined : new Date(Date.now() + seconds * 1000),
    })
  }

  /** How long to wait before retrying this answer, or undefined when it is not retried. */
  private retryWait(response: Response, attempt: number): number | undefined {
    if (!this.retry || attempt >= this.retry.retries) return undefined
    const keyInUse = response.status === 409 && response.headers.has('retry-after')
    if (response.status !== 429 && response.status !== 503 && !keyInUse) return undefined
    const seconds = Number(response.headers.get('retry-after') ?? '1')
    const ms = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000
    return ms <= this.retry.maxWaitMs ? ms : undefined
  }
}

interface ErrorBody {
  error?: { status?: number; message?: string; code?: string; details?: Record<string, string[]>; detail_codes?: Record<string, string[]>; request_id?: string }
}

async function errorOf(response: Response): Promise<EngageError> {
  const text = await response.text()
  let body: ErrorBody = {}
  try {
    body = JSON.parse(text) as ErrorBody
  } catch {
    // not the API's body (a proxy's page): described by its status alone
  }
  const error = body.error
  const requestId = error?.request_id ?? response.headers.get('x-request-id') ?? undefined
  if (!error?.code) return new EngageError(response.status, 'unexpected_response', `HTTP ${response.status}`, {}, {}, requestId)
  return new EngageError(response.status, error.code, error.message ?? `HTTP ${response.status}`, error.details ?? {}, error.detail_codes ?? {}, requestId)
}
