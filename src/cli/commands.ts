// Every admin command; each resource module keeps its own in <resource>.cli.ts.
import { usersCommands } from '../modules/users/users.cli.js'
import type { Command } from './command.js'

export const commands: Command[] = [...usersCommands]
