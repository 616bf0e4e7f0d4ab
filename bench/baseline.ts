// The yardsticks: bare Fastify + node-postgres handlers with none of the service's layers
// (no auth, validation, counters, serialization schemas): one row by id, and a page of 25
// contact rows (every column but the tags and custom fields the contact keeps beside it, no
// total, no Link header).
import Fastify from 'fastify'
import pg from 'pg'

const url = process.env.DATABASE_URL
if (!url) throw new Error('the baseline needs DATABASE_URL')
const pool = new pg.Pool({ connectionString: url, max: 10 })
const app = Fastify({ logger: false })
/** Every column the yardstick read before contacts kept their tags and fields (migrations/0020). */
const CONTACT_COLUMNS =
  'company_id, id, user_id, deleted_at, search_text, first_name, last_name, email, business, business_id, position, ' +
  'telephone, cellphone, address, city, state, country, url, linkedin, variable1, variable2, variable3, carousel, ' +
  'stage, contact_group_id, created_at, updated_at'
app.get<{ Params: { id: string } }>('/row/:id', async (request) => {
  const { rows } = await pool.query('select id, name, email from users where id = $1', [request.params.id])
  return rows[0] ?? {}
})
app.get<{ Params: { company: string } }>('/page/:company', async (request) => {
  const { rows } = await pool.query(
    `select ${CONTACT_COLUMNS} from contacts where company_id = $1 and deleted_at is null order by id limit 25`,
    [request.params.company],
  )
  return { data: rows }
})
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
process.stdout.write(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }) + '\n')
process.on('SIGTERM', () => {
  void app.close().then(() => pool.end()).then(() => process.exit(0))
})
