// The template tag of the pages escapes every interpolation unless it is Html itself.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { html } from '../../src/web/shared/html.js'

test('interpolations are escaped, in text and in attributes', () => {
  const hostile = `<script>alert("x")</script> & 'quoted'`
  assert.equal(
    html`<p title="${hostile}">${hostile}</p>`.text,
    '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;</p>',
  )
})

test('nested templates are not escaped twice; lists join; null, undefined and false render nothing', () => {
  const items = ['a<b', 'c&d'].map((item) => html`<li>${item}</li>`)
  assert.equal(html`<ul>${items}</ul>`.text, '<ul><li>a&lt;b</li><li>c&amp;d</li></ul>')
  assert.equal(html`[${null}${undefined}${false}${0}${''}]`.text, '[0]')
  assert.equal(html`${html`<b>${'<i>'}</b>`}`.text, '<b>&lt;i&gt;</b>')
})
