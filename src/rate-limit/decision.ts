// What a rate limit decides for one request; the windows (in process, in Redis) answer it
// and the limiter passes it on. A file of its own so that the windows need not import the limiter.
export interface RateLimitDecision {
  allowed: boolean
  limit: number
  remaining: number
  resetSeconds: number
}
