// Calendar days (yyyy-mm-dd) as tasks use them: "today" is the day in the company's time
// zone, and due and done dates are plain days compared as such.
const DAY_MS = 86_400_000

const formatters = new Map<string, Intl.DateTimeFormat>()

/** The calendar day of `instant` in the IANA zone `timeZone`. */
export function dayIn(instant: Date, timeZone: string): string {
  let format = formatters.get(timeZone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })
    formatters.set(timeZone, format)
  }
  const parts = format.formatToParts(instant)
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value
  return `${part('year')}-${part('month')}-${part('day')}`
}

/** Days since 1970-01-01: the key of per-day counters. */
export const epochDay = (day: string): number => Math.round(Date.parse(`${day}T00:00:00Z`) / DAY_MS)

export const addDays = (day: string, days: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
