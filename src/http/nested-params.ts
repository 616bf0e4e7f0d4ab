// Rails (Rack) style nested parameters for query strings and form bodies:
// `tags[]=3&tags[]=4`, `contact[first_name]=Ana`,
// `custom_fields[][field]=Size&custom_fields[][value]=XL&custom_fields[][field]=Color`
// (a new element starts when its key repeats). qs groups the last form differently,
// so this follows Rack::QueryParser#normalize_params instead.
export type FormValue = string | FormValue[] | FormObject
export interface FormObject { [key: string]: FormValue }

const MAX_PAIRS = 1000
const MAX_DEPTH = 16
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

export class FormError extends Error {}

/** Parses a form body or query string. `strict` (bodies) rejects malformed percent-encoding. */
export function parseForm(input: string, strict = true): FormObject {
  const params: FormObject = {}
  for (const [name, value] of namesAndValues(input, strict)) normalize(params, name, value, 0)
  return params
}

/** The decoded `name=value` pairs of a form body or query string, in order. */
function* namesAndValues(input: string, strict: boolean): Generator<[string, string]> {
  if (input === '') return
  const pairs = input.split('&')
  if (pairs.length > MAX_PAIRS) throw new FormError(`more than ${MAX_PAIRS} parameters`)
  for (const pair of pairs) {
    if (pair === '') continue
    const eq = pair.indexOf('=')
    yield [decode(eq === -1 ? pair : pair.slice(0, eq), strict), eq === -1 ? '' : decode(pair.slice(eq + 1), strict)]
  }
}

function decode(text: string, strict: boolean): string {
  const spaced = text.replace(/\+/g, ' ')
  try {
    return decodeURIComponent(spaced)
  } catch {
    if (strict) throw new FormError('malformed percent-encoding')
    return spaced
  }
}

function normalize(params: FormObject, name: string, value: FormValue, depth: number): FormObject {
  if (depth > MAX_DEPTH) throw new FormError('parameters nested too deeply')
  const match = /^[[\]]*([^[\]]+)\]*/.exec(name)
  const key = match?.[1] ?? ''
  const after = match ? name.slice(match[0].length) : ''
  if (key === '' || UNSAFE_KEYS.has(key)) return params

  if (after === '') {
    params[key] = value
  } else if (after === '[') {
    params[name] = value
  } else if (after === '[]') {
    const list = arrayAt(params, key)
    list.push(value)
  } else if (after.startsWith('[]')) {
    const childKey = /^\[\]\[([^[\]]+)\]$/.exec(after)?.[1] ?? after.slice(2)
    const list = arrayAt(params, key)
    const last = list[list.length - 1]
    if (isObject(last) && !hasKeyPath(last, childKey)) {
      normalize(last, childKey, value, depth + 1)
    } else {
      list.push(normalize({}, childKey, value, depth + 1))
    }
  } else {
    const existing = params[key]
    const child = isObject(existing) ? existing : {}
    params[key] = normalize(child, after, value, depth + 1)
  }
  return params
}

function arrayAt(params: FormObject, key: string): FormValue[] {
  const existing = params[key]
  if (Array.isArray(existing)) return existing
  const list: FormValue[] = []
  params[key] = list
  return list
}

function isObject(value: FormValue | undefined): value is FormObject {
  return typeof value === 'object' && !Array.isArray(value)
}

// Rack's params_hash_has_key?: does `a][b` already exist as a path in the object?
function hasKeyPath(object: FormObject, key: string): boolean {
  if (/\[\]/.test(key)) return false
  let current: FormValue | undefined = object
  for (const part of key.split(/[[\]]+/).filter(Boolean)) {
    if (!isObject(current) || !(part in current)) return false
    current = current[part]
  }
  return true
}

/** Each parameter with every value it was given, in order; no nesting (the OAuth endpoints, RFC 6749 §3.1). */
export type Pairs = Record<string, string | string[]>

/**
 * Parses flat `name=value` pairs, keeping a repeated name's values as a list so that a schema
 * taking one string refuses it (parseForm keeps the last, which would hide the repetition).
 */
export function parsePairs(input: string, strict = true): Pairs {
  const params: Pairs = {}
  for (const [name, value] of namesAndValues(input, strict)) {
    if (UNSAFE_KEYS.has(name)) continue
    const before = params[name]
    params[name] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value]
  }
  return params
}
