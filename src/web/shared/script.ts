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
`
