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
