// Loaded only after check-node.cjs let this Node.js through: an older one could not parse it.
'use strict'

import('../dist/cli/main.js').catch(function (err) {
  process.stderr.write('admin: failed: ' + (err && err.message ? err.message : String(err)) + '\n')
  process.exitCode = 1
})
