import fp from 'fastify-plugin'
import type { Database, DatabaseHandle } from '../db/client.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Drizzle over node-postgres; repositories take it (or a transaction). */
    db: Database
    database: DatabaseHandle
  }
}

export interface DbPluginOptions {
  database: DatabaseHandle
  /** Close the database with the app (false when a test owns it). */
  owned: boolean
}

export default fp<DbPluginOptions>(
  (app, { database, owned }, done) => {
    app.decorate('db', database.db)
    app.decorate('database', database)
    if (owned) app.addHook('onClose', () => database.close())
    done()
  },
  { name: 'db' },
)
