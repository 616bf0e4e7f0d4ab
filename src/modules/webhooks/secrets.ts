// Webhook signing secrets in the Standard Webhooks format (`whsec_` + base64 of 32 random
// bytes), encrypted at rest with the key derived for 'webhook secrets' (AES-256-GCM), and
// the signature of a delivery: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed
// with the secret's decoded bytes (https://www.standardwebhooks.com).
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'

const PREFIX = 'whsec_'
const FORMAT = 'v1' // of the stored ciphertext, so the scheme can change later

export function newSigningSecret(): string {
  return PREFIX + randomBytes(32).toString('base64')
}

/** `v1.` + base64url(iv | tag | ciphertext). */
export function encryptSecret(key: Buffer, secret: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
  return `${FORMAT}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`
}

export function decryptSecret(key: Buffer, stored: string): string {
  const [format, payload] = stored.split('.', 2)
  if (format !== FORMAT || !payload) throw new Error('unknown webhook secret format')
  const bytes = Buffer.from(payload, 'base64url')
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12))
  decipher.setAuthTag(bytes.subarray(12, 28))
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')
}

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
