// HTTP over a bare socket (node:net), for what no HTTP client sends: malformed requests, and
// bodies written whole before the answer is read.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect } from 'node:net'
import { detailCodes, MESSAGES, type ErrorStatus } from '../../src/errors.js'

export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
  /** The server closed the connection (the client saw its end). */
  closed: boolean
}

/** Sends bytes on a fresh connection and reads until the server closes it (or `waitMs`). */
export async function raw(port: number, chunks: (string | Buffer)[], waitMs = 5_000): Promise<RawResponse> {
  const socket = connect(port, '127.0.0.1')
  await once(socket, 'connect')
  let text = ''
  let closed = false
  socket.setEncoding('utf8')
  socket.on('data', (chunk: string) => {
    text += chunk
  })
  socket.on('error', () => undefined) // a reset after the answer: what was read is what counts
  const ended = new Promise<void>((resolve) => {
    socket.on('close', resolve)
  })
  socket.on('end', () => {
    closed = true
  })
  for (const chunk of chunks) socket.write(chunk)
  await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, waitMs))])
  socket.destroy()
  return { ...parseResponse(text), closed }
}

/** The first response in `text`: status, headers (lower-case names) and the rest as body. */
export function parseResponse(text: string): Omit<RawResponse, 'closed'> {
  const split = text.indexOf('\r\n\r\n')
  assert.ok(split > 0, `no complete response: ${JSON.stringify(text.slice(0, 200))}`)
  const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(split + 4) }
}

/** The contract's error body (section 5), its request_id the X-Request-Id header's. */
export function assertContractError(
  res: { headers: Record<string, unknown>; body: string },
  status: ErrorStatus,
  code: string,
  details?: Record<string, string[]>,
) {
  const id = res.headers['x-request-id']
  assert.match(String(id), /^[A-Za-z0-9._-]{1,128}$/)
  const expected = details ? { details, detail_codes: detailCodes(details) } : {}
  assert.deepEqual(JSON.parse(res.body), { error: { status, message: MESSAGES[status], code, ...expected, request_id: id } })
  assert.match(String(res.headers['content-type']), /^application\/json/)
}
