// HTML that escapes by default: `html` is a tagged template whose every interpolation is
// escaped unless it is itself Html (another template's result). Arrays are joined, and
// null, undefined and false render nothing, so conditionals and lists read naturally. The
// type system keeps strings and markup apart: a page function returns Html, never string.
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

export type Interpolation = Html | string | number | null | undefined | false | readonly Interpolation[]

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)
}

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return ''
  if (value instanceof Html) return value.text
  if (Array.isArray(value)) return (value as readonly Interpolation[]).map(render).join('')
  return escapeHtml(String(value))
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let text = strings[0] ?? ''
  values.forEach((value, i) => {
    text += render(value) + (strings[i + 1] ?? '')
  })
  return new Html(text)
}
