// The delivery worker runs one loop in every service process. The loop publishes recorded
// events (publish.ts numbers them and fans them out into deliveries), claims due deliveries
// under a lease, so that instances share the work without sending one twice at the same time,
// posts them off the request path with bounded concurrency, and records the outcomes in
// batches. It runs one statement at a time, so it holds at most one of the pool's ten
// connections. It also prunes events and deliveries after 30 days. Delivery is at least once:
// a post whose outcome was never recorded, because the process died, is sent again when its
// lease ends.
import http from 'node:http'
import https from 'node:https'
import type { FastifyBaseLogger } from 'fastify'
import { transaction, type Db } from '../../db/db.js'
import { isStatementTimeout } from '../../db/pg-errors.js'
import { asCompanyId } from '../../tenancy.js'
import { SYSTEM_CONTEXT } from '../../acting.js'
import { recordAudit } from '../audit/index.js'
import {
  claimDeliveries,
  type ClaimedDelivery,
  decryptSecret,
  defaultSchedule,
  DELIVERY_TIMEOUT_MS,
  deliveryHeaders,
  nextAttempt,
  type Outcome,
  payload,
  post,
  pruneEvents,
  publishEvents,
  recordOutcomes,
  type Schedule,
  webhookId,
} from '../webhooks/index.js'
import { webhookDeliveries } from '../../metrics/shared.js'
import { Pause } from '../../pause.js'
import { traced } from '../../tracing.js'

/** Caps the events that one loop turn publishes (numbers and fans out into deliveries) in its one statement. */
const PUBLISH_BATCH = 500
/** The fewest events a move takes after moves that passed the statement timeout, and the step it grows back by. */
const PUBLISH_BATCH_LEAST = 25

const DAY = 24 * 60 * 60 * 1000

export interface WorkerOptions {
  /** How often an idle worker looks for due deliveries. */
  pollIntervalMs: number
  /** This bounds a post's whole exchange. */
  timeoutMs: number
  /** How long a claimed delivery is ours before others may take it; it must be longer than any post. */
  leaseMs: number
  /** These cap the posts in flight in this process, and per subscription. */
  maxInFlight: number
  perSubscription: number
  schedule: Schedule
  /** A subscription whose attempts all failed this long is disabled. */
  disableAfterMs: number
  /** Events (and their deliveries) are deleted this long after they were recorded. */
  retentionMs: number
  pruneIntervalMs: number
  /** This caps the rows one prune statement deletes; a pruning round runs at most pruneRounds of them. */
  pruneBatch: number
  pruneRounds: number
  /** How long posts in flight may finish on close before they are cut. */
  stopGraceMs: number
}

export const defaultWorkerOptions = (): WorkerOptions => ({
  pollIntervalMs: 1000,
  timeoutMs: DELIVERY_TIMEOUT_MS,
  leaseMs: 60_000,
  maxInFlight: 8,
  perSubscription: 2,
  schedule: defaultSchedule(),
  disableAfterMs: 3 * DAY,
  retentionMs: 30 * DAY,
  pruneIntervalMs: 60 * 60 * 1000,
  pruneBatch: 1000,
  pruneRounds: 100,
  stopGraceMs: 3000,
})

export interface WorkerDeps {
  db: Db
  /** The app's clock decides what is due, the schedule and pruning, and tests move it. */
  clock: () => Date
  /** The key the signing secrets are encrypted with. */
  secretKey: Buffer
  allowPrivate: boolean
  log: FastifyBaseLogger
}

export class DeliveryWorker {
  readonly options: WorkerOptions
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, maxFreeSockets: 4, timeout: 4000 }),
    https: new https.Agent({ keepAlive: true, maxFreeSockets: 4, timeout: 4000 }),
  }
  private readonly inFlight = new Map<number, number>()
  private readonly posts = new Set<Promise<void>>()
  private readonly abort = new AbortController()
  private outcomes: Outcome[] = []
  private running: Promise<void> | undefined
  private stopping = false
  private readonly pause = new Pause()
  private nextPruneAt = 0
  /** The events of the next publishing move (publish()). */
  private publishBatch = PUBLISH_BATCH

  constructor(
    private readonly deps: WorkerDeps,
    options: Partial<WorkerOptions> = {},
  ) {
    this.options = { ...defaultWorkerOptions(), ...options }
  }

  start(): void {
    if (this.running) return
    // The first pruning round runs a little after start, so that instances started together spread out.
    this.nextPruneAt = Date.now() + Math.min(this.options.pruneIntervalMs, 60_000) * Math.random()
    this.running = this.loop()
  }

  /** Looks for due deliveries now (and records finished ones) instead of at the next poll. */
  wake(): void {
    this.pause.wake()
  }

  /** Stops claiming, lets posts in flight finish (cut after stopGraceMs), records their outcomes. */
  async stop(): Promise<void> {
    if (this.stopping) return
    this.stopping = true
    this.wake()
    await this.running
    if (this.posts.size > 0) {
      let timer: NodeJS.Timeout | undefined
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.options.stopGraceMs)
      })
      await Promise.race([Promise.all(this.posts), grace])
      clearTimeout(timer)
      this.abort.abort()
      await Promise.all(this.posts)
    }
    await this.flush().catch((err: unknown) => {
      this.deps.log.warn({ err }, 'webhooks: could not record the last delivery outcomes (they will be sent again)')
    })
    this.agents.http.destroy()
    this.agents.https.destroy()
  }

  /** Deletes what is past retention, in bounded rounds; answers the number of events deleted. */
  async prune(): Promise<number> {
    const before = new Date(this.deps.clock().getTime() - this.options.retentionMs)
    let total = 0
    for (let round = 0; round < this.options.pruneRounds && !this.stopping; round++) {
      const deleted = await pruneEvents(this.deps.db, before, this.options.pruneBatch)
      total += deleted
      if (deleted < this.options.pruneBatch) break
    }
    return total
  }

  private async loop(): Promise<void> {
    let failures = 0
    while (!this.stopping) {
      let again = false
      try {
        await this.flush()
        if (Date.now() >= this.nextPruneAt) {
          const deleted = await this.prune()
          if (deleted > 0) this.deps.log.info({ deleted }, 'webhooks: pruned events older than the retention')
          this.nextPruneAt = Date.now() + this.options.pruneIntervalMs
        }
        const more = await this.publish()
        again = (await this.claim()) || more
        failures = 0
      } catch (err) {
        failures++
        this.deps.log.warn({ err }, 'webhooks: delivery worker could not reach the database')
      }
      if (!again) await this.pause.for(failures > 0 ? Math.min(this.options.pollIntervalMs * 2 ** failures, 30_000) : this.options.pollIntervalMs)
    }
  }

  /**
   * Publishes one move of events; true when more may wait. Under a load that keeps the database's
   * CPU busy, the worker's one connection gets a small share of it, and a move of PUBLISH_BATCH
   * events can pass the statement timeout (docs/performance.md, "Issue 40: the five figures
   * against both references"): the next move then takes half as many, down to
   * PUBLISH_BATCH_LEAST, and each full move after it PUBLISH_BATCH_LEAST more. A move of the
   * fewest that still passes it fails the turn, as any other error does.
   */
  private async publish(): Promise<boolean> {
    const size = this.publishBatch
    try {
      const published = await publishEvents(this.deps.db, size)
      if (published < size) return false
      this.publishBatch = Math.min(PUBLISH_BATCH, size + PUBLISH_BATCH_LEAST)
      return true
    } catch (err) {
      if (!isStatementTimeout(err) || size <= PUBLISH_BATCH_LEAST) throw err
      this.publishBatch = Math.max(PUBLISH_BATCH_LEAST, Math.floor(size / 2))
      this.deps.log.warn({ events: size, next: this.publishBatch }, 'webhooks: a publishing move passed the statement timeout; the next moves take fewer events')
      return true
    }
  }

  /** Claims as many due deliveries as there are free slots and starts posting them; true when all slots were filled. */
  private async claim(): Promise<boolean> {
    const free = this.options.maxInFlight - this.posts.size
    if (free <= 0) return false // a finishing post wakes the loop
    const claimed = await claimDeliveries(this.deps.db, {
      now: this.deps.clock(),
      limit: free,
      leaseMs: this.options.leaseMs,
      perSubscription: this.options.perSubscription,
      inFlight: this.inFlight,
    })
    for (const delivery of claimed) {
      if (delivery.enabled) this.launch(delivery)
    }
    return claimed.length === free
  }

  private launch(delivery: ClaimedDelivery): void {
    const subscription = delivery.subscription_id
    this.inFlight.set(subscription, (this.inFlight.get(subscription) ?? 0) + 1)
    const task = this.attempt(delivery)
      .then((outcome) => {
        this.outcomes.push(outcome)
      })
      .finally(() => {
        const left = (this.inFlight.get(subscription) ?? 1) - 1
        if (left > 0) this.inFlight.set(subscription, left)
        else this.inFlight.delete(subscription)
        this.posts.delete(task)
        this.wake()
      })
    this.posts.add(task)
  }

  private async attempt(delivery: ClaimedDelivery): Promise<Outcome> {
    const base = { companyId: delivery.company_id, id: delivery.id, attempts: delivery.attempts }
    let result: { delivered: boolean; status: number | null; error: string | null }
    try {
      const key = this.deps.secretKey
      const secrets = [decryptSecret(key, delivery.secret), ...(delivery.previous_secret ? [decryptSecret(key, delivery.previous_secret)] : [])]
      const body = payload(delivery)
      const headers = deliveryHeaders(webhookId(delivery.event_id), body, secrets, Math.floor(Date.now() / 1000))
      result = await traced('webhook.delivery', { 'engage.webhook.subscription_id': delivery.subscription_id, 'engage.webhook.attempt': delivery.attempts }, () =>
        post(delivery.url, headers, body, {
          allowPrivate: this.deps.allowPrivate,
          timeoutMs: this.options.timeoutMs,
          agents: this.agents,
          signal: this.abort.signal,
        }),
      )
    } catch (err) {
      this.deps.log.error({ err }, 'webhooks: could not prepare a delivery')
      result = { delivered: false, status: null, error: 'could not sign the delivery (was WEBHOOK_SECRET_KEY changed?)' }
    }
    if (result.delivered) {
      webhookDeliveries.inc({ result: 'delivered' })
      return { ...base, status: 'delivered', responseStatus: result.status, error: null, nextAttemptAt: null }
    }
    const next = nextAttempt(this.options.schedule, delivery.attempts, delivery.first_attempt_at, this.deps.clock())
    webhookDeliveries.inc({ result: next ? 'retrying' : 'failed' })
    return { ...base, status: next ? 'pending' : 'failed', responseStatus: result.status, error: result.error, nextAttemptAt: next }
  }

  private async flush(): Promise<void> {
    if (this.outcomes.length === 0) return
    const batch = this.outcomes
    this.outcomes = []
    try {
      const now = this.deps.clock()
      // A subscription disabled by its failures is recorded in the audit log with the outcomes.
      const disabled = await transaction(this.deps.db, async (tx) => {
        const found = await recordOutcomes(tx, batch, now, this.options.disableAfterMs)
        for (const subscription of found) {
          await recordAudit(tx, asCompanyId(subscription.company_id), SYSTEM_CONTEXT, {
            action: 'webhook.paused',
            target: { id: subscription.id, label: subscription.url },
            changes: { enabled: [true, false] },
          }, now)
        }
        return found
      })
      for (const { id } of disabled) this.deps.log.warn({ subscription: id }, 'webhooks: subscription disabled: every delivery failed for too long')
    } catch (err) {
      this.outcomes = batch.concat(this.outcomes)
      throw err
    }
  }
}
