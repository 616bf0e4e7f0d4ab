// Passwords for the web application: argon2id (@node-rs/argon2's default algorithm, with
// the OWASP-recommended 19 MiB, 2 passes, 1 lane), stored as the PHC string. Text is
// compared as Unicode NFC, so the same password typed on two systems matches.
import { randomBytes } from 'node:crypto'
import { hash, verify } from '@node-rs/argon2'

export const PASSWORD_MIN_LENGTH = 10
/** Long enough for any passphrase, short enough that hashing cannot be used to burn CPU. */
export const PASSWORD_MAX_LENGTH = 1000

const normalized = (password: string) => password.normalize('NFC')

/** What is wrong with a new password, in a sentence for the person choosing it; undefined when it is fine. */
export function passwordProblem(password: string): string | undefined {
  if (!password.isWellFormed() || password.includes('\u0000')) return 'The password contains a character that cannot be stored.'
  const length = Array.from(normalized(password)).length
  if (length < PASSWORD_MIN_LENGTH) return `The password is too short: use at least ${String(PASSWORD_MIN_LENGTH)} characters.`
  if (length > PASSWORD_MAX_LENGTH) return `The password is too long: use at most ${String(PASSWORD_MAX_LENGTH)} characters.`
  return undefined
}

export function hashPassword(password: string): Promise<string> {
  return hash(normalized(password))
}

let verifications = 0
/** How many argon2 verifications this process has run: what shows that an unknown email costs one too. */
export const passwordVerifications = () => verifications

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  verifications++
  try {
    return await verify(passwordHash, normalized(password))
  } catch {
    return false // not a hash this library reads: never a match
  }
}

let dummy: Promise<string> | undefined
/**
 * A hash of a random password, verified when no account matches an email, so that an unknown
 * email costs the same argon2 work as a wrong password.
 */
export function dummyHash(): Promise<string> {
  dummy ??= hash(randomBytes(24).toString('base64url'))
  return dummy
}

/** A strong password for `user set-password --generate` and the demo admin: 144 random bits. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url')
}
