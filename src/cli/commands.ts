// Every admin command; each resource module keeps its own in <resource>.cli.ts, but for
// `audit export` (audit.cli.ts, here: it needs two modules that may not import each other).
import { contactImportsCommands } from '../modules/contact-imports/index.js'
import { authCommands } from '../modules/auth/index.js'
import { flowsCommands } from '../modules/flows-api/index.js'
import { tasksCommands } from '../modules/tasks-api/index.js'
import { usersCommands } from '../modules/users-api/index.js'
import { whatsappCommands } from '../modules/whatsapp/index.js'
import { backupCommands } from '../backup/backup.cli.js'
import { auditCommands } from './audit.cli.js'
import type { Command } from './command.js'

export const commands: Command[] = [...usersCommands, ...authCommands, ...flowsCommands, ...tasksCommands, ...whatsappCommands, ...contactImportsCommands, ...auditCommands, ...backupCommands]
