// The service's master key and the keys derived from it, one per purpose (HKDF-SHA256), so
// that no two features ever use the same key: 'webhook secrets' encrypts the webhook
// signing secrets at rest, 'idempotency' the answers kept for Idempotency-Key replays (they
// may hold a webhook secret or personal data), 'sync cursor' signs the cursors of
// updated_since walks.
// The master key comes from WEBHOOK_SECRET_KEY, else from DATA_DIR/secret.key, generated
// on first start (mode 0600). A database dump alone therefore reveals neither.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from './config.js'
import { ConfigError } from './config.js'

export type KeyPurpose = 'webhook secrets' | 'idempotency' | 'sync cursor'

export interface SecretKeys {
  /** 32 bytes for one purpose, the same on every instance sharing the master key. */
  derive(purpose: KeyPurpose): Buffer
}

export function secretKeys(master: Buffer): SecretKeys {
  const derived = new Map<KeyPurpose, Buffer>()
  return {
    derive(purpose) {
      let key = derived.get(purpose)
      if (!key) {
        key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `engage ${purpose}`, 32))
        derived.set(purpose, key)
      }
      return key
    },
  }
}

/** The configured key, else DATA_DIR/secret.key (created with a new random key if missing). */
export function loadSecretKeys(config: Pick<Config, 'secretKey' | 'dataDir'>): SecretKeys {
  return secretKeys(loadMasterKey(config))
}

/** Where the master key is kept when WEBHOOK_SECRET_KEY does not give it. */
export const secretKeyFile = (dataDir: string) => join(dataDir, 'secret.key')

/** The master key itself (a backup asked to keep it): WEBHOOK_SECRET_KEY, else DATA_DIR/secret.key. */
export function loadMasterKey(config: Pick<Config, 'secretKey' | 'dataDir'>): Buffer {
  if (config.secretKey) return config.secretKey
  const file = secretKeyFile(config.dataDir)
  let hex: string
  try {
    hex = readFileSync(file, 'utf8').trim()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    mkdirSync(config.dataDir, { recursive: true })
    hex = randomBytes(32).toString('hex')
    try {
      writeFileSync(file, `${hex}\n`, { mode: 0o600, flag: 'wx' })
    } catch (raced) {
      if ((raced as NodeJS.ErrnoException).code !== 'EEXIST') {
        rmSync(file, { force: true }) // a half-written key (a full disk) would refuse every later start
        throw raced
      }
      hex = readFileSync(file, 'utf8').trim() // another process wrote it first
    }
  }
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new ConfigError(`${file} must hold 64 hex characters (a 32-byte key)`)
  return Buffer.from(hex, 'hex')
}

const SEALED_FORMAT = 'v1' // of the stored ciphertext, so the scheme can change later

/** AES-256-GCM: `v1.` + base64url(iv | tag | ciphertext). */
export function encrypt(key: Buffer, text: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()])
  return `${SEALED_FORMAT}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`
}

/** The text encrypt() sealed; throws when the key is not the one it was sealed with. */
export function decrypt(key: Buffer, stored: string): string {
  const dot = stored.indexOf('.')
  if (dot < 0 || stored.slice(0, dot) !== SEALED_FORMAT) throw new Error('unknown encrypted format')
  const bytes = Buffer.from(stored.slice(dot + 1), 'base64url')
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12))
  decipher.setAuthTag(bytes.subarray(12, 28))
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')
}
