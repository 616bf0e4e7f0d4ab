// Admin commands of the web application's accounts: passwords, invite links, deactivation,
// and the list of a user's api tokens (never the tokens themselves).
import { Type } from 'typebox'
import { defineCommand, type CommandContext } from '../../cli/command.js'
import { loadConfig, publicBaseUrl } from '../../config.js'
import type { Db } from '../../db/db.js'
import { ApiError } from '../../errors.js'
import { TrueFlag } from '../../http/schemas.js'
import { UserOption } from '../users/users.schemas.js'
import { activateUser, deactivateUser, inviteUser, setPassword } from './accounts.service.js'
import { listTokensOfUser } from './tokens.service.js'

const UserInput = Type.Object({ user: UserOption })

/** The password as piped in: one trailing line break (from echo or a file) is not part of it. */
function passwordFromStdin(text: string): string {
  const password = text.replace(/\r?\n$/, '')
  if (password === '') {
    throw new ApiError(422, 'no password on standard input: pipe one in (printf %s "…" | …) or use --generate')
  }
  return password
}

/** A command that does one thing to one user (`--user ID`). */
function userCommand(name: string, summary: string, act: (db: Db, context: CommandContext, userId: number) => Promise<object>) {
  return defineCommand({ name, summary, input: UserInput, run: (db, context, input) => act(db, context, input.user) })
}

export const authCommands = [
  defineCommand({
    name: 'user set-password', summary: 'Set the password a user signs in with (read from standard input, or --generate); ends their sessions',
    input: Type.Object({
      user: UserOption,
      generate: Type.Optional(Type.With(TrueFlag, { description: 'make a strong password and print it, only this once' })),
    }),
    run: async (db, context, input) =>
      setPassword(db, context, input.user, input.generate ? { generate: true } : { password: passwordFromStdin(await context.readStdin()) }),
  }),
  userCommand(
    'user invite',
    'Print a one-time link (valid 7 days) where the user chooses a password and is signed in',
    async (db, context, userId) => {
      const config = loadConfig(context.env)
      const invite = await inviteUser(db, context, userId, publicBaseUrl(config))
      if (config.publicUrl === undefined) {
        // The command line cannot know where the server listens: say what the link assumes.
        context.note(
          `the link assumes the server runs on this machine on port ${String(config.port)} (PORT); set PUBLIC_URL to the address people open it at`,
        )
      }
      return invite
    },
  ),
  userCommand('user deactivate', 'Deactivate a user at once: no sign-in, sessions ended, api tokens answer 401 on every server', deactivateUser),
  userCommand('user activate', 'Activate a deactivated user again (their tokens that were not revoked work again)', activateUser),
  defineCommand({
    name: 'token list', summary: "List a user's live api tokens: label, first characters, scopes (null: full access), expiry, created, last used",
    input: UserInput, list: true, run: (db, _context, input) => listTokensOfUser(db, input.user),
  }),
]
