import { defineConfig } from 'drizzle-kit'

// Migrations are generated from src/db/schema.ts (`npm run db:generate`), reviewed and
// committed; the service applies them at start.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
})
