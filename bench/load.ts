// One measured run of autocannon on a URL with a bearer token, after a 2 s warm-up
// (BENCH_SECONDS, BENCH_CONNECTIONS): the side-by-side runs of --cluster and --versus.
import autocannon from 'autocannon'

export const seconds = Number(process.env.BENCH_SECONDS ?? 10)
export const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)

export interface Measured {
  rps: number
  p50: number
  p99: number
  errors: number
}

export async function measure(url: string, token: string): Promise<Measured> {
  const options = { url, connections, headers: { authorization: `Bearer ${token}` } }
  await autocannon({ ...options, duration: 2 })
  const result = await autocannon({ ...options, duration: seconds })
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx }
}
