// Every statement a request sends, recorded at the driver (pg.Client#query), whatever module
// or statement name sent it, with its round trip (sent → answered): the scale benchmarks
// (bench/scale.ts, bench/workspace.ts) sum them into a request's database time.
import { performance } from 'node:perf_hooks'
import pg from 'pg'

export interface Recorded {
  text: string
  values: unknown[]
  ms: number
}

let recording: Recorded[] | undefined

/** Records every statement from now on (one request at a time). */
export function startRecording(): void {
  recording = []
}

/** The statements recorded since startRecording, and stops recording. */
export function stopRecording(): Recorded[] {
  const recorded = recording ?? []
  recording = undefined
  return recorded
}

type QueryFn = (...args: unknown[]) => unknown
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with .apply on the client
const originalQuery = pg.Client.prototype.query as unknown as QueryFn
;(pg.Client.prototype as unknown as { query: QueryFn }).query = function (this: pg.Client, ...args: unknown[]) {
  const into = recording
  if (!into) return originalQuery.apply(this, args)
  const [config, second] = args
  const text = typeof config === 'string' ? config : (config as { text?: string } | undefined)?.text ?? ''
  const values =
    typeof config === 'string' ? (Array.isArray(second) ? second : []) : ((config as { values?: unknown[] }).values ?? (Array.isArray(second) ? second : []))
  const entry: Recorded = { text, values, ms: 0 }
  into.push(entry)
  const started = performance.now()
  const done = () => {
    entry.ms = performance.now() - started
  }
  const callbackAt = args.findIndex((a) => typeof a === 'function')
  if (callbackAt >= 0) {
    const callback = args[callbackAt] as (...r: unknown[]) => void
    args[callbackAt] = (...r: unknown[]) => {
      done()
      callback(...r)
    }
  }
  const result = originalQuery.apply(this, args)
  if (result instanceof Promise) result.then(done, done)
  return result
}
