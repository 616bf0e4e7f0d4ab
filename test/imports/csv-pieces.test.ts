// The parser is given a file's text a piece of at most PIECE_CHARS at a time (so that it
// never holds a whole stored chunk's records: docs/performance.md, "Memory"): records,
// quoted line breaks, CRLF and characters outside the BMP that straddle two pieces come out
// as they were written, with their lines.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { decode, PIECE_CHARS, records, type CsvItem } from '../../src/modules/contact-imports/contact-imports.csv.js'

async function all(text: AsyncIterable<string>): Promise<CsvItem[]> {
  const items: CsvItem[] = []
  for await (const item of records(text, 'comma')) items.push(item)
  return items
}

async function* once(text: string) {
  yield text
}

async function* bytes(buffer: Buffer, size: number) {
  for (let offset = 0; offset < buffer.length; offset += size) yield buffer.subarray(offset, offset + size)
}

test('values that straddle two pieces: a surrogate pair, a quoted line break, a CRLF', async () => {
  // The filler puts each tricky spot at or around a piece boundary.
  for (const shift of [-2, -1, 0, 1]) {
    const filler = 'x'.repeat(PIECE_CHARS - 'name,note\r\n'.length - 'a,'.length + shift)
    const text = `name,note\r\na,${filler}😀b\r\n"quoted\r\nline",c\r\nlast,😀\r\n`
    const expected = [
      { values: ['a', `${filler}😀b`], line: 2 },
      { values: ['quoted\nline', 'c'], line: 3 },
      { values: ['last', '😀'], line: 5 },
    ]
    for (const source of [once(text), decode(bytes(Buffer.from(text, 'utf8'), 1024 * 1024), 'utf-8'), decode(bytes(Buffer.from(text, 'utf8'), 7), 'utf-8')]) {
      const items = await all(source)
      assert.deepEqual(items.slice(1).map((item) => ('values' in item ? { values: item.values, line: item.line } : item)), expected, `shift ${String(shift)}`)
    }
  }
})

test('a text of many pieces gives every record once, in order', async () => {
  const rows = Array.from({ length: 5000 }, (_, i) => `Row ${String(i)} ñ,row${String(i)}@pieces.example`)
  const text = `name,email\n${rows.join('\n')}\n`
  assert.ok(text.length > 5 * PIECE_CHARS)
  const items = await all(decode(bytes(Buffer.from(text, 'utf8'), 1024 * 1024), 'utf-8'))
  assert.equal(items.length, 5001)
  items.slice(1).forEach((item, i) => {
    assert.ok('values' in item)
    assert.deepEqual(item.values, [`Row ${String(i)} ñ`, `row${String(i)}@pieces.example`])
    assert.equal(item.line, i + 2)
  })
})
