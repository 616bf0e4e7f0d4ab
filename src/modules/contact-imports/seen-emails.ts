// The emails of a file seen so far, to report a row whose email an earlier row has. Each is
// kept as a 64-bit hash (two 32-bit FNV-1a) with its line in typed arrays, because a million
// emails as strings would take several times the memory (docs/performance.md, "Memory"); two
// emails of a million-row file share a hash with odds of about 1 in 10^7.

const fnv = (text: string, seed: number) => {
  let hash = seed
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

export class SeenEmails {
  private high = new Uint32Array(1024)
  private low = new Uint32Array(1024)
  private lines = new Uint32Array(1024)
  private size = 0

  /** The line of an earlier row with this email (compared case-insensitively), or else records it on `line`. */
  firstLine(email: string, line: number): number | undefined {
    const key = email.toLowerCase()
    const high = fnv(key, 0x811c9dc5)
    const low = (fnv(key, 0x01000193) | 1) >>> 0 // never 0: an empty slot
    const mask = this.low.length - 1
    for (let slot = high & mask; ; slot = (slot + 1) & mask) {
      if (this.low[slot] === 0) {
        this.high[slot] = high
        this.low[slot] = low
        this.lines[slot] = line
        if (++this.size * 2 > this.low.length) this.grow()
        return undefined
      }
      if (this.high[slot] === high && this.low[slot] === low) return this.lines[slot]
    }
  }

  private grow() {
    const { high, low, lines } = this
    this.high = new Uint32Array(high.length * 2)
    this.low = new Uint32Array(low.length * 2)
    this.lines = new Uint32Array(lines.length * 2)
    const mask = this.low.length - 1
    for (let i = 0; i < low.length; i++) {
      if (low[i] === 0) continue
      let slot = (high[i] ?? 0) & mask
      while (this.low[slot] !== 0) slot = (slot + 1) & mask
      this.high[slot] = high[i] ?? 0
      this.low[slot] = low[i] ?? 0
      this.lines[slot] = lines[i] ?? 0
    }
  }
}
