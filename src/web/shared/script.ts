// The one script of the web application, served at /assets/web.js (the Content-Security-
// Policy allows scripts from this origin only, none inline; fetch to this origin only). The
// pages work without it: it shows and wires the copy buttons (hidden otherwise), searches the
// contacts as one types, and marks a task done without reloading the page.
export const SCRIPT = `for (const button of document.querySelectorAll('button[data-copy]')) {
  const target = document.getElementById(button.dataset.copy)
  if (!target) continue
  button.hidden = false
  button.addEventListener('click', async () => {
    const text = target.textContent
    try {
      await navigator.clipboard.writeText(text)
    } catch {
      // Plain http on another host is no secure context: no clipboard API. Select the text instead.
      const range = document.createRange()
      range.selectNodeContents(target)
      const selection = window.getSelection()
      selection.removeAllRanges()
      selection.addRange(range)
      document.execCommand('copy')
    }
    button.textContent = 'Copied'
    setTimeout(() => { button.textContent = 'Copy' }, 2000)
  })
}

// Fetches a page of this site and gives it parsed, following the 303 of a form post.
async function pageAt(url, init) {
  const response = await fetch(url, { credentials: 'same-origin', ...init })
  const text = await response.text()
  return { response, page: new DOMParser().parseFromString(text, 'text/html') }
}

// Replaces the element with this id by the same element of another page.
function swap(page, id) {
  const now = document.getElementById(id)
  const next = page.getElementById(id)
  if (now && next) now.replaceWith(next)
}

// Search as you type: the list of the filters form is fetched again as the text changes, and
// the address follows (replaced, not added to the history: one entry per search, not per key),
// so the view can still be bookmarked. A filter chosen shows its view at once, as a page of
// its own, so that the back button returns to the view before it.
for (const input of document.querySelectorAll('form.filters input[type="search"]')) {
  const form = input.form
  let timer
  let latest = 0
  const refresh = async () => {
    const url = form.action + '?' + new URLSearchParams(new FormData(form)).toString()
    const asked = ++latest
    const { response, page } = await pageAt(url)
    if (asked !== latest || !response.ok) return
    swap(page, 'contacts-results')
    swap(page, 'contacts-pager')
    history.replaceState(null, '', response.url)
  }
  input.addEventListener('input', () => {
    clearTimeout(timer)
    timer = setTimeout(refresh, 250)
  })
  for (const select of form.querySelectorAll('select')) select.addEventListener('change', () => form.requestSubmit())
}
// Back to a view, the browser shows its page with the fields as they were left (a filter just
// chosen): they show the view of the address again, and a field the address does not name shows
// what the server chose for it (the meeting's recorder as whose tasks to list, not a blank).
addEventListener('pageshow', () => {
  const view = new URLSearchParams(location.search)
  for (const field of document.querySelectorAll('form.filters select, form.filters input[type="search"]')) {
    const asked = view.get(field.name)
    if (asked !== null) field.value = asked
    else if (field instanceof HTMLSelectElement) for (const option of field.options) option.selected = option.defaultSelected
    else field.value = field.defaultValue
  }
})

// Mark done without a reload: the form is posted, and the tasks of the page it answers
// (after its 303) replace these; focus moves to the tasks heading.
document.addEventListener('submit', async (event) => {
  const form = event.target
  if (!(form instanceof HTMLFormElement) || form.dataset.enhance !== 'mark-done') return
  event.preventDefault()
  const { response, page } = await pageAt(form.action, { method: 'POST', body: new URLSearchParams(new FormData(form)) })
  if (!response.ok) {
    form.submit()
    return
  }
  swap(page, 'tasks')
  const status = page.querySelector('[role="status"]')
  const heading = document.getElementById('tasks-title')
  if (status && heading) heading.insertAdjacentElement('afterend', status)
  heading?.setAttribute('tabindex', '-1')
  heading?.focus()
})
// Contacts → Import: the file is sent as it is (text/csv), with the form's CSRF token in a header.
for (const form of document.querySelectorAll('form[data-upload]')) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const file = form.querySelector('input[type=file]').files[0]
    const problem = form.querySelector('[data-upload-problem]')
    if (!file) return
    form.querySelector('button[type=submit]').disabled = true
    const answer = await fetch(form.action, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', 'x-csrf-token': form.elements._csrf.value, 'x-file-name': encodeURIComponent(file.name) },
      body: file,
    })
    if (answer.redirected && answer.ok) {
      window.location.assign(answer.url)
      return
    }
    const page = new DOMParser().parseFromString(await answer.text(), 'text/html')
    problem.textContent = page.querySelector('#upload-problem, .alert, h1')?.textContent ?? 'The upload failed.'
    problem.hidden = false
    form.querySelector('button[type=submit]').disabled = false
  })
}
// An import's page while it runs: read again every few seconds (its state is the server's).
for (const section of document.querySelectorAll('[data-refresh]')) {
  setTimeout(() => { window.location.reload() }, Number(section.dataset.refresh))
}
// A form marked data-enhance="replace" (Mark done) is posted in the background; the page it
// leads to (after the 303) replaces this one's main content: no full reload. Any failure
// posts it the ordinary way.
document.addEventListener('submit', async (event) => {
  const form = event.target
  if (!(form instanceof HTMLFormElement) || form.dataset.enhance !== 'replace') return
  event.preventDefault()
  try {
    const response = await fetch(form.action, { method: 'POST', body: new URLSearchParams(new FormData(form)), credentials: 'same-origin' })
    const next = new DOMParser().parseFromString(await response.text(), 'text/html')
    const main = document.getElementById('main')
    const fresh = next.getElementById('main')
    if (!main || !fresh) throw new Error('no main')
    main.replaceWith(fresh)
    document.title = next.title
    history.replaceState(null, '', response.url)
    const notice = fresh.querySelector('[role="status"], [role="alert"]')
    if (notice) { notice.setAttribute('tabindex', '-1'); notice.focus() }
  } catch {
    form.submit()
  }
})
`
