// Webhook signing secrets in the Standard Webhooks format (`whsec_` + base64 of 32 random
// bytes), encrypted at rest with the key derived for 'webhook secrets' (AES-256-GCM), and
// the signature of a delivery: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed
// with the secret's decoded bytes (https://www.standardwebhooks.com).
import { createHmac, randomBytes } from 'node:crypto'
import { decrypt, encrypt } from '../../secret-key.js'

const PREFIX = 'whsec_'

export function newSigningSecret(): string {
  return PREFIX + randomBytes(32).toString('base64')
}

/** Secrets are stored encrypted with the key derived for 'webhook secrets'. */
export const encryptSecret = encrypt
export const decryptSecret = decrypt

/** One `v1,<base64>` signature of a delivery with one secret. */
export function signature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64')
  const mac = createHmac('sha256', key).update(`${id}.${String(timestampSeconds)}.${body}`).digest('base64')
  return `v1,${mac}`
}

/**
 * The `webhook-signature` header: one signature per secret that still verifies (the current
 * one and, for 24 h after a rotation, the previous one), space-separated.
 */
export function signatureHeader(secrets: string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => signature(secret, id, timestampSeconds, body)).join(' ')
}
