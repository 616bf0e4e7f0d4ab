// The protocol's small pure pieces (src/modules/oauth/oauth.protocol.ts), each on its own.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { basicCredentials, challengeOf, parseScope, pkceMatches, redirectTo, redirectUriProblem, registeredUri } from '../../src/modules/oauth/oauth.protocol.js'

describe('OAuth protocol pieces', () => {
  test('redirect URIs: https anywhere, http only to a loopback host, never a fragment or user info', () => {
    for (const ok of ['https://app.example.com/cb', 'https://app.example.com:8443/cb?x=1', 'http://127.0.0.1:8765/cb', 'http://localhost/cb', 'http://[::1]:9000/']) {
      assert.equal(redirectUriProblem(ok), undefined, ok)
    }
    for (const bad of ['http://app.example.com/cb', 'http://127.0.0.2/cb', 'http://localhost.evil.com/cb', 'https://app.example.com/cb#frag', 'https://user:pw@app.example.com/cb', 'javascript:alert(1)', 'custom:/cb', '/relative', 'https://app.example.com/a b', 'https://app.example.com/\u0000', `https://a.example/${'x'.repeat(2000)}`]) {
      assert.ok(redirectUriProblem(bad), bad)
    }
  })

  test('a redirect URI matches exactly: no prefix, no other port, no added query; omitted only when one is registered', () => {
    const registered = ['https://app.example.com/cb', 'http://127.0.0.1:8765/cb']
    assert.equal(registeredUri(registered, 'https://app.example.com/cb'), 'https://app.example.com/cb')
    for (const asked of ['https://app.example.com/cb/', 'https://app.example.com/c', 'https://app.example.com/cb?x=1', 'https://app.example.com:443/cb', 'http://127.0.0.1:8766/cb', 'HTTPS://app.example.com/cb', '']) {
      assert.equal(registeredUri(registered, asked), undefined, asked)
    }
    assert.equal(registeredUri(registered, undefined), undefined)
    assert.equal(registeredUri(['https://only.example/cb'], undefined), 'https://only.example/cb')
  })

  test('parameters are added to the registered URI, keeping its own query, encoded', () => {
    assert.equal(redirectTo('https://app.example.com/cb?tenant=1', { code: 'c', state: 'a&b=c#d' }), 'https://app.example.com/cb?tenant=1&code=c&state=a%26b%3Dc%23d')
    assert.equal(redirectTo('https://app.example.com/cb', { error: 'access_denied', state: undefined }), 'https://app.example.com/cb?error=access_denied')
  })

  test('PKCE S256 (RFC 7636 appendix B) and the verifier\'s shape', () => {
    assert.equal(challengeOf('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')
    assert.equal(pkceMatches('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), true)
    assert.equal(pkceMatches('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXK', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), false)
    // plain: the challenge equal to the verifier never matches.
    const verifier = 'a'.repeat(43)
    assert.equal(pkceMatches(verifier, verifier), false)
    assert.equal(pkceMatches('short', challengeOf('short')), false)
    assert.equal(pkceMatches('x'.repeat(129), challengeOf('x'.repeat(129))), false)
    assert.equal(pkceMatches('bad verifier with spaces and more than 43 chars', challengeOf('bad verifier with spaces and more than 43 chars')), false)
  })

  test('scope: space-separated, each known and allowed, duplicates once, at least one', () => {
    const allowed = ['contacts:read', 'contacts:write', 'tasks:read'] as const
    assert.deepEqual(parseScope('contacts:read tasks:read', allowed), ['contacts:read', 'tasks:read'])
    assert.deepEqual(parseScope('contacts:read  contacts:read', allowed), ['contacts:read'])
    for (const bad of [undefined, '', ' ', 'webhooks:write', 'contacts:read nope', 'contacts:read,tasks:read', '*']) {
      assert.equal(parseScope(bad, allowed), undefined, String(bad))
    }
  })

  test('client_secret_basic: form-encoded id and secret; anything else malformed or absent', () => {
    const header = `Basic ${Buffer.from('engc_a%3Ab:s%2Bc+d').toString('base64')}`
    assert.deepEqual(basicCredentials(header), { clientId: 'engc_a:b', secret: 's+c d' })
    assert.equal(basicCredentials(undefined), undefined)
    assert.equal(basicCredentials('Bearer abc'), undefined)
    assert.equal(basicCredentials(`Basic ${Buffer.from('no-colon').toString('base64')}`), 'malformed')
    assert.equal(basicCredentials('Basic !!!'), 'malformed')
    assert.equal(basicCredentials(`Basic ${Buffer.from('a:%E0%A4%A').toString('base64')}`), 'malformed')
  })
})
