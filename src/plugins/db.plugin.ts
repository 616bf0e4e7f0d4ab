import fp from 'fastify-plugin'
import type { DatabaseHandle } from '../db/client.js'
import type { Db } from '../db/db.js'
import { requestsDrained } from '../http/drain.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The pool; repositories take it (or a transaction's client, src/db/db.ts). */
    db: Db
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
    app.decorate<Db>('db', database.db)
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
