// Admin commands of a company's users and their access: creating and listing users, roles,
// passwords, invite links, deactivation, and api tokens (made, revoked, listed without the
// tokens themselves). They live here, not in ../users-api/users-api.cli.ts, because a new role or a
// revoked token reaches every server's token cache (tokens.service.ts), which the users
// module may not import (auth imports users); the user commands stay together.
import { Type } from 'typebox'
import { defineCommand, type CommandContext } from '../../cli/command.js'
import { loadConfig, publicBaseUrl } from '../../config.js'
import type { Db } from '../../db/db.js'
import { ApiError } from '../../errors.js'
import { TrueFlag } from '../../http/schemas.js'
import { CompanyOption, TokenCreateInput, TokenRevokeInput, UserCreateInput, UserOption, UserSetRoleInput } from '../users/index.js'
import { createUser, listUsers } from '../users-api/index.js'
import { activateUser, deactivateUser, inviteUser, setPassword, setUserRole } from './accounts.service.js'
import { createToken, listTokensOfUser, parseScopes, revokeToken } from './tokens.service.js'

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
  defineCommand({ name: 'user create', summary: 'Create a user in a company', input: UserCreateInput, run: createUser }),
  defineCommand({
    name: 'user set-role', summary: "Change a user's role: admin or member (takes effect at once on every server)",
    input: UserSetRoleInput, run: setUserRole,
  }),
  defineCommand({
    name: 'user list', summary: 'List the users of a company, active or not',
    input: Type.Object({ company: CompanyOption }), list: true, run: (db, _context, input) => listUsers(db, input.company),
  }),
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
    name: 'token create', summary: 'Create an api_token for a user (it is shown only this once): full access, or only the scopes given',
    input: TokenCreateInput,
    run: (db, context, input) =>
      createToken(db, context, input.user, {
        scopes: input.scopes === undefined ? undefined : parseScopes(input.scopes),
        expiresInDays: input['expires-in-days'],
      }),
  }),
  defineCommand({
    name: 'token revoke', summary: 'Revoke an api_token at once (running servers drop it from their cache)',
    input: TokenRevokeInput, run: (db, context, input) => revokeToken(db, context, input.token),
  }),
  defineCommand({
    name: 'token list', summary: "List a user's live api tokens: label, first characters, scopes (null: full access), expiry, created, last used",
    input: UserInput, list: true, run: (db, _context, input) => listTokensOfUser(db, input.user),
  }),
]
