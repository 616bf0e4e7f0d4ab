// The pause of a worker between two polls, which wake() ends at once (new work arrived, or the
// worker is stopping); a wake while the worker is busy makes its next pause end at once.
export class Pause {
  private woken = false
  private wakeUp: (() => void) | undefined

  wake(): void {
    if (this.wakeUp) this.wakeUp()
    else this.woken = true
  }

  /** Waits `ms`, less if woken meanwhile, nothing if woken since the last pause. */
  for(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.wakeUp = undefined
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.wakeUp = done
    })
  }
}
