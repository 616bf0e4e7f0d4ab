// Waiting in a test for what another process or thread does: `check` is asked every 20 ms
// until it answers something, for at most `ms`.
export async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const found = await check()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`${what}: not in time`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
