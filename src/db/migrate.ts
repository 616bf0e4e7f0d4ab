// Applies the committed migrations (drizzle/, generated from src/db/schema.ts by drizzle-kit
// and reviewed as SQL) with Drizzle's migrator: the only Drizzle code that runs in the
// service, once at start (docs/architecture.md, "The database").
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import { fileURLToPath } from 'node:url'
import type pg from 'pg'

const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url))

/** Applies the migrations not applied yet, on a connection of its own (the caller holds the migration lock). */
export async function applyMigrations(client: pg.Client): Promise<void> {
  await migrate(drizzle({ client }), { migrationsFolder })
}
