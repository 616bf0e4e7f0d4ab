// The in-process sliding window: per key, the timestamps of accepted requests in a ring
// buffer (oldest first), so each decision only drops expired entries from the front and
// appends at the back: O(1) amortized, no fixed buckets.
import type { RateLimitDecision } from './decision.js'

/** Whole seconds until the oldest accepted request leaves the window (Retry-After). */
export function resetSecondsFrom(msUntilFree: number): number {
  return msUntilFree > 0 ? Math.ceil(msUntilFree / 1000) : 0
}

// Rings start small and double up to `max`, so a key seen once does not cost `max` slots.
const INITIAL_CAPACITY = 8

class Ring {
  times: Float64Array
  head = 0
  size = 0

  constructor(capacity: number) {
    this.times = new Float64Array(capacity)
  }

  oldest(): number {
    return this.times[this.head] ?? 0
  }

  newest(): number {
    return this.times[(this.head + this.size - 1) % this.times.length] ?? 0
  }

  shift(): void {
    this.head = (this.head + 1) % this.times.length
    this.size--
  }

  push(time: number, maxCapacity: number): void {
    if (this.size === this.times.length) this.grow(maxCapacity)
    this.times[(this.head + this.size) % this.times.length] = time
    this.size++
  }

  private grow(maxCapacity: number): void {
    const grown = new Float64Array(Math.min(maxCapacity, this.times.length * 2))
    for (let i = 0; i < this.size; i++) grown[i] = this.times[(this.head + i) % this.times.length] ?? 0
    this.times = grown
    this.head = 0
  }
}

export class SlidingWindow {
  readonly #rings = new Map<string, Ring>()

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  /** Keys currently held in memory. */
  get keyCount(): number {
    return this.#rings.size
  }

  consume(key: string, now: number): RateLimitDecision {
    let ring = this.#rings.get(key)
    if (ring === undefined) {
      ring = new Ring(Math.min(this.max, INITIAL_CAPACITY))
      this.#rings.set(key, ring)
    }
    // A clock stepping backwards must not unsort the ring: time never runs back per key.
    const time = ring.size > 0 ? Math.max(now, ring.newest()) : now
    const horizon = time - this.windowMs
    while (ring.size > 0 && ring.oldest() <= horizon) ring.shift()
    const allowed = ring.size < this.max
    if (allowed) ring.push(time, this.max)
    return {
      allowed,
      limit: this.max,
      remaining: this.max - ring.size,
      resetSeconds: ring.size > 0 ? resetSecondsFrom(ring.oldest() + this.windowMs - time) : 0,
    }
  }

  /** Forget keys whose newest accepted request has left the window: they hold no budget. */
  sweep(now: number): void {
    const horizon = now - this.windowMs
    for (const [key, ring] of this.#rings) {
      if (ring.newest() <= horizon) this.#rings.delete(key)
    }
  }
}
