// Refuses a Node.js the project does not support, in one line, before anything else loads
// (npm start, npm test and the admin command line preload it with `node -r`). Written for
// the oldest Node.js it must turn away: var, functions and require only.
'use strict'

var NEEDED = require('../package.json').engines.node

/** Whether a version (`v22.12.0`) is one of package.json's `engines`: ^22.12.0 || >=24. */
function supported(version) {
  var parts = /^v?(\d+)\.(\d+)\.(\d+)/.exec(String(version))
  if (!parts) return false
  var major = Number(parts[1])
  var minor = Number(parts[2])
  return (major === 22 && minor >= 12) || major >= 24
}

/** The line that refuses `version`, or null when it is supported. */
function problem(version) {
  if (supported(version)) return null
  return 'engage needs Node.js ' + NEEDED + ' (22.12 or a later 22, or 24 and later); this is Node.js ' + version + ' (' + process.execPath + ')'
}

exports.supported = supported
exports.problem = problem

var refused = problem(process.version)
if (refused) {
  process.stderr.write(refused + '\n')
  process.exit(1)
}
