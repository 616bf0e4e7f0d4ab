// The one way a page draws a form and answers its errors. A form has a state: the values as
// typed, and the refusals by field name. Drawn the first time, the state is the record's
// values (or blanks); drawn again after a refusal (422), it keeps what was typed and shows
// each refusal beside its field, with a summary at the top for screen readers. The refusals
// are the service's own (ApiError details, the API's messages), or the form schema's.
import type { Static, TSchema } from 'typebox'
import { ApiError, type ErrorDetails } from '../../errors.js'
import { validate } from '../../http/validation.js'
import { html, type Html, type Interpolation } from '../shared/html.js'
import type { FastifyRequest } from 'fastify'
import { csrfInput } from './frame.js'

/** A field's value as typed: text, or the values of a repeated field (checkboxes, a multi-select). */
/** A form body as the parser gives it: names to text or lists of text. */
export type FormBody = Record<string, unknown>
export const formOf = (request: FastifyRequest): FormBody => (request.body ?? {}) as FormBody

/** A text field as sent, or undefined when missing or not text (a bracketed name sends a list). */
export function text(form: FormBody, name: string): string | undefined {
  const value = form[name]
  return typeof value === 'string' ? value : undefined
}

/** Length in code points, as the API counts it. */
export const length = (value: string) => Array.from(value).length
// eslint-disable-next-line no-control-regex -- control characters are exactly what this finds
export const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

export type FieldValue = string | readonly string[]

export interface FormState {
  values: Record<string, FieldValue | undefined>
  /** Refusals by field name; `base` holds those of the form as a whole. */
  errors: ErrorDetails
}

/** A form drawn for the first time: these values, no refusals. */
export const freshForm = (values: FormState['values'] = {}): FormState => ({ values, errors: {} })

/**
 * The refusals of a failed write, when it failed with 422 (the same details the API answers);
 * any other error is thrown on, to the error pages. `rename` maps a service's parameter name to
 * the form's field name where they differ.
 */
export function refusalsOf(err: unknown, rename: Record<string, string> = {}): ErrorDetails {
  if (!(err instanceof ApiError) || err.statusCode !== 422) throw err
  const details = err.details ?? { base: [err.message] }
  const errors: ErrorDetails = {}
  for (const [name, problems] of Object.entries(details)) {
    const field = rename[name] ?? name
    errors[field] = [...(errors[field] ?? []), ...problems]
  }
  return errors
}

/**
 * A form's fields read with its TypeBox schema (the API's validation and coercions: a repeated
 * field where one value is expected, NUL, lone surrogates and overlong text are refused), or the
 * refusals. Unknown fields (the CSRF token among them) are left out.
 */
export function readForm<S extends TSchema>(schema: S, body: unknown): { ok: true; value: Static<S> } | { ok: false; errors: ErrorDetails } {
  try {
    return { ok: true, value: validate(schema, body ?? {}) }
  } catch (err) {
    return { ok: false, errors: refusalsOf(err) }
  }
}

/** Text values of a form body as typed, for drawing the form again (lists keep their text items). */
export function typedValues(body: unknown, names: readonly string[]): FormState['values'] {
  const form = (body ?? {}) as Record<string, unknown>
  const values: FormState['values'] = {}
  for (const name of names) {
    const value = form[name]
    if (typeof value === 'string') values[name] = value.slice(0, 10_000)
    else if (Array.isArray(value)) values[name] = value.filter((item): item is string => typeof item === 'string').map((item) => item.slice(0, 10_000))
  }
  return values
}

/** A refusal as a sentence: "does not exist" → "Does not exist." */
export const sentence = (problem: string) => `${problem.charAt(0).toUpperCase()}${problem.slice(1)}${/[.!?]$/.test(problem) ? '' : '.'}`

export interface FieldSpec {
  name: string
  label: string
  type?: 'text' | 'email' | 'tel' | 'url' | 'number' | 'date' | 'password' | 'search' | 'textarea' | 'select'
  /** A select's choices: [value, label]. */
  options?: readonly (readonly [value: string, label: string])[]
  required?: boolean
  maxlength?: number
  hint?: string
  autocomplete?: string
  /** The element id; `field-<name>` otherwise. */
  id?: string
}

// A person's fields as the contact and the lead forms both ask for them, in the API's names: one
// label and type for each, and 255 characters at most, as their columns hold.
const PERSON_FIELD_SPECS = {
  first_name: { label: 'First name', required: true },
  last_name: { label: 'Last name' },
  email: { label: 'Email', type: 'email', required: true },
  position: { label: 'Position' },
  telephone: { label: 'Telephone', type: 'tel' },
  city: { label: 'City' },
  country: { label: 'Country' },
} as const satisfies Record<string, Omit<FieldSpec, 'name'>>

/** The person field `name`, with what a form sets beyond it (`more`: autocomplete off). */
export function personField(name: keyof typeof PERSON_FIELD_SPECS, more: Omit<FieldSpec, 'name' | 'label'> = {}): FieldSpec {
  return { name, ...PERSON_FIELD_SPECS[name], maxlength: 255, ...more }
}

const idOf = (spec: FieldSpec) => spec.id ?? `field-${spec.name.replace(/[^A-Za-z0-9_-]/g, '-')}`

/**
 * A labelled field with its value as typed and its refusals beside it (linked with
 * aria-describedby, marked aria-invalid).
 */
export function field(state: FormState, spec: FieldSpec): Html {
  const id = idOf(spec)
  const problems = state.errors[spec.name] ?? []
  const raw = state.values[spec.name]
  const value = typeof raw === 'string' ? raw : ''
  const described = [spec.hint && `${id}-hint`, problems.length > 0 && `${id}-error`].filter(Boolean).join(' ')
  const common = html`id="${id}" name="${spec.name}"${spec.required ? html` required` : ''}${described && html` aria-describedby="${described}"`}${problems.length > 0 ? html` aria-invalid="true"` : ''}`
  let control: Html
  if (spec.type === 'textarea') {
    control = html`<textarea ${common}${spec.maxlength !== undefined && html` maxlength="${String(spec.maxlength)}"`} rows="4">${value}</textarea>`
  } else if (spec.type === 'select') {
    control = html`<select ${common}>${(spec.options ?? []).map(([optionValue, label]) => html`<option value="${optionValue}"${optionValue === value ? html` selected` : ''}>${label}</option>`)}</select>`
  } else {
    control = html`<input ${common} type="${spec.type ?? 'text'}" value="${value}"${spec.maxlength !== undefined && html` maxlength="${String(spec.maxlength)}"`}${spec.autocomplete && html` autocomplete="${spec.autocomplete}"`}>`
  }
  return html`<div class="field${problems.length > 0 ? ' invalid' : ''}">
  <label for="${id}">${spec.label}${!spec.required && spec.type !== 'select' && html` <span class="muted">(optional)</span>`}</label>
  ${spec.hint && html`<p id="${id}-hint" class="hint">${spec.hint}</p>`}
  ${control}
  ${problems.length > 0 && html`<p id="${id}-error" class="field-error">${problems.map(sentence).join(' ')}</p>`}
</div>`
}

/**
 * The summary at the top of a refused form: how many problems, the form-wide ones (`base`, or
 * of a field the form does not show) in full. `shown`: the names of the fields drawn.
 */
export function formErrors(state: FormState, shown: readonly string[] = []): Html | false {
  const entries = Object.entries(state.errors)
  if (entries.length === 0) return false
  const loose = entries.filter(([name]) => !shown.includes(name))
  const count = entries.reduce((sum, [, problems]) => sum + problems.length, 0)
  return html`<div class="alert" role="alert">
  <p>${count === 1 ? 'One thing to fix' : `${String(count)} things to fix`}, so nothing was saved${loose.length === entries.length ? ':' : '; see beside the fields.'}</p>
  ${loose.map(([name, problems]) => problems.map((problem) => html`<p>${name === 'base' ? '' : `${name.replace(/_/g, ' ')}: `}${sentence(problem)}</p>`))}
</div>`
}

export interface FormSpec {
  action: string
  csrf: string
  state: FormState
  /** The submit button's label. */
  submit: string
  /** The fields, drawn with `field` (or any Html). */
  fields: Interpolation
  /** The names of the fields drawn with `field`, so the summary does not repeat their refusals. */
  shown?: readonly string[]
  className?: string
  /** An accessible name for the form (aria-label), where a page holds several. */
  label?: string
}

/** A post form: the summary of its refusals, the CSRF token, its fields and its one submit button. */
export function postForm(spec: FormSpec): Html {
  return html`<form method="post" action="${spec.action}" class="${spec.className ?? 'stack'}"${spec.label && html` aria-label="${spec.label}"`} novalidate>
  ${formErrors(spec.state, spec.shown ?? [])}
  ${csrfInput(spec.csrf)}
  ${spec.fields}
  <button type="submit" class="primary">${spec.submit}</button>
</form>`
}
