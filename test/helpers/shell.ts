// Reading the docs' shell examples as a shell user pastes them: a block's logical lines
// (continuations, quotes, comments), a line's words with $VAR expanded, and a curl line as the
// request it sends (for fastify.inject). Used by the walk-through and every-example tests.
import assert from 'node:assert/strict'

export const ORIGIN = 'http://localhost:3000'

export interface Step {
  command: string
  status: number | undefined
}

/** A block's logical lines, as a shell reads them: `\\` + newline continues, quotes span lines. */
export function shellLines(body: string): string[] {
  const lines: string[] = []
  let line = ''
  let quote: string | undefined
  for (let i = 0; i < body.length; i++) {
    const c = body.charAt(i)
    if (quote === undefined && c === '\\' && body.charAt(i + 1) === '\n') {
      line += ' '
      i++
    } else if (quote === undefined && c === '\n') {
      lines.push(line.trim())
      line = ''
    } else {
      if (quote === undefined && c === '#' && /^\s*$/.test(line)) {
        const end = body.indexOf('\n', i)
        lines.push(body.slice(i, end === -1 ? undefined : end).trim())
        i = end === -1 ? body.length : end
        continue
      }
      if (c === "'" || c === '"') quote = quote === undefined ? c : quote === c ? undefined : quote
      line += c
    }
  }
  lines.push(line.trim())
  return lines.filter((l) => l !== '')
}

/** The commands of the walk-through blocks, each with the status its `# NNN` comment names. */
export function walkThroughSteps(markdown: string): Step[] {
  const steps: Step[] = []
  const blocks = markdown.split('<!-- walk-through -->').slice(1)
  for (const block of blocks) {
    const body = /```sh\n([\s\S]*?)```/.exec(block)?.[1] ?? ''
    for (const line of shellLines(body)) {
      const status = /^#\s*(\d{3})\b/.exec(line)?.[1]
      const last = steps.at(-1)
      if (status && last && last.status === undefined) last.status = Number(status)
      else if (line.startsWith('curl ')) steps.push({ command: line, status: undefined })
    }
  }
  return steps
}

/** Shell words: '…' literal, "…" with $VAR expanded, bare words with $VAR expanded. */
export function words(command: string, vars: Record<string, string>): string[] {
  const expand = (text: string) => text.replace(/\$(\w+)|\$\{(\w+)\}/g, (_m, a: string | undefined, b: string | undefined) => vars[a ?? b ?? ''] ?? '')
  const out: string[] = []
  let current: string | undefined
  for (let i = 0; i < command.length; i++) {
    const c = command.charAt(i)
    if (c === "'" || c === '"') {
      const end = command.indexOf(c, i + 1)
      assert.ok(end > i, `unclosed quote in: ${command}`)
      const text = command.slice(i + 1, end)
      current = (current ?? '') + (c === '"' ? expand(text) : text)
      i = end
    } else if (/\s/.test(c)) {
      if (current !== undefined) out.push(current)
      current = undefined
    } else {
      let j = i
      while (j < command.length && !/[\s'"]/.test(command.charAt(j))) j++
      current = (current ?? '') + expand(command.slice(i, j))
      i = j - 1
    }
  }
  if (current !== undefined) out.push(current)
  return out
}

export function curlRequest(args: string[]) {
  let method: string | undefined
  let url: string | undefined
  let payload: string | undefined
  const headers: Record<string, string> = {}
  for (let i = 1; i < args.length; i++) {
    const arg = args[i] ?? ''
    const next = () => args[++i] ?? ''
    if (arg === '-X' || arg === '--request') method = next()
    else if (arg === '-H' || arg === '--header') {
      const [name = '', ...value] = next().split(':')
      headers[name.trim().toLowerCase()] = value.join(':').trim()
    } else if (arg === '-d' || arg === '--data' || arg === '--data-raw') payload = next()
    else if (arg === '-s' || arg === '-i' || arg === '--silent') continue
    else if (arg === '--data-binary') payload = next()
    else if (arg.startsWith('http') || arg.startsWith('localhost:')) url = arg.startsWith('http') ? arg : `http://${arg}`
    else assert.fail(`curl option the test does not know: ${arg}`)
  }
  if (!url?.startsWith(ORIGIN)) assert.fail(`a URL on ${ORIGIN}: ${String(url)}`)
  if (payload !== undefined) headers['content-type'] ??= 'application/x-www-form-urlencoded' // curl's default for -d
  return { method: (method ?? (payload === undefined ? 'GET' : 'POST')) as 'GET', url: url.slice(ORIGIN.length), headers, payload }
}
