// Shared by the rate-limit tests: a logger that records, a private redis-server, a free port.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import type { TestContext } from 'node:test'
import { Redis } from 'ioredis'
import type { RateLimiterLogger } from '../../src/rate-limit/limiter.js'

export interface LogLine {
  level: 'info' | 'warn'
  obj: object
  msg: string
}

export function recordingLogger(): RateLimiterLogger & { lines: LogLine[]; count(level: LogLine['level']): number } {
  const lines: LogLine[] = []
  return {
    lines,
    info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
    count: (level) => lines.filter((line) => line.level === level).length,
  }
}

export const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0

export async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  server.close()
  if (address === null || typeof address === 'string') throw new Error('no TCP address')
  return address.port
}

export interface PrivateRedis {
  url: string
  kill(): Promise<void>
}

/** A throwaway redis-server (no persistence) on `port`; resolves once it accepts connections. */
export async function startRedis(port: number): Promise<PrivateRedis> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const exited = once(child, 'exit')
  await new Promise<void>((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`redis-server on ${port} not ready in 5 s:\n${output}`))
    }, 5000)
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`redis-server on ${port} exited with ${code}:\n${output}`))
    })
  })
  return {
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL')
        await exited
      }
    },
  }
}

/** A plain client for inspecting a private server; dropped when the test ends, up or down. */
export function inspector(t: TestContext, url: string): Redis {
  const client = new Redis(url, { disconnectTimeout: 100 })
  client.on('error', () => {}) // the server is killed on purpose
  t.after(() => {
    client.disconnect()
  })
  return client
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls `check` every 50 ms until it holds or `timeoutMs` passes; returns whether it held. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return true
    await sleep(50)
  }
  return check()
}
