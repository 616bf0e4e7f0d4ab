// The yardstick: a bare Fastify + node-postgres handler reading one row by id, with none of
// the service's layers. The service should keep at least 80 % of its throughput.
import Fastify from 'fastify'
import pg from 'pg'

const url = process.env.DATABASE_URL
if (!url) throw new Error('the baseline needs DATABASE_URL')
const pool = new pg.Pool({ connectionString: url, max: 10 })
const app = Fastify({ logger: false })
app.get<{ Params: { id: string } }>('/row/:id', async (request) => {
  const { rows } = await pool.query('select id, name, email from users where id = $1', [request.params.id])
  return rows[0] ?? {}
})
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
process.stdout.write(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }) + '\n')
process.on('SIGTERM', () => {
  void app.close().then(() => pool.end()).then(() => process.exit(0))
})
