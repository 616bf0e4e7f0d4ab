// Admin commands of the web application's accounts: passwords, invite links, deactivation,
// and the list of a user's api tokens (never the tokens themselves).
import { Type } from 'typebox'
import { defineCommand } from '../../cli/command.js'
import { loadConfig, publicBaseUrl } from '../../config.js'
import { ApiError } from '../../errors.js'
import { Id, TrueFlag } from '../../http/schemas.js'
import { activateUser, deactivateUser, inviteUser, setPassword } from './accounts.service.js'
import { listTokensOfUser } from './tokens.service.js'

const user = { value: 'ID', description: 'the user id', required: true }
const UserInput = Type.Object({ user: Id })

/** The password as piped in: one trailing line break (from echo or a file) is not part of it. */
function passwordFromStdin(text: string): string {
  const password = text.replace(/\r?\n$/, '')
  if (password === '') {
    throw new ApiError(422, 'no password on standard input: pipe one in (printf %s "…" | …) or use --generate')
  }
  return password
}

export const authCommands = [
  defineCommand({
    name: 'user set-password',
    summary: 'Set the password a user signs in with (read from standard input, or --generate); ends their sessions',
    options: {
      user,
      generate: { description: 'make a strong password and print it, only this once', flag: true },
    },
    input: Type.Object({ user: Id, generate: Type.Optional(TrueFlag) }),
    run: async (db, input, context) =>
      setPassword(db, context, input.user, input.generate ? { generate: true } : { password: passwordFromStdin(await context.readStdin()) }),
  }),
  defineCommand({
    name: 'user invite',
    summary: 'Print a one-time link (valid 7 days) where the user chooses a password and is signed in',
    options: { user },
    input: UserInput,
    run: (db, input, context) => inviteUser(db, context, input.user, publicBaseUrl(loadConfig(context.env))),
  }),
  defineCommand({
    name: 'user deactivate',
    summary: 'Deactivate a user at once: no sign-in, sessions ended, api tokens answer 401 on every server',
    options: { user },
    input: UserInput,
    run: (db, input, context) => deactivateUser(db, context, input.user),
  }),
  defineCommand({
    name: 'user activate',
    summary: 'Activate a deactivated user again (their tokens that were not revoked work again)',
    options: { user },
    input: UserInput,
    run: (db, input, context) => activateUser(db, context, input.user),
  }),
  defineCommand({
    name: 'token list',
    summary: "List a user's live api tokens: label, first characters, scopes (null: full access), expiry, created, last used",
    options: { user },
    input: UserInput,
    list: true,
    run: (db, input) => listTokensOfUser(db, input.user),
  }),
]
