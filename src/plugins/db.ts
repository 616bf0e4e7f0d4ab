import fp from 'fastify-plugin'
import type { Database, DatabaseHandle } from '../db/client.js'
import { requestsDrained } from '../http/drain.js'

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
    if (owned) {
      app.addHook('onClose', async () => {
        await requestsDrained(app.server)
        await database.close()
      })
    }
    done()
  },
  { name: 'db' },
)
