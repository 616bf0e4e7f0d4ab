// The benchmarks measure the service as `npm start` runs it: the compiled dist/ (which
// `npm run bench` builds first), not tsx's transpilation of src/, whose keep-names helper
// runs at every closure a request creates (5 % of a batch write's CPU in a profile).
// BENCH_SOURCE=src measures the sources instead.
import type * as App from '../src/app.js'
import type * as Client from '../src/db/client.js'
import type * as Config from '../src/config.js'
import type * as Tokens from '../src/modules/auth/tokens.service.js'
import type * as Users from '../src/modules/users-api/users-api.service.js'
import type * as AuditContext from '../src/acting.js'
import type * as OAuth from '../src/modules/oauth-server/oauth-server.service.js'
import type * as OAuthProtocol from '../src/modules/oauth/oauth.protocol.js'

const root = new URL(process.env.BENCH_SOURCE === 'src' ? '../src/' : '../dist/', import.meta.url)
const load = <T>(path: string) => import(new URL(path, root).href) as Promise<T>

export const app = await load<typeof App>('app.js')
export const client = await load<typeof Client>('db/client.js')
export const config = await load<typeof Config>('config.js')
export const tokens = await load<typeof Tokens>('modules/auth/tokens.service.js')
export const users = await load<typeof Users>('modules/users-api/users-api.service.js')
export const auditContext = await load<typeof AuditContext>('acting.js')
export const oauth = await load<typeof OAuth>('modules/oauth-server/oauth-server.service.js')
export const oauthProtocol = await load<typeof OAuthProtocol>('modules/oauth/oauth.protocol.js')
