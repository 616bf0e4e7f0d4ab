// Which contact field each column of a file fills, and a row as the batch upsert's item.
// A header is matched by its name with case, accents, spaces and punctuation ignored
// (`E-mail`, `Email Address` and `email` are one); a mapping given with the import names a
// column by its header and says where it goes: a contact field, `tags`, `custom_field:<name>`
// (an existing custom field, or a new one created by the import), or `ignore`.
import { invalid, type ErrorDetails } from '../../errors.js'
import { STAGES } from '../contacts/index.js'

/** The contact fields a column can fill, as the API names them; `full_name` is split into first and last name. */
export const FIELD_TARGETS = [
  'first_name', 'last_name', 'full_name', 'email', 'business', 'position', 'telephone', 'cellphone', 'address',
  'city', 'state', 'country', 'url', 'linkedin', 'variable1', 'variable2', 'variable3', 'carousel', 'stage',
] as const
type FieldTarget = (typeof FIELD_TARGETS)[number]

export const CUSTOM_FIELD = 'custom_field:'
export const IGNORE = 'ignore'
export const TAGS = 'tags'

/** A header as compared: lower case, no accents, letters and digits only. */
export const normalised = (header: string) =>
  header.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]/gu, '')

// The headers of HubSpot, Pipedrive, Salesforce, Close and spreadsheet exports, normalised.
const ALIASES: Record<string, FieldTarget | typeof TAGS> = {}
const alias = (target: FieldTarget | typeof TAGS, ...names: string[]) => {
  for (const name of names) ALIASES[normalised(name)] = target
}
alias('first_name', 'first_name', 'First Name', 'Firstname', 'Given Name', 'Forename')
alias('last_name', 'last_name', 'Last Name', 'Surname', 'Family Name')
alias('full_name', 'Name', 'Full Name', 'Contact Name', 'Person Name')
alias('email', 'email', 'E-mail', 'Email Address', 'E-mail Address', 'Work Email', 'Email Work', 'Primary Email', 'Mail')
alias('business', 'business', 'Company', 'Company Name', 'Organization', 'Organisation', 'Organization Name', 'Account', 'Account Name', 'Employer')
alias('position', 'position', 'Job Title', 'Title', 'Role', 'Job Position')
alias('telephone', 'telephone', 'Phone', 'Phone Number', 'Work Phone', 'Phone Work', 'Business Phone', 'Office Phone')
alias('cellphone', 'cellphone', 'Mobile', 'Mobile Phone', 'Mobile Phone Number', 'Cell', 'Cell Phone', 'Phone Mobile')
alias('address', 'address', 'Street Address', 'Street', 'Address 1', 'Address Line 1')
alias('city', 'city', 'Town')
alias('state', 'state', 'State/Region', 'Region', 'Province', 'State/Province')
alias('country', 'country', 'Country/Region')
alias('url', 'url', 'Website', 'Website URL', 'Web Site', 'Homepage')
alias('linkedin', 'linkedin', 'LinkedIn URL', 'LinkedIn Profile', 'LinkedIn Bio')
alias('variable1', 'variable1')
alias('variable2', 'variable2')
alias('variable3', 'variable3')
alias('carousel', 'carousel')
alias('stage', 'stage', 'Lifecycle Stage', 'Lifecycle')
alias(TAGS, 'tags', 'Tag', 'Labels', 'Label')

// Prefixes some tools put before every column (Pipedrive's `Person - Email - Work`).
const PREFIXES = ['person', 'contact']

/** The target a header takes by itself: a known name, a custom field of that name, else ignored. */
export function automaticTarget(header: string, customFields: readonly string[]): string {
  const key = normalised(header)
  const candidates = [key, ...PREFIXES.filter((p) => key.startsWith(p) && key.length > p.length).map((p) => key.slice(p.length))]
  for (const candidate of candidates) {
    const known = ALIASES[candidate]
    if (known !== undefined) return known
    const field = customFields.find((name) => normalised(name) === candidate)
    if (field !== undefined) return `${CUSTOM_FIELD}${field}`
  }
  return IGNORE
}

const isTarget = (target: string) =>
  target === IGNORE || target === TAGS || (FIELD_TARGETS as readonly string[]).includes(target) ||
  (target.startsWith(CUSTOM_FIELD) && /\S/.test(target.slice(CUSTOM_FIELD.length)) && Array.from(target).length <= CUSTOM_FIELD.length + 255)

/**
 * Each column's target: the mapping's where it names the column (by its header, exactly or
 * as normalised), else the automatic one. A target no column may share (a contact field,
 * tags) goes to its first column only. Refused (422, under `mapping`): a key that names no
 * column, a target that is none of the above, and two columns given the same field.
 */
export function resolveColumns(headers: string[], mapping: Record<string, string> | undefined, customFields: readonly string[]): string[] {
  const problems: string[] = []
  const given = new Map<number, string>()
  for (const [key, target] of Object.entries(mapping ?? {})) {
    let index = headers.indexOf(key)
    if (index === -1) index = headers.findIndex((header) => normalised(header) === normalised(key))
    if (index === -1) problems.push(`names no column of the file: ${key}`)
    else if (!isTarget(target)) problems.push(`${key}: ${target} is not a contact field, tags, custom_field:<name> or ignore`)
    else given.set(index, target)
  }
  const columns = headers.map((header, index) => given.get(index) ?? automaticTarget(header, customFields))
  const taken = new Map<string, number>()
  columns.forEach((target, index) => {
    if (target === IGNORE) return
    const key = target.startsWith(CUSTOM_FIELD) ? target.toLowerCase() : target
    const first = taken.get(key)
    if (first === undefined) {
      taken.set(key, index)
      return
    }
    if (given.has(index) && given.has(first)) problems.push(`${headers[first] ?? ''} and ${headers[index] ?? ''} both go to ${target}`)
    columns[index] = given.has(index) && !given.has(first) ? target : IGNORE
    if (given.has(index) && !given.has(first)) {
      columns[first] = IGNORE
      taken.set(key, index)
    }
  })
  if (problems.length > 0) {
    const details: ErrorDetails = { mapping: problems }
    throw invalid(details)
  }
  return columns
}

// Stage names as other tools write them.
const STAGE_NAMES: Record<string, string> = {
  marketingqualifiedlead: 'mql',
  salesqualifiedlead: 'sql',
  customer: 'client',
  smartlead: 'smart_lead',
}
for (const stage of STAGES) STAGE_NAMES[normalised(stage)] = stage

/** A stage as typed, in the API's value when it names one (`Lead`, `Marketing Qualified Lead`); as typed otherwise (refused then). */
export const stageValue = (value: string) => STAGE_NAMES[normalised(value)] ?? value

/** Tag names of a cell: comma- or semicolon-separated, trimmed, without empty ones or repeats (case-insensitive). */
export function tagNames(value: string): string[] {
  const seen = new Set<string>()
  const names: string[] = []
  for (const part of value.split(/[,;]/)) {
    const name = part.trim()
    if (name === '' || seen.has(name.toLowerCase())) continue
    seen.add(name.toLowerCase())
    names.push(name)
  }
  return names
}

/** A row as the batch upsert's item (without its tags' ids), and the tag names it gives. */
export interface RowItem {
  item: Record<string, unknown>
  tags: string[] | undefined
}

/**
 * The item of a row: each non-empty value under its column's field, as typed (an empty
 * value leaves the field as it is). `full_name` fills the first name with its first word and
 * the last name with the rest, where the file has no column of its own for them.
 */
export function rowItem(values: string[], columns: string[]): RowItem {
  const item: Record<string, unknown> = {}
  const custom: { field: string; value: string }[] = []
  let tags: string[] | undefined
  let fullName: string | undefined
  columns.forEach((target, index) => {
    const value = values[index] ?? ''
    if (target === IGNORE || value === '') return
    if (target === TAGS) tags = tagNames(value)
    else if (target === 'full_name') fullName = value
    else if (target.startsWith(CUSTOM_FIELD)) custom.push({ field: target.slice(CUSTOM_FIELD.length), value })
    else item[target] = target === 'stage' ? stageValue(value) : value
  })
  if (fullName !== undefined) {
    const [first, ...rest] = fullName.trim().split(/\s+/)
    if (item.first_name === undefined && first !== undefined && first !== '') item.first_name = first
    if (item.last_name === undefined && rest.length > 0) item.last_name = rest.join(' ')
  }
  if (custom.length > 0) item.custom_fields = custom
  return { item, tags }
}
