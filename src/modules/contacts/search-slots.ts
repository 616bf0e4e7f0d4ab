// Searches are the one read whose cost grows with the company (a broad term matches many
// rows, a one- or two-character term has no trigram to narrow it), so they may hold only a
// fixed share of the connection pool: at most SEARCH_SLOTS at once per process. Others wait
// in line for a moment, then get 503 with Retry-After instead of taking the connections
// every other request needs.
import { ApiError } from '../../errors.js'

export const SEARCH_SLOTS = 3
export const SEARCH_WAIT_MS = 1000

interface Waiter {
  resolve: () => void
  timer: NodeJS.Timeout
}

/** A counting semaphore whose waiters give up after `waitMs` with a 503. */
export class Slots {
  #free: number
  readonly #waiting: Waiter[] = []

  constructor(
    readonly size: number,
    readonly waitMs: number,
  ) {
    this.#free = size
  }

  /** Runs `task` in a slot, waiting up to `waitMs` for one. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    await this.#acquire()
    try {
      return await task()
    } finally {
      this.#release()
    }
  }

  #acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free--
      return Promise.resolve()
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(() => {
          this.#waiting.splice(this.#waiting.indexOf(waiter), 1)
          reject(new ApiError(503))
        }, this.waitMs),
      }
      this.#waiting.push(waiter)
    })
  }

  /** Hands the slot to the first in line, or frees it. */
  #release(): void {
    const next = this.#waiting.shift()
    if (next) {
      clearTimeout(next.timer)
      next.resolve()
    } else {
      this.#free++
    }
  }
}

export const searchSlots = new Slots(SEARCH_SLOTS, SEARCH_WAIT_MS)
