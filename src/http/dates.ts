// Calendar days and instants as the API accepts them: what PostgreSQL stores and JavaScript
// gives back exactly. Years 0001-9999 (PostgreSQL has no year 0; JavaScript writes years
// past 9999 as +010000), UTC offsets up to ±15:59 (PostgreSQL's limit), and an instant
// between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z.

/** 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z, in epoch milliseconds. */
export const MIN_INSTANT = -62_135_596_800_000
export const MAX_INSTANT = 253_402_300_799_999

export const DAY_OUT_OF_RANGE = 'is out of range (years 0001 to 9999)'
export const INSTANT_OUT_OF_RANGE = 'is out of range (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, offsets up to ±15:59)'

/** Whether a text is a good value, not one at all, or one the service cannot keep. */
export type DateCheck = 'ok' | 'invalid' | 'out_of_range'

const DAY = /^(\d{4})-(\d\d)-(\d\d)$/
// RFC 3339 (T, t or a space between date and time); fractions beyond milliseconds are rounded.
const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d\d)(?::?(\d\d))?)$/

const isLeap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function realDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false
  return day <= (month === 2 && isLeap(year) ? 29 : (DAYS[month - 1] ?? 0))
}

/** Epoch milliseconds of a UTC wall time; unlike Date.UTC, years 0-99 are not taken as 19xx. */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, second, ms)
  return date.getTime()
}

/** A calendar day, yyyy-mm-dd, of the years 0001 to 9999. */
export function checkDay(text: string): DateCheck {
  const m = DAY.exec(text)
  if (!m) return 'invalid'
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (!realDay(year, month, day)) return 'invalid'
  return year === 0 ? 'out_of_range' : 'ok'
}

interface Parsed {
  check: DateCheck
  /** Epoch milliseconds (fraction rounded to the millisecond, half up), when `check` is ok. */
  ms?: number
}

function parseDateTime(text: string): Parsed {
  const m = DATE_TIME.exec(text)
  if (!m) return { check: 'invalid' }
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]))
  const fraction = (m[7] ?? '').padEnd(4, '0')
  const sign = m[8] === '-' ? -1 : 1
  const offsetHours = Number(m[9] ?? 0)
  const offsetMinutes = Number(m[10] ?? 0)
  if (
    year === undefined || month === undefined || day === undefined ||
    hour === undefined || minute === undefined || second === undefined ||
    !realDay(year, month, day) || hour > 23 || minute > 59 || second > 60 || offsetMinutes > 59 || offsetHours > 23
  ) {
    return { check: 'invalid' }
  }
  const offset = sign * (offsetHours * 60 + offsetMinutes) * 60_000
  const ms = utc(year, month, day, hour, minute, second) - offset + Number(fraction.slice(0, 3)) + (Number(fraction[3]) >= 5 ? 1 : 0)
  // A leap second only at the end of a UTC day, as RFC 3339 has it.
  const before = new Date(ms - 1000)
  if (second === 60 && (before.getUTCHours() !== 23 || before.getUTCMinutes() !== 59)) return { check: 'invalid' }
  if (year === 0 || offsetHours > 15 || ms < MIN_INSTANT || ms > MAX_INSTANT) return { check: 'out_of_range' }
  return { check: 'ok', ms }
}

/** An RFC 3339 date-time with offset, in range. */
export const checkDateTime = (text: string): DateCheck => parseDateTime(text).check

/** The instant of a date-time that passed checkDateTime. */
export function instantOf(text: string): Date {
  const { ms } = parseDateTime(text)
  if (ms === undefined) throw new Error(`not a date-time in range: ${text}`)
  return new Date(ms)
}

export const inRange = (ms: number) => ms >= MIN_INSTANT && ms <= MAX_INSTANT
