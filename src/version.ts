// The build's version, from package.json, read once: /healthz, `admin --version`, backups and metrics show it.
import { readFileSync } from 'node:fs'

/** package.json sits one folder above both src/ and dist/. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version

/** The product's name, as pages and the API reference show it. */
export const PRODUCT = 'engage'
