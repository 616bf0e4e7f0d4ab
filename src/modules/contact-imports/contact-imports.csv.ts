// Reading and writing CSV text. The bytes of a file are decoded as their BOM says (UTF-8,
// UTF-16 LE or BE), else as UTF-8 when they all are, else as Windows-1252, with the
// WHATWG decoders Node ships (TextDecoder), a chunk at a time; the text is parsed by
// csv-parse, streaming, one record at a time. Written values follow RFC 4180 and OWASP's
// rule against formula injection.
import { parse, type Info } from 'csv-parse'

export const ENCODINGS = ['utf-8', 'utf-16le', 'utf-16be', 'windows-1252'] as const
export type Encoding = (typeof ENCODINGS)[number]

export const SEPARATORS = { comma: ',', semicolon: ';', tab: '\t' } as const
export type Separator = keyof typeof SEPARATORS

/** The longest record read (a row of a few dozen fields of at most 1,000 characters is far below). */
export const MAX_RECORD_CHARS = 256 * 1024

/** The encoding a file's first bytes name with a byte order mark, if they do. */
export function encodingOfBom(head: Uint8Array): Encoding | undefined {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8'
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le'
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be'
  return undefined
}

/**
 * Follows a file's bytes as they arrive to tell its encoding at the end: the BOM's, else
 * UTF-8 when every byte sequence is valid UTF-8, else Windows-1252 (what Excel writes for
 * "CSV" on Western Windows), whose decoder takes any byte.
 */
export class EncodingSniffer {
  private bom: Encoding | undefined
  private first = true
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true })
  private validUtf8 = true

  push(chunk: Uint8Array): void {
    if (this.first) {
      this.first = false
      this.bom = encodingOfBom(chunk)
    }
    if (this.bom !== undefined || !this.validUtf8) return
    try {
      this.utf8.decode(chunk, { stream: true })
    } catch {
      this.validUtf8 = false
    }
  }

  result(): Encoding {
    if (this.bom !== undefined) return this.bom
    if (this.validUtf8) {
      try {
        this.utf8.decode()
      } catch {
        return 'windows-1252'
      }
      return 'utf-8'
    }
    return 'windows-1252'
  }
}

/**
 * The most text handed to the parser at once: csv-parse keeps every record of what it is given
 * until they are read, and a whole stored chunk's records lived long enough to fill V8's old
 * generation (docs/performance.md, "Memory").
 */
export const PIECE_CHARS = 16 * 1024

/** Decoded text, a piece of at most PIECE_CHARS bytes at a time; a BOM is dropped. */
export async function* decode(chunks: AsyncIterable<Uint8Array>, encoding: Encoding): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding)
  for await (const chunk of chunks) {
    for (let offset = 0; offset < chunk.length; offset += PIECE_CHARS) {
      const text = decoder.decode(chunk.subarray(offset, offset + PIECE_CHARS), { stream: true })
      if (text !== '') yield text
    }
  }
  const rest = decoder.decode()
  if (rest !== '') yield rest
}

/** The separator the header line uses most (outside quotes): comma when none is there. */
export function detectSeparator(text: string): Separator {
  const counts: Record<Separator, number> = { comma: 0, semicolon: 0, tab: 0 }
  let quoted = false
  for (const char of text) {
    if (char === '"') quoted = !quoted
    else if (!quoted && (char === '\n' || char === '\r')) break
    else if (!quoted && char === ',') counts.comma++
    else if (!quoted && char === ';') counts.semicolon++
    else if (!quoted && char === '\t') counts.tab++
  }
  const best = (Object.keys(counts) as Separator[]).reduce((a, b) => (counts[b] > counts[a] ? b : a), 'comma')
  return counts[best] > 0 ? best : 'comma'
}

/** A record of the file: its values, the line it starts on (the header is line 1), its text. */
export interface CsvRecord {
  values: string[]
  line: number
  raw: string
}

/** A record the parser could not read (an unbalanced quote): where it starts, its text, why. */
export interface CsvProblem {
  line: number
  raw: string
  reason: string
}

export type CsvItem = CsvRecord | CsvProblem

const newlines = (text: string) => {
  let n = 0
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++
  return n
}

/** The line a record starts on, from the line it ends on and its text (blank lines before it dropped). */
const startLine = (endLine: number, raw: string) => endLine - newlines(raw.replace(/^[\r\n]+/, '').replace(/\r?\n$/, ''))

const PROBLEMS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted value opens here and is never closed (the rest of the file is part of it)',
  CSV_MAX_RECORD_SIZE: `a quoted value opens here and is not closed within ${String(MAX_RECORD_CHARS / 1024)} KiB`,
}

/**
 * The records of decoded text, in order, with the lines they start on. Line breaks are read
 * as LF, CRLF or CR; a quote inside an unquoted value is kept as typed; a record with more
 * or fewer values than the header is given as it is (the caller decides).
 */
export async function* records(text: AsyncIterable<string>, separator: Separator): AsyncGenerator<CsvItem> {
  const parser = parse({
    delimiter: SEPARATORS[separator],
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    max_record_size: MAX_RECORD_CHARS,
    info: true,
    raw: true,
  })
  const problems: CsvProblem[] = []
  parser.on('skip', (err: Error & { code?: string; lines?: number; raw?: string }) => {
    const raw = err.raw ?? ''
    const line = startLine(err.lines ?? 0, raw)
    if (problems.some((p) => p.line === line)) return
    problems.push({ line, raw: raw.replace(/\r?\n$/, ''), reason: PROBLEMS[err.code ?? ''] ?? err.message })
  })
  const feed = (async () => {
    try {
      // Lines as LF only: csv-parse counts a CRLF as two lines.
      let carriage = false
      for await (const piece of text) {
        let chunk: string = carriage ? `\r${piece}` : piece
        carriage = chunk.endsWith('\r')
        if (carriage) chunk = chunk.slice(0, -1)
        chunk = chunk.replace(/\r\n?/g, '\n')
        // A piece at a time (PIECE_CHARS), never between the two halves of a surrogate pair.
        for (let start = 0; start < chunk.length; ) {
          let end = Math.min(start + PIECE_CHARS, chunk.length)
          if (end < chunk.length && /[\ud800-\udbff]/.test(chunk.charAt(end - 1))) end++
          if (parser.destroyed) return
          if (!parser.write(chunk.slice(start, end))) {
            // Whichever comes first; the other listener goes too (one per chunk piled up on the parser).
            await new Promise<void>((resolve) => {
              const go = () => {
                parser.off('drain', go)
                parser.off('close', go)
                resolve()
              }
              parser.once('drain', go)
              parser.once('close', go)
            })
          }
          start = end
        }
      }
      if (!parser.destroyed) parser.end(carriage ? '\n' : undefined)
    } catch (err) {
      parser.destroy(err as Error)
    }
  })()
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: Info; raw: string }>) {
      const line = startLine(item.info.lines, item.raw)
      // The parser may have gone past problems after this record before it is taken: each in its line's turn.
      while (problems.length > 0 && (problems[0]?.line ?? 0) < line) yield problems.shift() as CsvProblem
      yield { values: item.record, line, raw: item.raw.replace(/^\n+/, '').replace(/\n$/, '') }
    }
    await feed
    yield* problems
  } finally {
    // A consumer that stops early (a dry run's preview, a lost lease) ends the parser and its feed.
    parser.destroy()
  }
}

/** A text value as a spreadsheet shows it and does not run: OWASP's rule, a leading `'` before = + - @ tab CR. */
export const defused = (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value)

/** One value of a CSV line (RFC 4180): quoted when it holds a separator, quote or line break. */
export const cell = (value: string) => (/[",;\t\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value)

/** A CSV line of values, CRLF-terminated as RFC 4180 writes it. */
export const csvLine = (values: string[]) => `${values.map(cell).join(',')}\r\n`

/** The UTF-8 byte order mark, first in every file written, so that Excel reads it as UTF-8. */
export const BOM = '\ufeff'
