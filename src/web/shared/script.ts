// The one script of the web application, served at /assets/web.js (the Content-Security-
// Policy allows scripts from this origin only, none inline). The pages work without it: it
// only shows and wires the copy buttons, which stay hidden otherwise.
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
`
