#!/usr/bin/env node
// `npx engage-admin <resource> <action> …`: the admin command line without npm's banner on
// stdout. The Node.js check runs before the command line's modern code is even parsed.
'use strict'

require('./check-node.cjs')
require('./engage-admin-start.cjs')
